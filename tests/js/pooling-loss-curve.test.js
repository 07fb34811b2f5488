// The pooling panel's sentence under its loss chart is decided by the curve it describes
// (web/src/components/pooling/loss-curve.js): synthetic curves of each kind, and the sentence
// chosen for each (curveSentence, in both languages).
import { describe, expect, it } from 'vitest';

import { SLOW_STEP, classifyLoss, curveSentence } from '../../web/src/components/pooling/loss-curve.js';
import { addStrings, translator } from '../../web/src/i18n.js';
import pooling from '../../web/src/strings/pooling.js';

describe('classifyLoss', () => {
  it('a loss that goes up at some step overshoots, at that step', () => {
    expect(classifyLoss([10, 6, 7, 5, 4])).toMatchObject({ kind: 'rises', step: 2, from: 6, to: 7 });
    // Oscillating around the minimum: the first rise counts.
    expect(classifyLoss([10, 4, 5, 4, 5, 4])).toMatchObject({ kind: 'rises', step: 2 });
    // Increasing from the start (diverging).
    expect(classifyLoss([10, 12, 15, 20])).toMatchObject({ kind: 'rises', step: 1 });
  });

  it('monotone but still falling fast at the end: falls slowly (has not levelled off)', () => {
    // Seed 1 at rate 0.02 in the page: 19.53 → … → 10.63 → 10.54.
    const curve = classifyLoss([19.53, 13.051, 12.015, 11.525, 11.224, 11.014, 10.857, 10.732, 10.63, 10.544]);
    expect(curve.kind).toBe('slow');
    expect(curve.lastDrop).toBeCloseTo((10.63 - 10.544) / 10.63, 6);
    // A straight line down.
    expect(classifyLoss([10, 9, 8, 7]).kind).toBe('slow');
  });

  it('monotone and nearly still at the end: levelled off', () => {
    // Seed 1 at rate 0.1: one large step, then changes of 0.03 % a step.
    expect(classifyLoss([19.53, 9.519, 9.513, 9.508, 9.503, 9.499, 9.495, 9.492, 9.489, 9.486]).kind).toBe('flat');
    // Exactly flat, and a rise within float32 rounding.
    expect(classifyLoss([7.468, 7.468, 7.468]).kind).toBe('flat');
    expect(classifyLoss([7, 5, 5 + 1e-7]).kind).toBe('flat');
  });

  it('the boundary between slow and flat is SLOW_STEP of the loss per step', () => {
    expect(classifyLoss([2, 1, 1 - SLOW_STEP * 1.01]).kind).toBe('slow');
    expect(classifyLoss([2, 1, 1 - SLOW_STEP * 0.99]).kind).toBe('flat');
  });

  it('fewer than two points: nothing to say', () => {
    expect(classifyLoss([]).kind).toBe('short');
    expect(classifyLoss([3]).kind).toBe('short');
  });
});

describe('curveSentence', () => {
  addStrings({ pooling });
  const en = translator('en');
  const zh = translator('zh-CN');
  it('says what the curve shows, and only that', () => {
    const rises = curveSentence(en, classifyLoss([10, 6, 7, 5]), 4);
    expect(rises).toMatch(/^At step 2 the loss rose \(6\.000 → 7\.000\)/);
    const slow = curveSentence(en, classifyLoss([10, 9, 8]), 3);
    expect(slow).toMatch(/still falls/);
    expect(slow).not.toMatch(/overshoot|went past/);
    const flat = curveSentence(en, classifyLoss([10, 5, 5]), 3);
    expect(flat).toMatch(/levelled off/);
    expect(curveSentence(zh, classifyLoss([10, 6, 7, 5]), 4)).toMatch(/^第 2 步损失上升了/);
    expect(curveSentence(zh, classifyLoss([10, 9, 8]), 3)).toMatch(/仍在下降/);
    expect(curveSentence(en, classifyLoss([1]), 1)).toBe('');
  });
});
