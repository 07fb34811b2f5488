// The page's one scheduler: every piece of work the components put off goes through here.
//   onFrame(f)        before the next paint (a heatmap changed in a task is drawn there, frame.js)
//   onIdle(f)         when the page is next idle, at most 50 ms late (the font warm-up, timings)
//   later(key, work)  keyed idle work that an element's updateComplete waits for: a heatmap's
//                     screen-reader table, a section far off screen, a table the page no longer
//                     shows. A later piece for the same key replaces the one waiting, so only the
//                     latest data is written; `now(key)` runs it at once (its heatmap came near).
// The clock (when frames and idle periods come) is the browser's unless a test installs its own
// with `useClock`: a test then runs frames and idle periods by hand, or delays them.

/** An idle period with time to spare: what a clock without idle periods hands out. */
const slack = { timeRemaining: () => 50, didTimeout: false };

/** A task soon, for a clock without requestIdleCallback (a MessageChannel's task comes before timers). */
function taskSoon() {
  if (typeof MessageChannel !== 'function') return (f) => setTimeout(() => f(slack), 0);
  const channel = new MessageChannel();
  const queue = [];
  channel.port1.onmessage = () => queue.shift()?.(slack);
  return (f) => (queue.push(f), channel.port2.postMessage(0));
}

/** The browser's clock: its frames and idle periods (read when called, so a page can wrap them). */
function browserClock() {
  const task = taskSoon();
  return {
    frame: (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 16)),
    idle: (f) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(f, { timeout: 50 }) : task(f)),
  };
}

let clock = browserClock();

/**
 * Use `next` ({ frame(f), idle(f) }: `idle` calls f with a deadline, { timeRemaining(), didTimeout })
 * from now on; without an argument, the browser's clock again. Returns the clock used before.
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

/** Whether some keyed work waits (a heatmap's cells, a retired table). */
export const fillsPending = () => waiting.size > 0;

/** Call `callback` once no keyed work waits (at once if none does). */
export function whenFilled(callback) {
  whenDone.push(callback);
  settled();
}

function settled() {
  if (waiting.size) return;
  for (const callback of whenDone.splice(0)) callback();
}

function flush(deadline) {
  posted = false;
  let first = true;
  for (const [key, work] of [...waiting]) {
    if (waiting.get(key) !== work) continue;
    // At least one piece per idle period, then while the period has time left.
    if (!first && !deadline.didTimeout && deadline.timeRemaining() < 3) {
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
