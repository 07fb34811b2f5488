// Work that can wait until the page is idle, after the change's frame is drawn (or within 50 ms):
// a heatmap's screen-reader table, a table the page no longer shows. Each piece of work has a key
// (its heatmap, its node); a later one for the same key replaces it, so only the latest data is
// written. A few pieces run per idle period. `whenFilled` tells when nothing waits (an element's
// data-ready). Without requestIdleCallback: a task.

const waiting = new Map();
const whenDone = [];
let posted = false;

const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
const queue = [];
const slack = { timeRemaining: () => 50, didTimeout: false };
if (channel) channel.port1.onmessage = () => queue.shift()?.(slack);

/** Call `f(deadline)` when the page is next idle. */
export const onIdle =
  typeof requestIdleCallback === 'function'
    ? (f) => requestIdleCallback(f, { timeout: 50 })
    : (f) => (channel ? (queue.push(f), channel.port2.postMessage(0)) : setTimeout(() => f(slack), 0));

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

/** Whether some work waits (a heatmap's cells, a retired table). */
export const fillsPending = () => waiting.size > 0;

/** Call `callback` once no work waits (at once if none does). */
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
