// How long one library call takes, measured so that a fast call does not read "0 µs": without
// cross-origin isolation the browser's clock moves in steps of 100 µs, and a call on warm code
// takes 10–50 µs, so timing it once gave 0 or 100 µs (what a reader saw after switching the
// language: the second render runs warm), while the first render timed the code's warm-up.
// Here the call runs once untimed (warm-up; its value is kept); then a batch size is found
// whose batch lasts at least `batch` ms (ten clock steps), `samples` batches run (again with twice
// the calls while the fastest lasts under half of `batch`: the first was stretched), the slowest is
// dropped (one slowed by a garbage collection or another tab) and the time per call is the
// others' total over their calls (a total, not a median: each batch's reading is quantised).

/**
 * @param {() => T} fn   the call (its result is the same each time: the library is deterministic)
 * @param {{ batch?: number, samples?: number, maxCalls?: number, now?: () => number }} [o]
 * @returns {[T, number, number]} the first call's value, ms per call, and the timed calls per batch
 */
export function timePerCall(fn, { batch = 1, samples = 4, maxCalls = 4096, now = () => performance.now() } = {}) {
  const value = fn();
  const run = (k) => {
    const start = now();
    for (let c = 0; c < k; c++) fn();
    return now() - start;
  };
  let k = 1;
  let first = run(k);
  while (first < batch && k < maxCalls) {
    k *= 2;
    first = run(k);
  }
  const sample = () => {
    const times = [first];
    for (let s = 1; s < samples; s++) times.push(run(k));
    return times.sort((a, b) => a - b);
  };
  let times = sample();
  // The batch that set k may have been stretched by a pause (a busy machine): then the others are
  // far shorter, maybe under one clock step (read 0). Double k until the fastest one is long enough.
  while (times[0] < batch / 2 && k < maxCalls) {
    k *= 2;
    first = run(k);
    times = sample();
  }
  const kept = times.length > 1 ? times.slice(0, -1) : times;
  return [value, kept.reduce((a, b) => a + b, 0) / (kept.length * k), k];
}

/**
 * The share of a call's measured time that is the fixed cost of any call on its path (crossing
 * into WebAssembly, checking the arguments, copying in and out): at or above this, the page shows
 * no time (it would compare fixed costs, not the work the FLOP counts describe).
 */
export const MAX_OVERHEAD = 0.1;

/**
 * Whether a time per call is worth showing: the same path's empty call (a 1×1 call, timed by the
 * same loop) takes under MAX_OVERHEAD of it. `call` and `empty` are ms per call.
 * @returns {{ show: boolean, call: number, empty: number, share: number }}
 */
export function timingVerdict(call, empty) {
  const share = call > 0 && Number.isFinite(call) ? empty / call : Infinity;
  return { show: share < MAX_OVERHEAD, call, empty, share };
}

/**
 * Times `call` and its path's `empty` call with the same loop (timePerCall) and says whether the
 * call's time can be shown: { show, call, empty, share } (ms per call).
 */
export function measureAgainstEmpty(call, empty, options) {
  const [, emptyMs] = timePerCall(empty, options);
  const [, callMs] = timePerCall(call, options);
  return timingVerdict(callMs, emptyMs);
}
