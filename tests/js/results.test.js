// Results are fresh objects the caller owns: never views of the WASM heap,
// never aliases of the inputs, unchanged by later calls or by mutating other
// results; inputs are never modified.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, expectIdentical, randomMatrix, randomVector, ref, rng, initWithMemory } from './helpers.js';
import * as R from './reference.js';


/** Every Float32Array / Uint8Array a result holds, with a path for messages. */
function arraysOf(value, path = 'result', out = []) {
  if (ArrayBuffer.isView(value)) out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => arraysOf(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) arraysOf(v, `${path}.${k}`, out);
  return out;
}

describe.each(BUILDS)('results are fresh copies ($name build)', ({ simd }) => {
  let lab;
  let memory;
  beforeAll(async () => {
    ({ lab, memory } = await initWithMemory(simd));
    expect(memory).toBeInstanceOf(WebAssembly.Memory);
  });

  const rand = rng(808);
  const X = randomMatrix(rand, 6, 8);
  const [Q, K, V] = [randomMatrix(rand, 5, 4), randomMatrix(rand, 7, 4), randomMatrix(rand, 7, 3)];
  const mh = { heads: 2, Wq: randomMatrix(rand, 8, 4), Wk: randomMatrix(rand, 8, 4), Wv: randomMatrix(rand, 8, 6), Wo: randomMatrix(rand, 6, 5) };
  const additiveW = { Wq: randomMatrix(rand, 4, 3), Wk: randomMatrix(rand, 4, 3), wv: randomVector(rand, 3) };
  const calls = {
    matmul: (lab) => lab.matmul(Q, randomMatrix(rng(1), 4, 6)),
    softmax: (lab) => lab.softmax(X, { mask: 'causal' }),
    scaledDotProductAttention: (lab) => lab.scaledDotProductAttention(Q, K, V, { mask: { validLens: [1, 2, 3, 4, 0] }, trace: true }),
    additiveAttention: (lab) => lab.additiveAttention(Q, K, V, { ...additiveW, mask: 'causal', trace: true }),
    selfAttention: (lab) => lab.selfAttention(X, { Wq: mh.Wq, Wk: mh.Wk, Wv: mh.Wv, mask: 'causal', trace: true }),
    multiHeadAttention: (lab) => lab.multiHeadAttention(X, { ...mh, mask: 'causal', trace: true }),
    nadarayaWatson: (lab) => lab.nadarayaWatson([0, 1, 2, 3], [1, 4, 9, 16], [0.5, 2.5], { bandwidth: 0.7 }),
    'scaledDotProductAttention (weights: false)': (lab) => lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', weights: false }),
    localAttention: (lab) => lab.localAttention(X, X, X, { window: 2, trace: true }),
    linearAttention: (lab) => lab.linearAttention(Q, K, V, { trace: true }),
    linformerAttention: (lab) => lab.linformerAttention(Q, K, V, { E: randomMatrix(rng(2), 3, 7), F: randomMatrix(rng(3), 3, 7), trace: true }),
    'createMultiHeadAttention().forward': (lab) => {
      const layer = lab.createMultiHeadAttention(mh);
      try {
        return layer.forward(X, { mask: 'causal' });
      } finally {
        layer.dispose();
      }
    },
  };

  it.each(Object.keys(calls))('%s: every returned array owns its own buffer, outside the WASM heap', (name) => {
    const result = calls[name](lab);
    const arrays = arraysOf(result);
    expect(arrays.length).toBeGreaterThan(0);
    for (const [path, array] of arrays) {
      expect(array.buffer, path).not.toBe(memory.buffer);
      expect(array.buffer).toBeInstanceOf(ArrayBuffer);
      expect(array.byteOffset, path).toBe(0);
      expect(array.buffer.byteLength, `${path} is a view into a larger buffer`).toBe(array.byteLength);
    }
    if (result.output) expect(result.output.data.buffer).not.toBe(memory.buffer);
  });

  it.each(Object.keys(calls))('%s: calling again does not change an earlier result; mutating one result does not change another', (name) => {
    const first = calls[name](lab);
    const snapshot = arraysOf(first).map(([path, a]) => [path, a.slice()]);
    // other calls in between, of every kind, and a second identical call
    for (const other of Object.values(calls)) other(lab);
    const second = calls[name](lab);
    for (const [, a] of arraysOf(second)) a.fill(12345);
    lab.releaseMemory();
    calls[name](lab);
    const after = arraysOf(first);
    after.forEach(([path, a], i) => expect(Array.from(a), path).toEqual(Array.from(snapshot[i][1])));
  });

  it('mutating an input after the call does not change the result; the call does not modify its inputs', () => {
    const q = Q.data.slice();
    const k = K.data.slice();
    const v = V.data.slice();
    const Qc = { ...Q, data: Q.data.slice() };
    const result = lab.scaledDotProductAttention(Qc, K, V);
    expect(Array.from(Q.data)).toEqual(Array.from(q));
    expect(Array.from(K.data)).toEqual(Array.from(k));
    expect(Array.from(V.data)).toEqual(Array.from(v));
    const before = result.output.data.slice();
    Qc.data.fill(9);
    expect(Array.from(result.output.data)).toEqual(Array.from(before));
    // results never alias their inputs
    const S = randomMatrix(rng(3), 3, 3);
    const W = lab.softmax(S);
    expect(W.data).not.toBe(S.data);
    expect(W.data.buffer).not.toBe(S.data.buffer);
    const I = lab.matmul(S, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    expect(I.data.buffer).not.toBe(S.data.buffer);
    I.data[0] = 42;
    expect(S.data[0]).not.toBe(42);
  });

  it('a result stays valid after the heap grows (a much larger call in between)', () => {
    const small = lab.scaledDotProductAttention(Q, K, V);
    const copy = small.output.data.slice();
    const big = randomMatrix(rng(4), 512, 64);
    lab.scaledDotProductAttention(big, big, big); // needs a larger workspace: memory may grow
    expect(Array.from(small.output.data)).toEqual(Array.from(copy));
    expectClose(small.output, R.scaledDotProduct(ref(Q), ref(K), ref(V)).output);
  });

  it('trace step matrices are copies too: mutating one does not affect the result or a later trace', () => {
    const a = calls.scaledDotProductAttention(lab);
    const scores = a.steps.find((s) => s.id === 'scores').matrix;
    const weightsCopy = a.weights.data.slice();
    scores.data.fill(0);
    expect(Array.from(a.weights.data)).toEqual(Array.from(weightsCopy));
    const b = calls.scaledDotProductAttention(lab);
    expectIdentical(b.weights, a.weights);
    expect(b.steps.find((s) => s.id === 'scores').matrix.data.some((x) => x !== 0)).toBe(true);
  });
});
