// The compare panel's time per call (web/src/components/compare/timing.js) and its format
// (duration in web/src/format.js): a call of 20 µs on a clock that moves in steps of 100 µs (a
// page without cross-origin isolation) reads 20 µs, not 0; a batch slowed by a pause is not the fastest;
// a time is shown only when the same path's empty call takes under 10 % of it.
import { describe, expect, it } from 'vitest';

import { MAX_OVERHEAD, measureAgainstEmpty, pairTimer, pathVerdicts, timingVerdict } from '../../web/src/components/compare/timing.js';
import { duration } from '../../web/src/format.js';

/** A virtual clock: `cost` ms per call, read in steps of `step` ms. */
function fakeClock(cost, step = 0.1) {
  let t = 0.05;
  const clock = { calls: 0, pauses: new Set() };
  clock.fn = () => {
    clock.calls++;
    t += cost + (clock.pauses.has(clock.calls) ? 5 : 0);
    return 'value';
  };
  clock.now = () => Math.floor(t / step) * step;
  return clock;
}

describe('measureAgainstEmpty: fastest batches of the call and its empty call, in turn', () => {
  it('measures a 20 µs call within 10% on a 100 µs clock (one timed call read 0 or 100 µs)', () => {
    const clock = fakeClock(0.02);
    const { call, empty } = measureAgainstEmpty(clock.fn, clock.fn, { now: clock.now });
    for (const ms of [call, empty]) {
      expect(ms).toBeGreaterThan(0.018);
      expect(ms).toBeLessThan(0.022);
    }
    // Timing one call the old way: 0 µs.
    const one = fakeClock(0.02);
    one.fn();
    const start = one.now();
    one.fn();
    expect(one.now() - start).toBe(0);
  });

  it('a batch slowed by a pause is not the fastest', () => {
    const clock = fakeClock(0.02);
    for (let c = 200; c < 2000; c += 150) clock.pauses.add(c); // 5 ms pauses inside several batches
    const { call, empty } = measureAgainstEmpty(clock.fn, clock.fn, { now: clock.now });
    expect(call).toBeLessThan(0.022);
    expect(empty).toBeLessThan(0.022);
  });

  it('a pause in the batch that sets the batch size does not leave the others at 0 (CI read 0 µs)', () => {
    const clock = fakeClock(0.02);
    clock.pauses.add(2); // the second call, in the first batch of one call: that batch lasts 5 ms
    const { call, empty } = measureAgainstEmpty(clock.fn, clock.fn, { now: clock.now });
    for (const ms of [call, empty]) {
      expect(ms).toBeGreaterThan(0.018);
      expect(ms).toBeLessThan(0.022);
    }
  });

  it('rounds may run apart (one idle piece each): a burst of load during some of them is not kept', () => {
    let t = 0.05;
    let slow = 1;
    const now = () => Math.floor(t / 0.1) * 0.1;
    const fn = () => {
      t += 0.02 * slow;
    };
    const timer = pairTimer(fn, fn, { now });
    for (let r = 0; r < 8; r++) {
      // Rounds 0–4 run while the machine is busy: every call takes five times as long.
      slow = r < 5 ? 5 : 1;
      timer.round();
    }
    expect(timer.rounds()).toBe(8);
    const { call, empty } = timer.verdict();
    expect(call).toBeLessThan(0.022);
    expect(empty).toBeLessThan(0.022);
    // Had it stopped after the busy rounds, both would read five times too long.
    const busy = pairTimer(fn, fn, { now });
    slow = 5;
    for (let r = 0; r < 5; r++) busy.round();
    expect(busy.verdict().call).toBeGreaterThan(0.09);
  });

  it('times slow calls with few repeats', () => {
    const clock = fakeClock(3);
    const { call } = measureAgainstEmpty(clock.fn, clock.fn, { now: clock.now });
    expect(call).toBeCloseTo(3, 1);
    expect(clock.calls).toBeLessThan(20);
  });
});

describe('duration', () => {
  it('two significant digits in ns, µs or ms', () => {
    expect(duration(0.0123)).toBe('12 µs');
    expect(duration(0.00123)).toBe('1.2 µs');
    expect(duration(0.34)).toBe('340 µs');
    expect(duration(2.54)).toBe('2.5 ms');
    expect(duration(0.0000456)).toBe('46 ns');
    expect(duration(NaN)).toBe('—');
  });
});

describe('timingVerdict and measureAgainstEmpty: a time is shown only when the empty call takes under 10 % of it', () => {
  it('shows when the empty call is under 10 % of the call, hides at 10 % and above', () => {
    expect(MAX_OVERHEAD).toBe(0.1);
    expect(timingVerdict(0.1, 0.009)).toMatchObject({ show: true, call: 0.1, empty: 0.009 });
    expect(timingVerdict(1, 0.1).show).toBe(false);
    expect(timingVerdict(1, 0.099).show).toBe(true);
    expect(timingVerdict(0.1, 0.05).show).toBe(false);
    // The learner's case: 58 µs and 130 µs calls whose empty calls took about as long.
    expect(timingVerdict(0.058, 0.05).show).toBe(false);
    // Nothing measured: nothing shown.
    expect(timingVerdict(0, 0).show).toBe(false);
    expect(timingVerdict(NaN, 0.001).show).toBe(false);
  });

  it('times the call and its empty call with the same loop on the same clock', () => {
    // A fixed cost of 10 µs per call on a 100 µs clock: work of 200 µs shows, work of 50 µs does not.
    let t = 0.05;
    const now = () => Math.floor(t / 0.1) * 0.1;
    const cost = (work) => () => {
      t += 0.01 + work;
    };
    const big = measureAgainstEmpty(cost(0.2), cost(0), { now });
    expect(big.show).toBe(true);
    expect(big.empty).toBeGreaterThan(0.009);
    expect(big.empty).toBeLessThan(0.011);
    expect(big.call).toBeGreaterThan(0.19);
    expect(big.call).toBeLessThan(0.22);
    const small = measureAgainstEmpty(cost(0.05), cost(0), { now });
    expect(small.show).toBe(false);
    expect(small.share).toBeGreaterThan(0.1);
  });
});

describe('pathVerdicts: calls of one function judged against one fixed cost', () => {
  it('takes the fastest empty call of each path for every call on it', () => {
    const pathOf = (key) => (key === 'additive' ? 'additive' : 'dot-product');
    // The 63-token case on a busy machine: scaled's empty call read 14 µs, its twin's 3.9 µs.
    const bests = new Map([
      ['additive', { call: 3.2, empty: 0.0375 }],
      ['scaled', { call: 0.0625, empty: 0.014 }],
      ['dot', { call: 0.081, empty: 0.0039 }],
    ]);
    const v = pathVerdicts(bests, pathOf);
    expect(v.get('scaled')).toMatchObject({ show: true, empty: 0.0039 });
    expect(v.get('dot')).toMatchObject({ show: true, empty: 0.0039 });
    expect(v.get('additive')).toMatchObject({ show: true, empty: 0.0375 });
    // Alone, scaled's own reading (22 %) would have hidden it.
    expect(timingVerdict(0.0625, 0.014).show).toBe(false);
  });
});
