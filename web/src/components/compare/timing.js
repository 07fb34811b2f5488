// How long one library call takes, and whether that time is worth showing. Without cross-origin
// isolation the browser's clock moves in steps of 100 µs, and a call on warm code takes 10–50 µs:
// timed once it read 0 or 100 µs. So calls run in batches that last at least `batch` ms (ten
// clock steps). And a call of a few µs is mostly the fixed cost of any call on its path (into
// WebAssembly, the argument checks, copies in and out): timed on a busy machine, such calls ranked
// at random (additive attention "faster" than scaled dot-product in 4 of 5 loads, 58 against
// 130 µs at 6×8, while its FLOP count is 2.6 times larger). So the same function is timed on 1×1
// inputs too (its empty call), batch for batch in turn with the call, and each keeps its fastest
// batch (a batch slowed by a pause, a garbage collection or another tab is never the fastest);
// the call's time is shown only when its empty call takes under MAX_OVERHEAD of it.

/**
 * The share of a call's measured time that may be the fixed cost of any call on its path: at or
 * above this, the page shows no time (it would compare fixed costs, not the work the FLOP counts
 * describe).
 */
export const MAX_OVERHEAD = 0.1;

/**
 * Whether a time per call is worth showing: the same path's empty call takes under MAX_OVERHEAD
 * of it. `call` and `empty` are ms per call.
 * @returns {{ show: boolean, call: number, empty: number, share: number }}
 */
export function timingVerdict(call, empty) {
  const share = call > 0 && Number.isFinite(call) ? empty / call : Infinity;
  return { show: share < MAX_OVERHEAD, call, empty, share };
}

/**
 * Times `call` and its path's `empty` call (each run once untimed first: the warm-up) in batches of
 * at least `batch` ms, one batch of each per round(), in turn (empty, call), so that a busy stretch
 * of the machine falls on both; each keeps its fastest batch's time per call (a batch slowed by a
 * pause, a garbage collection or another tab is never the fastest). A batch under half of `batch`
 * (the batch that sized it was stretched by a pause: the clock may read 0) is run again with twice
 * the calls. Rounds may run in separate idle periods: spread out, a burst of load spoils fewer.
 * @param {() => unknown} call
 * @param {() => unknown} empty  the same function with the same options on 1×1 inputs
 * @param {{ batch?: number, maxCalls?: number, now?: () => number }} [o]
 * @returns {{ round: () => void, rounds: () => number, best: () => { call: number, empty: number }, verdict: () => ReturnType<typeof timingVerdict> }}
 */
export function pairTimer(call, empty, { batch = 1, maxCalls = 4096, now = () => performance.now() } = {}) {
  const sides = [empty, call].map((fn) => ({ fn, k: 1, best: Infinity }));
  let done = 0;
  const run = (side) => {
    const start = now();
    for (let c = 0; c < side.k; c++) side.fn();
    return now() - start;
  };
  const size = (side) => {
    side.fn();
    while (run(side) < batch && side.k < maxCalls) side.k *= 2;
  };
  return {
    round() {
      if (done === 0) sides.forEach(size);
      for (const side of sides) {
        let ms = run(side);
        while (ms < batch / 2 && side.k < maxCalls) {
          side.k *= 2;
          ms = run(side);
        }
        side.best = Math.min(side.best, ms / side.k);
      }
      done++;
    },
    rounds: () => done,
    best: () => ({ call: sides[1].best, empty: sides[0].best }),
    verdict: () => timingVerdict(sides[1].best, sides[0].best),
  };
}

/**
 * The verdicts of several timers when some time the same path's empty call (`pathOf(key)`: scaled
 * and unscaled dot-product attention are one function): each empty call is the fastest of its
 * path's, so two calls of one path are judged against one measurement of its fixed cost.
 * @param {Map<string, { call: number, empty: number }>} bests  each timer's best (pairTimer's best())
 * @returns {Map<string, ReturnType<typeof timingVerdict>>}
 */
export function pathVerdicts(bests, pathOf) {
  const empty = new Map();
  for (const [key, b] of bests) empty.set(pathOf(key), Math.min(empty.get(pathOf(key)) ?? Infinity, b.empty));
  return new Map([...bests].map(([key, b]) => [key, timingVerdict(b.call, empty.get(pathOf(key)))]));
}

/** pairTimer's `rounds` rounds at once: { show, call, empty, share } (ms per call). */
export function measureAgainstEmpty(call, empty, { rounds = 4, ...o } = {}) {
  const timer = pairTimer(call, empty, o);
  for (let r = 0; r < rounds; r++) timer.round();
  return timer.verdict();
}
