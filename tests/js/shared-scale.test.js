// Figures of one quantity side by side share one colour scale (web/src/colors.js): sharedRange
// over them all, onScale carrying it to scaleFor (which the heatmap and the exports call), so
// 0.47 in one figure and 0.88 in the other are no longer both drawn yellow.
import { describe, expect, it } from 'vitest';

import { MASKED } from '../../web/src/format.js';
import { onOneScale, onScale, scaleFor, sharedRange } from '../../web/src/colors.js';

const m = (data) => ({ rows: 1, cols: data.length, data: Float32Array.from(data) });

describe('one colour scale for figures of one quantity', () => {
  it('each figure alone is scaled to its own largest value: 0.47 and 0.88 get the same colour', () => {
    const a = scaleFor(m([0.1, 0.47]).data);
    const b = scaleFor(m([0.2, 0.88]).data);
    expect(a.color(0.47).bg).toBe(b.color(0.88).bg);
  });

  it('on one scale they share min, max and the colour of equal values', () => {
    const [a, b] = onOneScale([m([0.1, 0.47]), m([0.2, 0.88])]);
    const sa = scaleFor(a.data);
    const sb = scaleFor(b.data);
    expect([sa.min, sa.max]).toEqual([sb.min, sb.max]);
    expect(sa.max).toBeCloseTo(0.88, 6);
    expect(sa.color(0.47).bg).not.toBe(sb.color(0.88).bg);
    expect(sa.color(0.3).bg).toBe(sb.color(0.3).bg);
    // A copy: the library's result is not changed.
    expect(a.data).not.toBe(m([0.1, 0.47]).data);
    expect(Array.from(a.data)).toEqual(Array.from(Float32Array.from([0.1, 0.47])));
  });

  it('signed figures share one diverging scale; masked cells (−∞ or a mask) do not count', () => {
    const range = sharedRange([m([-1, 0.5, MASKED]), m([3, 99])], [undefined, Uint8Array.from([1, 0])]);
    expect(range).toEqual({ min: -1, max: 3 });
    const s = scaleFor(onScale(m([-1, 0.5]), range).data);
    expect(s).toMatchObject({ kind: 'diverging', min: -3, max: 3 });
    expect(sharedRange([m([])])).toEqual({ min: 0, max: 0 });
  });
});
