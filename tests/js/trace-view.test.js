// web/src/trace-view.js on the library's own traces: the step with an id is
// the whole call's or the given head's, a head-less result is its own head,
// a missing step is undefined (or throws, naming it, when its matrix is asked).
import { beforeAll, describe, expect, it } from 'vitest';

import { stepsById, traceMask, traceMatrix, traceStep, traceStepsOf } from '../../web/src/trace-view.js';
import { loadLab, randomMatrix, rng } from './helpers.js';

describe('trace-view', () => {
  let lab;
  let multi;
  let single;
  beforeAll(async () => {
    lab = await loadLab(true);
    const rand = rng(11);
    const X = randomMatrix(rand, 5, 4);
    const w = { heads: 2, Wq: randomMatrix(rand, 4, 4), Wk: randomMatrix(rand, 4, 4), Wv: randomMatrix(rand, 4, 6), Wo: randomMatrix(rand, 6, 4) };
    multi = lab.multiHeadAttention(X, { ...w, mask: { validLens: [1, 2, 3, 4, 5] }, trace: true });
    single = lab.selfAttention(X, { Wq: randomMatrix(rand, 4, 3), Wk: randomMatrix(rand, 4, 3), Wv: randomMatrix(rand, 4, 3), trace: true });
  });

  it('finds a whole-call step without a head and a head step with one', () => {
    expect(traceStep(multi, 'concat')).toBe(multi.steps.find((s) => s.id === 'concat'));
    expect(traceMatrix(multi, 'concat').cols).toBe(6);
    // The whole call's Q holds every head side by side; head 1's is its own slice.
    expect(traceMatrix(multi, 'Q').cols).toBe(4);
    expect(traceMatrix(multi, 'Q', 1)).toBe(multi.heads[1].steps.find((s) => s.id === 'Q').matrix);
    expect(traceMatrix(multi, 'Q', 1).cols).toBe(2);
    expect(traceMatrix(multi, 'weights', 0)).not.toBe(traceMatrix(multi, 'weights', 1));
    expect(traceStep(multi, 'weights')).toBeUndefined();
  });

  it('treats a result without heads as its own only head', () => {
    expect(traceStepsOf(single, 0)).toBe(single.steps);
    expect(traceStepsOf(single, 3)).toBe(single.steps);
    expect(traceMatrix(single, 'K', 0)).toBe(traceMatrix(single, 'K'));
  });

  it('gives the mask bits of the masked step, per head, and undefined without a mask', () => {
    const bits = traceMask(multi, 1);
    expect(bits).toBeInstanceOf(Uint8Array);
    expect(Array.from(bits.subarray(0, 5))).toEqual([1, 0, 0, 0, 0]);
    expect(traceMask(single)).toBeUndefined();
  });

  it('says which step is missing, and is empty for an untraced result or an absent head', () => {
    expect(() => traceMatrix(multi, 'scores')).toThrow('trace has no step "scores"');
    expect(() => traceMatrix(multi, 'nope', 1)).toThrow('trace has no step "nope" for head 1');
    expect(traceStepsOf(multi, 5)).toEqual([]);
    expect(traceStepsOf(lab.selfAttention(randomMatrix(rng(1), 2, 2), { Wq: randomMatrix(rng(2), 2, 2), Wk: randomMatrix(rng(3), 2, 2), Wv: randomMatrix(rng(4), 2, 2) }))).toEqual([]);
    expect(traceStep(undefined, 'Q')).toBeUndefined();
  });

  it('keys steps by id', () => {
    const byId = stepsById(multi.heads[0].steps);
    expect(Object.keys(byId)).toEqual(multi.heads[0].steps.map((s) => s.id));
    expect(byId.masked.mask).toBe(traceMask(multi, 0));
    expect(stepsById(undefined)).toEqual({});
  });
});
