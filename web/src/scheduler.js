// The page's one scheduler: every piece of work the components put off goes through here.
//   onFrame(f)        before the next paint (a heatmap changed in a task is drawn there, frame.js)
//   onIdle(f)         when the page is next idle, at most 50 ms late (timings, a panel's parts prepared ahead)
//   later(key, work)  keyed idle work that an element's updateComplete waits for: a heatmap's
//                     screen-reader table, a section far off screen, a table the page no longer
//                     shows. A later piece for the same key replaces the one waiting, so only the
//                     latest data is written; `now(key)` runs it at once (its heatmap came near).
// The clock (when frames and idle periods come, and what time it is) is the browser's unless a test
// installs its own with `useClock`: a test then runs frames and idle periods by hand, or delays them.

/**
 * How long keyed work may run in one go when the browser gives no idle time: an idle callback
 * forced by its timeout (the page stayed busy for 50 ms), or a task on a clock without idle
 * periods. One piece always runs; more only within this many milliseconds, so that a reader's
 * next input waits for at most about one piece, not for everything queued (once 115 ms).
 */
export const FORCED_SLICE_MS = 10;

const realNow = () => (typeof performance === 'object' ? performance.now() : Date.now());

/** A deadline of `ms` milliseconds of `clock`'s time from now (not timed out). */
const sliceFrom = (ms, clockNow) => {
  const end = clockNow() + ms;
  return { didTimeout: false, timeRemaining: () => Math.max(0, end - clockNow()) };
};

/** A task soon, for a clock without requestIdleCallback (a MessageChannel's task comes before timers). */
function taskSoon() {
  const slice = (f) => f(sliceFrom(FORCED_SLICE_MS, realNow));
  if (typeof MessageChannel !== 'function') return (f) => setTimeout(() => slice(f), 0);
  const channel = new MessageChannel();
  const queue = [];
  channel.port1.onmessage = () => {
    const f = queue.shift();
    if (f) slice(f);
  };
  return (f) => (queue.push(f), channel.port2.postMessage(0));
}

/** The browser's clock: its frames, idle periods and time (read when called, so a page can wrap them). */
function browserClock() {
  const task = taskSoon();
  return {
    frame: (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 16)),
    idle: (f) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(f, { timeout: 50 }) : task(f)),
    now: realNow,
  };
}

let clock = browserClock();

/**
 * Use `next` ({ frame(f), idle(f), now() }: `idle` calls f with a deadline, { timeRemaining(),
 * didTimeout }; `now` is in milliseconds, the page's performance.now() when not given) from now on;
 * without an argument, the browser's clock again. Returns the clock used before.
 */
export function useClock(next = browserClock()) {
  const before = clock;
  clock = next;
  return before;
}

/** Call `f(time)` before the next paint. */
export const onFrame = (f) => clock.frame(f);

/** Call `f(deadline)` when the page is next idle. */
export const onIdle = (f) => clock.idle(f);

const waiting = new Map();
const whenDone = [];
let posted = false;

/** Run `work` for `key` when the page is next idle (replacing what waited for that key). */
export function later(key, work) {
  waiting.set(key, work);
  if (posted) return;
  posted = true;
  onIdle(flush);
}

/** Run what waits for `key` now (e.g. its heatmap came near the viewport); true if something did. */
export function now(key) {
  const work = waiting.get(key);
  if (!work) return false;
  waiting.delete(key);
  work();
  settled();
  return true;
}

/** Drop what waits for `key` without running it. */
export function cancel(key) {
  if (waiting.delete(key)) settled();
}

let held = 0; // promises hold() waits on

/** Whether some keyed work waits (a heatmap's cells, a retired table), or work hold() was given. */
export const fillsPending = () => waiting.size > 0 || held > 0;

/** Keep whenFilled's callbacks waiting until `work` (a promise: a module loading) has settled. */
export function hold(work) {
  held++;
  const done = () => {
    held--;
    settled();
  };
  work.then(done, done);
  return work;
}

/** Call `callback` once no keyed work waits (at once if none does). */
export function whenFilled(callback) {
  whenDone.push(callback);
  settled();
}

function settled() {
  if (waiting.size || held) return;
  for (const callback of whenDone.splice(0)) callback();
}

function flush(deadline) {
  posted = false;
  // A period forced by its timeout has no time left by definition: give it a short slice of real time.
  const time = deadline.didTimeout ? sliceFrom(FORCED_SLICE_MS, clock.now ?? realNow) : deadline;
  let first = true;
  for (const [key, work] of [...waiting]) {
    if (waiting.get(key) !== work) continue;
    // At least one piece per idle period, then while the period has time left.
    if (!first && time.timeRemaining() < 3) {
      posted = true;
      onIdle(flush);
      return;
    }
    first = false;
    waiting.delete(key);
    work();
  }
  settled();
}
