// The captions of the trained heads cannot drift from the checkpoints: web/src/trained/heads.js is
// what scripts/measure-heads.mjs measures on the shipped checkpoints today, and each pattern scores
// a synthetic matrix made of it alone 1 (and a uniform one less).
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { CHECKPOINTS, headsModule, measureAll } from '../../scripts/measure-heads.mjs';
import { captionOf, headEntry } from '../../web/src/trained/captions.js';
import { CLEAR, patternOf } from '../../web/src/trained/head-patterns.js';
import { HEADS } from '../../web/src/trained/heads.js';
import { loadTrainingLab } from './helpers.js';

/** An n×n causal matrix whose row i puts all its weight on column pick(i) (row 0 on itself). */
const pure = (n, pick) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j === (i === 0 ? 0 : pick(i)) ? 1 : 0)));
const tokens = ['<bos>', 'a', 'b', '.', 'a', 'b', 'c'];
const causal = { rows: tokens, cols: tokens, causal: true };

describe('head patterns on synthetic attention', () => {
  it('a pure previous-token matrix scores 1 as previous-token', () => {
    expect(patternOf(pure(7, (i) => i - 1), causal)).toEqual({ kind: 'previous-token', score: 1 });
  });

  it('first token, itself, punctuation and induction each score 1 on their own matrix', () => {
    expect(patternOf(pure(7, () => 0), causal)).toEqual({ kind: 'first-token', score: 1 });
    expect(patternOf(pure(7, (i) => i), causal)).toEqual({ kind: 'diagonal', score: 1 });
    // punctuation: from row 3 on, every row reads the '.' (rows 1 and 2 see none and do not count)
    expect(patternOf(pure(7, (i) => (i >= 3 ? 3 : 0)), causal)).toEqual({ kind: 'punctuation', score: 1 });
    // induction: the second a (row 4) reads the b after the first a (column 2), the second b (row 5) the '.' after the first b
    expect(patternOf(pure(7, (i) => ({ 4: 2, 5: 3 })[i] ?? 0), causal)).toEqual({ kind: 'induction', score: 1 });
  });

  it('a cross matrix reading the character it writes scores 1 as alignment', () => {
    const src = ['a', 'b', 'c'];
    const writes = ['c', 'b', 'a'];
    const A = writes.map((w) => src.map((s) => (s === w ? 1 : 0)));
    expect(patternOf(A, { rows: ['<bos>', 'c', 'b'], cols: src, causal: false, writes })).toEqual({ kind: 'alignment', score: 1 });
  });

  it('a uniform matrix has no clear pattern', () => {
    const n = 8;
    const uniform = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? 1 / (i + 1) : 0)));
    const t8 = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
    expect(patternOf(uniform, { rows: t8, cols: t8, causal: true }).score).toBeLessThan(CLEAR);
  });
});

describe('web/src/trained/heads.js', () => {
  it('is what scripts/measure-heads.mjs measures on the shipped checkpoints (re-run it when they change)', async () => {
    const lab = await loadTrainingLab(true);
    const measured = await measureAll(lab);
    expect(HEADS).toEqual(measured);
    expect(readFileSync(new URL('../../web/src/trained/heads.js', import.meta.url), 'utf8')).toBe(headsModule(measured));
  }, 60_000);

  it('holds every head of every checkpoint once, numbered from 0 as in the API', async () => {
    const lab = await loadTrainingLab(true);
    expect(Object.keys(HEADS)).toEqual(CHECKPOINTS);
    for (const name of CHECKPOINTS) {
      const { model } = lab.checkpoints[name];
      const parts = model.encoderLayers ? ['encoder', 'decoder', 'cross'] : ['decoder'];
      const want = parts.flatMap((a) => Array.from({ length: a === 'encoder' ? model.encoderLayers : model.decoderLayers }, (_, l) => Array.from({ length: model.heads }, (_, h) => `${a} ${l} ${h}`)).flat());
      expect(HEADS[name].map((h) => `${h.attention} ${h.layer} ${h.head}`).sort()).toEqual(want.sort());
    }
  });

  it('captions a head from 1, and says "no clear pattern" under 0.5', () => {
    const t = (key, p = {}) => `${key} ${JSON.stringify(p)}`;
    const clear = HEADS.repeat.find((h) => h.score >= CLEAR);
    expect(captionOf(t, clear)).toContain('trained.caption ');
    expect(captionOf(t, clear)).toContain(`"layer":${clear.layer + 1},"head":${clear.head + 1}`);
    const vague = HEADS.grammar.find((h) => h.score < CLEAR);
    expect(captionOf(t, vague)).toContain('trained.captionNone');
    expect(headEntry('grammar', 'decoder', 9, 0)).toBeNull();
  });
});
