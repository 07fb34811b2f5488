// A short soak (scripts/soak.mjs, `npm run soak` runs 100,000 calls): a few
// thousand mixed calls, valid and failing, through every API function on both
// builds. Every call behaves as specified (results of the right shape, errors
// of the right class and code) and the WASM memory stays flat after warm-up.
import { describe, expect, it } from 'vitest';

import { soak } from '../../scripts/soak.mjs';
import { DETERMINISTIC_BUILDS } from './helpers.js';

const CALLS = 4000;

describe.each(DETERMINISTIC_BUILDS)('soak ($name build)', ({ simd }) => {
  it(`${CALLS} mixed calls leave the WASM memory flat and every call behaves`, async () => {
    const result = await soak({ calls: CALLS, every: 500, simd, seed: 7 });
    expect(result.simd).toBe(simd);
    expect(result.problems).toEqual([]);
    // Every kind of call ran, and the failing ones failed with their own code.
    const outcomes = Object.keys(result.counts);
    expect(outcomes.length).toBe(32);
    for (const code of ['SHAPE_MISMATCH', 'NON_FINITE', 'INVALID_MASK', 'INVALID_ARGUMENT', 'OVERFLOW', 'DISPOSED', 'OUT_OF_MEMORY'])
      expect(outcomes.some((o) => o.endsWith(`→ ${code}`)), code).toBe(true);
    expect(outcomes.filter((o) => o.endsWith('→ ok')).length).toBe(11);
    // Flat: every sample after warm-up equals the first.
    const sizes = result.samples.map((s) => s.wasmBytes);
    expect(sizes.length).toBe(CALLS / 500 + 1);
    expect(sizes).toEqual(sizes.map(() => sizes[0]));
    expect(result.grew).toBe(false);
  });
});
