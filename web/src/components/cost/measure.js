// The long-sequences panel's measuring harness, apart from its DOM: which sizes are timed, ms per
// call of each attention variant (full attention fused, a block of query rows per timed call),
// the growth exponent fitted to the times, and the bytes each pattern would take if stored.
// It touches no DOM, so its unit tests (tests/js/cost-measure.test.js) run it in Node.
import { randomMatrix } from '../../random.js';
import { timingVerdict } from '../compare/timing.js';

/** Sequence lengths measured, up to the `max-n` attribute. */
export const SIZES = [64, 128, 256, 512, 1024, 2048, 4096];
/** The exponent is fitted over n ≥ FIT_FROM, where per-call overheads no longer dominate (else the last 3 sizes). */
export const FIT_FROM = 512;
/** The variants timed, in the order they are drawn. */
export const METHOD_KEYS = ['full', 'local', 'linear', 'linformer'];
/** Work (scores × max(d, 8)) of one timed call of full attention: a block of query rows, a few ms. */
const BLOCK_WORK = 1 << 21;
/** A timed call is repeated until this many ms have passed, so the timer's resolution does not dominate. */
const MIN_MS = 3;
/** Rounds of the variants per size; full attention's blocks are spread over the first three. */
const ROUNDS = 6;

/** The sizes measured for a given `max-n`. */
export const sizesUpTo = (maxN) => SIZES.filter((n) => n <= maxN);

/** Least-squares slope of log y against log x (the growth exponent); NaN with fewer than 2 points. */
export function growthExponent(xs, ys) {
  const pts = xs.map((x, k) => [Math.log(x), Math.log(ys[k])]).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
  if (pts.length < 2) return NaN;
  const mx = pts.reduce((s, [a]) => s + a, 0) / pts.length;
  const my = pts.reduce((s, [, b]) => s + b, 0) / pts.length;
  let num = 0;
  let den = 0;
  for (const [a, b] of pts) {
    num += (a - mx) * (b - my);
    den += (a - mx) ** 2;
  }
  return den > 0 ? num / den : NaN;
}

/** The measured rows the exponent is fitted over: those with n ≥ FIT_FROM when there are two, else the last three. */
export function fittedRows(rows) {
  const large = rows.filter((r) => r.n >= FIT_FROM);
  return large.length >= 2 ? large : rows.slice(-3);
}

/** Each variant's fitted growth exponent over `rows` ({ n, full, local, linear, linformer }). */
export function exponents(rows) {
  const fitted = fittedRows(rows);
  const n = fitted.map((r) => r.n);
  return Object.fromEntries(METHOD_KEYS.map((key) => [key, growthExponent(n, fitted.map((r) => r[key]))]));
}

/** KiB of each attention pattern at length n if it were stored (float32), from the shapes alone. */
export function storedKiB(n, { w, k }) {
  return { full: (4 * n * n) / 1024, local: (4 * n * (2 * w - 1)) / 1024, linformer: (4 * n * k) / 1024 };
}

/** Linformer's random projections E, F (k×n, entries N(0, 1/n)) for a seed. */
export function projections(k, n, seed) {
  const std = 1 / Math.sqrt(n);
  return { E: randomMatrix(k, n, seed * 7 + 21, std), F: randomMatrix(k, n, seed * 7 + 22, std) };
}

/**
 * Ms per call of `fn` (one bounded piece of work): one untimed call when `warm`, then up to 5
 * batches of calls, each long enough for the timer (≥ 1.5 ms), stopping early once 4·MIN_MS have
 * passed. The fastest batch counts, so a moment when the machine was busy elsewhere does not.
 */
export function perCall(fn, warm) {
  if (warm) fn();
  let batch = 1;
  let best = Infinity;
  let total = 0;
  for (let samples = 0; samples < 5 || total < MIN_MS; samples++) {
    const start = performance.now();
    for (let c = 0; c < batch; c++) fn();
    const elapsed = performance.now() - start;
    total += elapsed;
    if (elapsed < 1.5 && batch < 65536) {
      // Too short to time: a bigger batch, and this sample does not count.
      batch *= 4;
      samples--;
      continue;
    }
    best = Math.min(best, elapsed / batch);
    if (total > 4 * MIN_MS) break;
  }
  return best;
}

/** Resolve in a new task, so the browser can paint and handle input between timed calls. */
export const nextTask = () =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(0);
  });

/** The three variants' calls on Q, K, V with settings `s` ({ w, k, seed }). */
function variantCalls(lab, Q, K, V, s, { E, F }) {
  return {
    local: () => lab.localAttention(Q, K, V, { window: s.w }),
    linear: () => lab.linearAttention(Q, K, V),
    linformer: () => lab.linformerAttention(Q, K, V, { E, F }),
  };
}

/**
 * Ms per call of each variant on 1×1 inputs, with the same options: its empty call, the fixed cost
 * of any call on its path (into WebAssembly, the checks, the copies). A time is shown only where this
 * is under a tenth of it (timingVerdict, as the compare panel does).
 */
function emptyTimes(lab, s) {
  const one = randomMatrix(1, s.d, s.seed * 7 + 6);
  const calls = { full: () => lab.scaledDotProductAttention(one, one, one, { weights: false }), ...variantCalls(lab, one, one, one, s, projections(s.k, 1, s.seed)) };
  return Object.fromEntries(Object.entries(calls).map(([key, call]) => [key, perCall(call, true)]));
}

/** Which of a row's times are worth showing ({ full: true, local: false, … }): each call against its empty call. */
export function shownTimes(row) {
  return Object.fromEntries(METHOD_KEYS.map((key) => [key, Boolean(row.call && row.empty) && timingVerdict(row.call[key], row.empty[key]).show]));
}

/** Warm-up, untimed: the engine compiles and optimises the WASM functions on their first calls. */
async function warmUp(lab, s, pause) {
  const n = SIZES[0];
  const Q = randomMatrix(n, s.d, s.seed * 7 + 5);
  const calls = [() => lab.scaledDotProductAttention(Q, Q, Q, { weights: false }), ...Object.values(variantCalls(lab, Q, Q, Q, s, projections(s.k, n, s.seed)))];
  for (const call of calls) {
    // One call alone first (it may compile), then enough calls for the optimised code.
    call();
    if (!(await pause())) return false;
    perCall(call, false);
    if (!(await pause())) return false;
  }
  return true;
}

/** Q, K, V and the projections for length n, each in a task of its own (4096×64 normals take a few ms); null when abandoned. */
async function inputsFor(n, s, pause) {
  const seed = s.seed * 7 + n;
  const made = {};
  for (const [name, make] of [
    ['Q', () => randomMatrix(n, s.d, seed + 1)],
    ['K', () => randomMatrix(n, s.d, seed + 2)],
    ['V', () => randomMatrix(n, s.d, seed + 3)],
    ['EF', () => projections(s.k, n, s.seed)],
  ]) {
    made[name] = make();
    if (!(await pause())) return null;
  }
  return made;
}

/**
 * One row { n, full, local, linear, linformer } (ms for all n query rows; `call`: ms per timed call
 * of each), or null when abandoned.
 * Six rounds of the variants, the first three each followed by a third of full attention's blocks
 * (at least one); the fastest round counts, as a burst of other work on the machine rarely spans
 * them all. Full attention runs fused (no n×n weights stored), a block of query rows per timed
 * call: every row is the same work, so n × the fastest block's time per row is the time for all n.
 */
async function measureSize(lab, n, s, pause) {
  const inputs = await inputsFor(n, s, pause);
  if (!inputs) return null;
  const { Q, K, V, EF } = inputs;
  const calls = variantCalls(lab, Q, K, V, s, EF);
  const best = { local: Infinity, linear: Infinity, linformer: Infinity };
  const block = Math.max(1, Math.min(n, Math.floor(BLOCK_WORK / (n * Math.max(s.d, 8)))));
  const blocks = Math.ceil(n / block);
  let perRow = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [key, call] of Object.entries(calls)) {
      best[key] = Math.min(best[key], perCall(call, round === 0));
      if (!(await pause())) return null;
    }
    if (round >= 3) continue;
    const mine = blocks >= 3 ? Array.from({ length: blocks }, (_, b) => b).filter((b) => b % 3 === round) : [round % blocks];
    for (const b of mine) {
      const r0 = b * block;
      const rows = Math.min(block, n - r0);
      const Qb = { rows, cols: s.d, data: Q.data.subarray(r0 * s.d, (r0 + rows) * s.d) };
      perRow = Math.min(perRow, perCall(() => lab.scaledDotProductAttention(Qb, K, V, { weights: false }), round === 0 && b === mine[0]) / rows);
      if (!(await pause())) return null;
    }
  }
  // Each timed call, for the empty-call rule: a block of full attention's rows, a whole variant call.
  return { n, full: perRow * n, ...best, call: { full: perRow * Math.min(block, n), ...best } };
}

/**
 * Time full (fused), local, linear and Linformer attention for n = 64 … s.maxN with settings
 * `s` ({ w, k, d, seed, maxN }), yielding to the page between chunks. `stillWanted()` is asked
 * at every pause: false abandons the run (resolves null). `onProgress({ current, rows, ms })`
 * is told when a size starts and when its row is in. Resolves { rows, ms, longestChunk }, where
 * longestChunk is the longest stretch of script without a pause (ms); a library error rejects.
 */
export async function measureAll(lab, s, { stillWanted = () => true, onProgress = () => {} } = {}) {
  const started = performance.now();
  const rows = [];
  let resumed = started;
  let longestChunk = 0;
  const pause = async () => {
    longestChunk = Math.max(longestChunk, performance.now() - resumed);
    await nextTask();
    resumed = performance.now();
    return stillWanted();
  };
  if (!(await warmUp(lab, s, pause))) return null;
  const empty = emptyTimes(lab, s);
  if (!(await pause())) return null;
  for (const n of sizesUpTo(s.maxN)) {
    onProgress({ current: n, rows, ms: performance.now() - started });
    if (!(await pause())) return null;
    const row = await measureSize(lab, n, s, pause);
    if (!row) return null;
    rows.push({ ...row, empty });
    onProgress({ current: n, rows, ms: performance.now() - started });
  }
  return { rows, ms: performance.now() - started, longestChunk };
}
