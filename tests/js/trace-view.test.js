// web/src/trace-view.js on the library's own traces: the step with an id is
// the whole call's or the given head's, a head-less result is its own head,
// a missing step is undefined (or throws, naming it, when its matrix is asked).
import { beforeAll, describe, expect, it } from 'vitest';

import katex from 'katex';

import { concatFormula, headFormula, stepsById, traceMask, traceMatrix, traceStep, traceStepsOf } from '../../web/src/trace-view.js';
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

  it('writes the formulas of a head with its slices (Q^{(2)}, not Q), each still valid TeX', () => {
    const own = stepsById(multi.heads[1].steps);
    const written = Object.fromEntries(Object.entries(own).map(([id, st]) => [id, headFormula(st.formula, 2)]));
    expect(written.scores).toBe('S^{(2)} = Q^{(2)}K^{(2)\\top}');
    expect(written.scaled).toBe("S'^{(2)} = \\frac{Q^{(2)}K^{(2)\\top}}{\\sqrt{d_k}}");
    expect(written.weights).toBe("A^{(2)} = \\operatorname{softmax}(S'^{(2)})");
    expect(written.output).toBe('O^{(2)} = A^{(2)}V^{(2)}');
    // Commands, \text{…} and the mask M stay as written.
    expect(written.masked).toBe("S'^{(2)}_{ij} = -\\infty \\text{ where } M_{ij} = 0");
    // No bare operand is left, and KaTeX typesets every one (a double superscript would throw).
    for (const tex of Object.values(written)) {
      expect(tex.replace(/\\[a-zA-Z]+|\\text\{[^}]*\}/g, '')).not.toMatch(/[QKVSAO](?!'?\^\{\(2\))/);
      expect(() => katex.renderToString(tex, { throwOnError: true })).not.toThrow();
    }
    expect(concatFormula(2)).toBe('H = \\operatorname{Concat}(O^{(1)}, O^{(2)})');
    expect(concatFormula(8)).toBe('H = \\operatorname{Concat}(O^{(1)}, \\dots, O^{(8)})');
  });
});
