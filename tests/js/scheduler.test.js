// The page's scheduler (web/src/scheduler.js) on a clock run by hand: frames and idle periods come
// only when the test says, with as much idle time as it says.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORCED_SLICE_MS, cancel, fillsPending, later, now, onFrame, onIdle, useClock, whenFilled } from '../../web/src/scheduler.js';

/** A clock whose frames and idle periods wait until `frame()` / `idle(ms)` run them. */
function handClock() {
  const frames = [];
  const idles = [];
  const hand = {
    time: 0, // what the clock's now() says (ms): a test moves it on
    clock: { frame: (f) => frames.push(f), idle: (f) => idles.push(f), now: () => hand.time },
    frame: (time = 0) => frames.splice(0).forEach((f) => f(time)),
    /** One idle period of `ms` milliseconds (time runs out as work runs: each piece costs `cost`). */
    idle(ms = 50, cost = 0) {
      let left = ms;
      const deadline = { didTimeout: false, timeRemaining: () => Math.max(0, left) };
      for (const f of idles.splice(0)) {
        f(deadline);
        left -= cost;
      }
    },
    /** An idle callback forced by its timeout: no idle time left at all. */
    forced() {
      const deadline = { didTimeout: true, timeRemaining: () => 0 };
      for (const f of idles.splice(0)) f(deadline);
    },
    waitingIdle: () => idles.length,
    waitingFrames: () => frames.length,
  };
  return hand;
}

let hand;
let browser;
beforeEach(() => {
  hand = handClock();
  browser = useClock(hand.clock);
});
afterEach(() => {
  // Nothing keyed is left for the next test.
  hand.idle(1e9);
  useClock(browser);
});

describe('scheduler', () => {
  it('runs keyed work when the page is next idle, the latest piece per key only', () => {
    const ran = [];
    later('a', () => ran.push('a1'));
    later('a', () => ran.push('a2'));
    later('b', () => ran.push('b'));
    expect(ran).toEqual([]);
    expect(fillsPending()).toBe(true);
    expect(hand.waitingIdle()).toBe(1); // one request for everything that waits
    hand.idle();
    expect(ran).toEqual(['a2', 'b']);
    expect(fillsPending()).toBe(false);
  });

  it('tells when nothing waits: at once when nothing does, else after the last piece', () => {
    const told = [];
    whenFilled(() => told.push('empty'));
    expect(told).toEqual(['empty']);
    later('x', () => {});
    whenFilled(() => told.push('after'));
    expect(told).toEqual(['empty']);
    hand.idle();
    expect(told).toEqual(['empty', 'after']);
  });

  it('runs one piece per idle period, then more only while the period has time left', () => {
    const ran = [];
    for (const k of [1, 2, 3]) later(k, () => ran.push(k));
    const told = [];
    whenFilled(() => told.push(true));
    hand.idle(0); // no time: still the first piece, the rest in the next period
    expect(ran).toEqual([1]);
    expect(hand.waitingIdle()).toBe(1);
    hand.idle(50);
    expect(ran).toEqual([1, 2, 3]);
    expect(told).toEqual([true]);
  });

  it('runs a forced period (its timeout came, no idle time) for a short slice of real time only', () => {
    const ran = [];
    // Each piece takes 4 ms of the clock's time.
    for (const k of [1, 2, 3, 4, 5]) later(k, () => ran.push(k) && (hand.time += 4));
    hand.forced();
    // 0 → 4 → 8 ms of the 10 ms slice: two pieces, then less than 3 ms is left.
    expect(ran).toEqual([1, 2]);
    expect(FORCED_SLICE_MS).toBe(10);
    expect(hand.waitingIdle()).toBe(1);
    hand.forced();
    expect(ran).toEqual([1, 2, 3, 4]);
    hand.idle(50);
    expect(ran).toEqual([1, 2, 3, 4, 5]);
    expect(fillsPending()).toBe(false);
  });

  it('runs one key now (its heatmap came near) or drops it, and tells when nothing waits', () => {
    const ran = [];
    const told = [];
    later('near', () => ran.push('near'));
    later('far', () => ran.push('far'));
    whenFilled(() => told.push(true));
    expect(now('near')).toBe(true);
    expect(now('near')).toBe(false);
    expect(ran).toEqual(['near']);
    expect(told).toEqual([]);
    cancel('far');
    expect(told).toEqual([true]);
    hand.idle();
    expect(ran).toEqual(['near']);
  });

  it('sends frames and idle periods through the installed clock, and gives the old one back', () => {
    const seen = [];
    onFrame((t) => seen.push(['frame', t]));
    onIdle((d) => seen.push(['idle', d.timeRemaining()]));
    expect(seen).toEqual([]);
    hand.frame(16);
    hand.idle(12);
    expect(seen).toEqual([['frame', 16], ['idle', 12]]);
    const other = handClock();
    expect(useClock(other.clock)).toBe(hand.clock);
    onFrame(() => seen.push('other'));
    expect(hand.waitingFrames()).toBe(0);
    other.frame();
    expect(seen.at(-1)).toBe('other');
    useClock(hand.clock);
  });

  it("falls back to a task soon when the environment has no idle callbacks (Node's)", async () => {
    useClock(); // the default clock, in Node: no requestIdleCallback
    const ran = await new Promise((resolve) => later('node', () => resolve('ran')));
    expect(ran).toBe('ran');
    expect(fillsPending()).toBe(false);
  });
});
