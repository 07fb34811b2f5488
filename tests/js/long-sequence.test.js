// Long sequences without an n×n matrix: the fused path (weights: false)
// computes exact causal attention at n = 16384, d = 64 inside a 64 MiB heap.
// A few output rows are checked against a float64 reference of that row alone.
import { describe, expect, it } from 'vitest';

import { init } from '../../dist/node.js';
import { randomMatrix, rng } from './helpers.js';

// Output row i of causal softmax(QKᵀ/√d)V, in float64.
function referenceRow(q, k, v, i) {
  const d = q.cols, scale = 1 / Math.sqrt(d);
  const scores = new Float64Array(i + 1);
  let max = -Infinity;
  for (let j = 0; j <= i; j++) {
    let dot = 0;
    for (let t = 0; t < d; t++) dot += q.data[i * d + t] * k.data[j * d + t];
    scores[j] = dot * scale;
    max = Math.max(max, scores[j]);
  }
  const out = new Float64Array(v.cols);
  let sum = 0;
  for (let j = 0; j <= i; j++) {
    const w = Math.exp(scores[j] - max);
    sum += w;
    for (let t = 0; t < v.cols; t++) out[t] += w * v.data[j * v.cols + t];
  }
  return out.map((x) => x / sum);
}

describe.each([true, false])('n = 16384 causal attention without weights (simd: %s)', (simd) => {
  it('is exact on sampled rows and stays within a 64 MiB heap', async () => {
    const lab = await init({ simd });
    const n = simd ? 16384 : 4096; // the scalar build is checked at a length it finishes quickly
    const next = rng(7);
    const [q, k, v] = [randomMatrix(next, n, 64, -0.5, 0.5), randomMatrix(next, n, 64, -0.5, 0.5), randomMatrix(next, n, 64, -0.5, 0.5)];
    const { output, weights } = lab.scaledDotProductAttention(q, k, v, { mask: 'causal', weights: false });
    expect(weights).toBeUndefined();
    expect(output.rows).toBe(n);
    expect(lab.heapBytes).toBeLessThanOrEqual(64 * 1024 * 1024);
    for (const i of [0, 1, 63, 64, 1000, n - 129, n - 1]) {
      const expected = referenceRow(q, k, v, i);
      for (let t = 0; t < 64; t++) expect(Math.abs(output.data[i * 64 + t] - expected[t])).toBeLessThan(1e-5 + 1e-4 * Math.abs(expected[t]));
    }
  }, 120_000);
});
