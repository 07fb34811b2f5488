// The page's number formats (web/src/format.js) against independent references: Intl's English
// grouping for counts.
import { describe, expect, it } from 'vitest';
import { grouped } from '../../web/src/format.js';

describe('grouped', () => {
  it('writes counts as toLocaleString("en") does, at every length and sign', () => {
    const counts = [0, 1, 12, 999, 1000, 1001, 12345, 999999, 1000000, 1234567890, 2 ** 53 - 1, -1, -1000, -987654321];
    // A fixed-seed spread of magnitudes and fractions (rounded to the nearest whole number first).
    let seed = 7;
    for (let k = 0; k < 500; k++) {
      seed = (seed * 48271) % 2147483647;
      counts.push((seed / 2147483647 - 0.3) * 10 ** (k % 16));
    }
    // (−0.3 rounds to −0, which a count writes as 0: hence the + 0.)
    for (const v of counts) expect(grouped(v), String(v)).toBe((Math.round(v) + 0).toLocaleString('en', { maximumFractionDigits: 0 }));
  });

  it('says what is not a number instead of grouping it', () => {
    expect(grouped(Infinity)).toBe((Infinity).toLocaleString('en'));
    expect(grouped(-Infinity)).toBe((-Infinity).toLocaleString('en'));
    expect(grouped(NaN)).toBe('NaN');
  });
});
