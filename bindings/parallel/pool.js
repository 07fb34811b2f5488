// createWorkerPool: one large call spread over module workers (worker_threads in Node.js), each
// running its own copy of the page's build. The page's thread checks the arguments first (the same
// AttentionError as the one-thread call), splits the query rows (split.js), and puts the answers
// back in order: rows are independent, so the result is bit-identical to the one-thread call.
// Without workers (none can start, a Content-Security-Policy blocks them, the last one could not be
// restarted) every call runs on the page's lab, and `workers` is 0 and `reason` says why.
import { AttentionError, fail } from '../errors.js';
import { checkScaledDotProduct } from '../ops/attention.js';
import { MaskKind, checkOptions, toNumber } from '../validate.js';
import { PoolLayer } from './pool-layer.js';
import { PoolWorker } from './pool-worker.js';
import { copyMatrix, maskRows, rowRanges, sliceRows } from './split.js';

/**
 * Below this many multiply-adds (n = m = 256 at d = 64) a call runs on the page's thread, where
 * posting the inputs and the answers would cost about what the split saves. A round figure, not yet
 * measured on an idle machine: bench/parallel.mjs starts at n = 1,024.
 */
export const SMALL_CALL = 256 * 256 * 128;

/** @param {object} lab  a loaded lab (init())  @param {object} adapter  node-workers.js or browser-workers.js */
export async function createPool(lab, options, adapter) {
  const fn = 'createWorkerPool';
  if (!lab || typeof lab.scaledDotProductAttention !== 'function') throw new TypeError(`${fn}: the first argument must be a lab from init()`);
  const o = checkOptions(fn, options ?? {}, ['workers', 'smallCall', 'wasm']);
  const count = toNumber(fn, 'workers', o.workers, Math.min(adapter.cores(), 8));
  if (!Number.isInteger(count) || count < 0 || count > 64)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: workers is ${o.workers}; it must be an integer from 0 to 64`);
  const smallCall = toNumber(fn, 'smallCall', o.smallCall, SMALL_CALL);
  if (!(smallCall >= 0)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: smallCall is ${o.smallCall}; it must be a number of multiply-adds, 0 or more`);
  const wasmBytes = wasmSource(fn, o.wasm, adapter);
  const pool = new WorkerPool(lab, { ...adapter, wasmBytes }, smallCall);
  await pool.start(count);
  return pool;
}

/**
 * Where the workers' copy of lab.build's .wasm comes from: by default the file next to the pool's
 * own module (adapter.wasmBytes); `wasm` names it for a page whose init() was given wasmUrl,
 * wasmBinary or locateFile: the bytes themselves (Uint8Array, ArrayBuffer) or a URL to fetch.
 */
function wasmSource(fn, wasm, adapter) {
  if (wasm === undefined) return adapter.wasmBytes;
  if (wasm instanceof Uint8Array) return async () => wasm;
  if (wasm instanceof ArrayBuffer) return async () => new Uint8Array(wasm);
  if (typeof wasm === 'string' || wasm instanceof URL) return () => fetchBytes(wasm);
  const got = wasm === null ? 'null' : typeof wasm === 'object' ? (wasm.constructor?.name ?? 'an object') : typeof wasm;
  fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: wasm is ${got}; it must be the bytes of lab.build's .wasm (Uint8Array or ArrayBuffer) or its URL (string or URL)`);
}

async function fetchBytes(url) {
  if (typeof fetch !== 'function') throw new Error(`this environment has no fetch to read ${url}`);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

export class WorkerPool {
  #lab;
  #adapter;
  #smallCall;
  #bytes = null;
  #slots = [];
  #reason = null;
  #closed = false;
  #layers = new Set();

  constructor(lab, adapter, smallCall) {
    this.#lab = lab;
    this.#adapter = adapter;
    this.#smallCall = smallCall;
  }

  /** The workers running now: 0 when every call runs on the page's thread (see reason). */
  get workers() {
    return this.#slots.length;
  }
  /** Why the pool runs on the page's thread only, or null. */
  get reason() {
    return this.#reason;
  }
  /** The build every worker loaded: the page's lab.build. */
  get build() {
    return this.#lab.build;
  }

  /** Starts `count` workers; any failure leaves the pool on the page's thread, with the reason. */
  async start(count) {
    if (count === 0) return this.#fallBack('workers: 0 was asked for');
    try {
      this.#bytes = await this.#adapter.wasmBytes(this.#lab.build);
      const started = await Promise.allSettled(Array.from({ length: count }, () => this.#startWorker()));
      const failed = started.find((s) => s.status === 'rejected');
      this.#slots = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      if (failed) this.#fallBack(`a worker could not start: ${failed.reason?.message ?? failed.reason}`);
    } catch (error) {
      this.#fallBack(`no worker could start: ${error?.message ?? error}`);
    }
  }

  #startWorker() {
    return PoolWorker.start(this.#adapter, this.#lab.build, this.#bytes, (worker, reason) => this.#restart(worker, reason));
  }

  // A worker stopped: its calls have rejected; a new one takes its place (its layers re-created).
  async #restart(worker, reason) {
    const index = this.#slots.indexOf(worker);
    if (index < 0 || this.#closed) return;
    const pending = this.#startWorker();
    pending.catch(() => {}); // a failed restart is handled below; calls waiting on the slot see it too
    this.#slots[index] = pending;
    try {
      const fresh = await pending;
      if (this.#closed) return fresh.terminate();
      this.#slots[index] = fresh;
      // Every layer's message is posted before any later call's (a worker answers in order).
      await Promise.all([...this.#layers].map((layer) => layer.restore(index, fresh)));
    } catch (error) {
      this.#fallBack(`a worker stopped (${reason}) and could not be restarted: ${error?.message ?? error}`);
    }
  }

  #fallBack(reason) {
    for (const slot of this.#slots) Promise.resolve(slot).then((w) => w.terminate(reason), () => {});
    this.#slots = [];
    this.#reason = reason;
  }

  /** The worker of slot `index` (waiting for a restart in progress); `fn` names the call. */
  async worker(index, fn) {
    const slot = this.#slots[index];
    if (!slot) throw new Error(`${fn}: the pool fell back to one thread during the call (${this.#reason})`);
    return slot;
  }

  /** Throws after close(); `fn` names the call. */
  checkOpen(fn) {
    if (this.#closed) fail(AttentionError.codes.DISPOSED, `${fn}: this worker pool was closed; create a new one with createWorkerPool()`);
  }

  /** True when a call of `work` multiply-adds is worth sending to the workers. */
  splits(work) {
    return this.workers > 0 && work >= this.#smallCall;
  }

  /** scaledDotProductAttention over the workers: the same arguments and result as lab.scaledDotProductAttention. */
  async scaledDotProductAttention(Q, K, V, options) {
    const fn = 'WorkerPool.scaledDotProductAttention';
    this.checkOpen(fn);
    const c = checkScaledDotProduct('scaledDotProductAttention', Q, K, V, options);
    const [n, m, dv] = [c.q.rows, c.k.rows, c.v.cols];
    if (c.trace || !this.splits(n * m * (c.q.cols + dv))) return this.#lab.scaledDotProductAttention(Q, K, V, options);
    // Causal kernels (fused, and the blocked one that returns weights) visit only the keys a row sees.
    const cost = c.mask.kind === MaskKind.causal ? (i) => Math.min(i + 1, m) : undefined;
    const ranges = rowRanges(n, this.workers, cost);
    const owned = { k: c.k.data !== K?.data, v: c.v.data !== V?.data };
    const parts = await Promise.all(ranges.map(([first, end], index) => this.#attendRows(fn, index, c, [first, end], index === ranges.length - 1 && owned)));
    const result = { output: joinRows(parts.map((p) => p.output), n, dv) };
    if (c.weights) result.weights = joinRows(parts.map((p) => p.weights), n, m);
    return result;
  }

  // owned: which of K and V are the pool's own copies (from nested arrays), given to the last worker as they are.
  async #attendRows(fn, index, c, [first, end], owned) {
    const [Q, K, V] = [sliceRows(c.q, first, end), owned.k ? c.k : copyMatrix(c.k), owned.v ? c.v : copyMatrix(c.v)];
    const options = { scale: c.scale, weights: c.weights, mask: maskRows(c.mask, first, end, c.k.rows) };
    const worker = await this.worker(index, fn);
    return worker.run(fn, { type: 'attention', Q, K, V, options }, [Q.data.buffer, K.data.buffer, V.data.buffer]);
  }

  /**
   * A packed multi-head layer whose forward pass runs over the workers: the same options as
   * lab.createMultiHeadAttention (and the same errors); forward(X, { mask }) resolves to { output, concat }.
   */
  async createMultiHeadAttention(options) {
    this.checkOpen('WorkerPool.createMultiHeadAttention');
    const layer = new PoolLayer(this, this.#lab, options, (l) => this.#layers.delete(l));
    this.#layers.add(layer);
    try {
      await layer.spread();
    } catch (error) {
      layer.dispose();
      throw error;
    }
    return layer;
  }

  /** Terminates the workers; later calls reject with a DISPOSED AttentionError. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const layer of this.#layers) layer.dispose();
    this.#fallBack('the pool was closed');
  }
}

/** Row blocks, in order, as one rows×cols matrix. */
function joinRows(blocks, rows, cols) {
  const data = new Float32Array(rows * cols);
  let at = 0;
  for (const block of blocks) {
    data.set(block.data, at);
    at += block.data.length;
  }
  return { rows, cols, data };
}
