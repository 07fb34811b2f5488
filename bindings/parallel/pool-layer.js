// A packed multi-head layer whose forward pass runs over the pool's workers, in two rounds:
//   1. heads: each worker holds a layer of some of the heads (their columns of W_Q, W_K, W_V) and
//      returns their block of concat for every row;
//   2. mix:   each worker multiplies some rows of the assembled concat by W_O.
// Every entry is the same sum, in the same order, as in the one-thread layer (each is one dot
// product along k; W_O is padded to whole vectors, so no entry takes the scalar tail), so the
// result is bit-identical to lab.createMultiHeadAttention(...).forward(X).
import { AttentionError, fail } from '../errors.js';
import { checkLayerInput } from '../ops/multi-head.js';
import { multiHeadWeights } from '../shapes.js';
import { MaskKind, checkOptions } from '../validate.js';
import { maskRows, rowRanges, sliceColumns, sliceRows } from './split.js';

let nextLayer = 0;

export class PoolLayer {
  #pool;
  #main;
  #weights;
  #groups;
  #id = `layer-${nextLayer++}`;
  #disposed = false;
  #forget;

  /** Checks the options as lab.createMultiHeadAttention does (it packs the page's own copy, used for small calls). */
  constructor(pool, lab, options, forget) {
    this.#pool = pool;
    this.#main = lab.createMultiHeadAttention(options);
    this.#weights = multiHeadWeights('createMultiHeadAttention', options, null);
    this.#groups = rowRanges(this.#weights.heads, Math.max(pool.workers, 1));
    this.#forget = forget;
  }

  get heads() {
    return this.#main.heads;
  }
  get dModel() {
    return this.#main.dModel;
  }
  get dOut() {
    return this.#main.dOut;
  }

  /** Packs each worker's heads in it. */
  async spread() {
    await Promise.all(Array.from({ length: this.#pool.workers }, async (_, index) => this.restore(index, await this.#pool.worker(index, 'WorkerPool.createMultiHeadAttention'))));
  }

  /** Packs this layer's part in the worker of slot `index` (a restarted worker too). */
  restore(index, worker) {
    const { heads, wq, wk, wv, wo } = this.#weights;
    const [dk, dv] = [wq.cols / heads, wv.cols / heads];
    const [h0, h1] = this.#groups[index] ?? [0, 0];
    const WoPadded = padColumns(wo, Math.ceil(wo.cols / 4) * 4);
    const part = h1 > h0 && {
      heads: h1 - h0,
      Wq: sliceColumns(wq, h0 * dk, (h1 - h0) * dk),
      Wk: sliceColumns(wk, h0 * dk, (h1 - h0) * dk),
      Wv: sliceColumns(wv, h0 * dv, (h1 - h0) * dv),
      // Its own W_O is not used (round 2 mixes every head): one column keeps its product small.
      Wo: { rows: (h1 - h0) * dv, cols: 1, data: new Float32Array((h1 - h0) * dv) },
    };
    return worker.run('WorkerPool.createMultiHeadAttention', { type: 'layer', layer: this.#id, ...part, WoPadded });
  }

  /** The same as the one-thread layer's forward(X, { mask, trace }); a trace or a small X runs on the page's thread. */
  async forward(X, forwardOptions) {
    const fn = 'MultiHeadAttention.forward';
    this.#pool.checkOpen(fn);
    if (this.#disposed) fail(AttentionError.codes.DISPOSED, `${fn}: this layer was disposed; create a new one`);
    const fo = checkOptions(fn, forwardOptions, ['mask', 'trace']);
    const { heads, wq, wk, wv, wo } = this.#weights;
    if (fo.trace) return this.#main.forward(X, forwardOptions);
    const { x, mask } = checkLayerInput(fn, { wq, wk, wv, heads }, X, fo.mask);
    if (!this.#pool.splits(x.rows * (x.rows * (wq.cols + wv.cols) + x.cols * (2 * wq.cols + wv.cols) + wv.cols * wo.cols)))
      return this.#main.forward(X, forwardOptions);
    const concat = await this.#heads(fn, x, mask);
    return { output: await this.#mix(fn, concat), concat };
  }

  async #heads(fn, x, mask) {
    const { heads, wv } = this.#weights;
    const dv = wv.cols / heads;
    const wholeMask = mask.kind === MaskKind.causal ? 'causal' : maskRows(mask, 0, x.rows, x.rows);
    const blocks = await Promise.all(this.#groups.map(async (_, index) => {
      const X = { rows: x.rows, cols: x.cols, data: x.data.slice() };
      const worker = await this.#pool.worker(index, fn);
      return (await worker.run(fn, { type: 'forward', layer: this.#id, X, mask: wholeMask }, [X.data.buffer])).concat;
    }));
    const concat = { rows: x.rows, cols: wv.cols, data: new Float32Array(x.rows * wv.cols) };
    blocks.forEach((block, g) => placeColumns(concat, block, this.#groups[g][0] * dv));
    return concat;
  }

  async #mix(fn, concat) {
    const dOut = this.#weights.wo.cols;
    const ranges = rowRanges(concat.rows, this.#pool.workers);
    const parts = await Promise.all(ranges.map(async ([first, end], index) => {
      const rows = sliceRows(concat, first, end);
      const worker = await this.#pool.worker(index, fn);
      return (await worker.run(fn, { type: 'mix', layer: this.#id, concat: rows }, [rows.data.buffer])).output;
    }));
    const output = { rows: concat.rows, cols: dOut, data: new Float32Array(concat.rows * dOut) };
    let row = 0;
    for (const part of parts) {
      placeColumns(output, sliceColumns(part, 0, dOut), 0, row);
      row += part.rows;
    }
    return output;
  }

  /** Frees the layer in the page's lab and in every worker. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#main.dispose();
    this.#forget(this);
    for (let index = 0; index < this.#pool.workers; index++)
      this.#pool.worker(index, 'MultiHeadAttention.dispose').then((w) => w.run('MultiHeadAttention.dispose', { type: 'drop', layer: this.#id })).catch(() => {});
  }
}

/** Writes `block` into `target` from column `col` (and row `row`). */
function placeColumns(target, block, col, row = 0) {
  for (let i = 0; i < block.rows; i++)
    target.data.set(block.data.subarray(i * block.cols, (i + 1) * block.cols), (row + i) * target.cols + col);
}

/** A copy of `a` with zero columns added up to `cols`. */
function padColumns(a, cols) {
  const out = { rows: a.rows, cols, data: new Float32Array(a.rows * cols) };
  placeColumns(out, a, 0);
  return out;
}
