// stepMove (web/src/stepper.js): where each key moves the step-by-step panels'
// stepper, clamped to the steps there are; up and down only when vertical.
import { describe, expect, it } from 'vitest';

import { stepMove } from '../../web/src/stepper.js';

describe('stepMove', () => {
  it('moves one step with the left and right arrows, to the ends with Home and End', () => {
    expect(stepMove('ArrowRight', 2, 8)).toBe(3);
    expect(stepMove('ArrowLeft', 2, 8)).toBe(1);
    expect(stepMove('Home', 5, 8)).toBe(0);
    expect(stepMove('End', 1, 8)).toBe(7);
  });

  it('stays within the steps at either end', () => {
    expect(stepMove('ArrowLeft', 0, 8)).toBe(0);
    expect(stepMove('ArrowRight', 7, 8)).toBe(7);
    expect(stepMove('End', 0, 1)).toBe(0);
  });

  it('moves with up and down only in a vertical list', () => {
    expect(stepMove('ArrowDown', 2, 8)).toBeNull();
    expect(stepMove('ArrowUp', 2, 8)).toBeNull();
    expect(stepMove('ArrowDown', 2, 8, true)).toBe(3);
    expect(stepMove('ArrowUp', 2, 8, true)).toBe(1);
    expect(stepMove('ArrowUp', 0, 8, true)).toBe(0);
  });

  it('ignores every other key', () => {
    for (const key of ['Enter', ' ', 'Tab', 'a', 'PageDown']) expect(stepMove(key, 3, 8, true), key).toBeNull();
  });
});
