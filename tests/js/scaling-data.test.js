// The scaling panel's numbers (web/src/components/scaling-data.js) with the library's softmax: the
// sampled variance of q·k is ≈ d_k, of q·k/√d_k ≈ 1 and of q·k/d_k ≈ 1/d_k at every width, within
// sampling tolerance; dividing by d_k drives softmax toward uniform (1/KEYS), √d_k does not.
import { beforeAll, describe, expect, it } from 'vitest';

import { KEYS, PAIRS, WIDTHS, scalingData } from '../../web/src/components/scaling-data.js';
import { loadLab } from './helpers.js';

describe('scaling data: why √d_k and not d_k', () => {
  let rows;
  beforeAll(async () => {
    rows = scalingData(await loadLab(true), 42);
  });

  it('Var(q·k) ≈ d_k, Var(q·k/√d_k) ≈ 1 and Var(q·k/d_k) ≈ 1/d_k for every width', () => {
    expect(rows.map((r) => r.d)).toEqual(WIDTHS);
    // q·k = ‖q‖z has kurtosis 3 + 6/d_k (9 at d_k = 1): the sample variance of PAIRS draws has a
    // relative standard deviation of at most √(8/PAIRS) ≈ 0.09; 0.3 is more than three of them.
    const tol = 3.5 * Math.sqrt(8 / PAIRS);
    for (const r of rows) {
      expect(Math.abs(r.variance / r.d - 1), `d_k ${r.d}`).toBeLessThan(tol);
      expect(Math.abs(r.varianceSqrt - 1), `d_k ${r.d}`).toBeLessThan(tol);
      expect(Math.abs(r.varianceLinear * r.d - 1), `d_k ${r.d}`).toBeLessThan(tol);
      // The three are one sample divided three ways.
      expect(r.varianceSqrt).toBeCloseTo(r.variance / r.d, 9);
      expect(r.varianceLinear).toBeCloseTo(r.variance / r.d ** 2, 9);
    }
  });

  it('divided by d_k the softmax rows turn uniform as d_k grows; divided by √d_k they do not', () => {
    const wide = rows.at(-1);
    expect(wide.maxLinear).toBeLessThan(1 / KEYS + 0.02);
    expect(wide.maxScaled).toBeGreaterThan(2 / KEYS);
    for (let k = 1; k < rows.length; k++) expect(rows[k].maxLinear).toBeLessThanOrEqual(rows[k - 1].maxLinear + 1e-6);
    // At d_k = 1 the three divisors agree.
    expect(rows[0].maxLinear).toBeCloseTo(rows[0].maxScaled, 6);
  });
});
