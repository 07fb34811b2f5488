// <attention-decoding>'s KV cache, DOM-free: one head's Q, K, V from the sentence (the first d_k
// columns of the seeded W_Q, W_K, W_V, through lab.matmul), the first `prefill` tokens put in a
// lab.createKVCache cache at once, then one token at a time: its key and value appended and its
// query attending to every cached key, with the work of each call as the library counts it. The
// outputs are checked against one causal lab.batchedAttention call over the whole prefix:
// prefill + decode is causal attention, computed two ways by the library.

/** W's first `cols` columns (head 0 of a d_model × h·d_k projection). */
export function firstColumns(W, cols) {
  const data = new Float32Array(W.rows * cols);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + cols), i * cols);
  return { rows: W.rows, cols, data };
}

/** Head 0's Q, K, V (n × d_k each) for the model, from lab.matmul. */
export function headProjections(lab, model) {
  const dK = model.config.dK;
  const [Q, K, V] = [model.Wq, model.Wk, model.Wv].map((W) => lab.matmul(model.X, firstColumns(W, dK)));
  return { Q, K, V };
}

/** Rows a … b − 1 of a matrix as a [1, 1, b − a, cols] tensor. */
export const rowsTensor = (M, a, b) => ({ shape: [1, 1, b - a, M.cols], data: M.data.slice(a * M.cols, b * M.cols) });

/** A [1, 1, rows, cols] tensor as a Matrix. */
export const tensorMatrix = (T) => ({ rows: T.shape[2], cols: T.shape[3], data: T.data });

/**
 * The rows and keys of a call computing the outputs of positions `from` … `to` − 1, counted one by
 * one (the row at position r sees the r + 1 keys 0 … r): with the cache only those rows are
 * computed; without one every row from position 0 is computed again. { rowsWith, keysWith,
 * rowsWithout, keysWithout }; times (d_k + d_v) the keys are the library's multiply-adds.
 */
export function rowsAndKeys(from, to) {
  const count = (a) => {
    let rows = 0;
    let keys = 0;
    for (let r = a; r < to; r++) {
      rows += 1;
      for (let j = 0; j <= r; j++) keys += 1;
    }
    return { rows, keys };
  };
  const [w, wo] = [count(from), count(0)];
  return { rowsWith: w.rows, keysWith: w.keys, rowsWithout: wo.rows, keysWithout: wo.keys };
}

/**
 * Prefill `prefill` tokens into a lab.createKVCache cache, then decode `step` more, one at a time:
 * the cache after the last step ({ K, V } as Matrices, its bytes), the last query's weights over
 * the cache (1 × cached), every output row, the work of each call with and without a cache
 * (`work`: [{ position, keys, rowsWith, keysWith, rowsWithout, keysWithout, withCache,
 * withoutCache }], the prefill first; the multiply-adds are the library's, the rows and keys
 * rowsAndKeys'), and the largest
 * difference from one causal lab.batchedAttention call over the same tokens.
 */
export function decodeTrace(lab, { Q, K, V }, prefill, step) {
  const total = prefill + step;
  const d = Q.cols;
  const cache = lab.createKVCache({ heads: 1, kvHeads: 1, dK: d, dV: V.cols, capacity: total });
  try {
    const first = cache.prefill(rowsTensor(Q, 0, prefill), rowsTensor(K, 0, prefill), rowsTensor(V, 0, prefill));
    let weights = { rows: 1, cols: prefill, data: first.weights.data.slice((prefill - 1) * prefill) };
    const outputs = [tensorMatrix(first.output)];
    const work = [{ position: `0–${prefill - 1}`, keys: prefill, ...rowsAndKeys(0, prefill), ...first.work }];
    for (let t = prefill; t < total; t++) {
      const r = cache.step(rowsTensor(Q, t, t + 1), rowsTensor(K, t, t + 1), rowsTensor(V, t, t + 1));
      weights = tensorMatrix(r.weights);
      outputs.push(tensorMatrix(r.output));
      work.push({ position: String(t), keys: t + 1, ...rowsAndKeys(t, t + 1), ...r.work });
    }
    const full = tensorMatrix(lab.batchedAttention(rowsTensor(Q, 0, total), rowsTensor(K, 0, total), rowsTensor(V, 0, total), { causal: true }).output);
    const out = stack(outputs);
    return { K: tensorMatrix(cache.keys()), V: tensorMatrix(cache.values()), bytes: cache.bytes, weights, outputs: out, full, work, difference: largestDifference(out, full) };
  } finally {
    cache.release();
  }
}

/** Matrices of equal width, one below the other. */
export function stack(list) {
  const rows = list.reduce((sum, m) => sum + m.rows, 0);
  const data = new Float32Array(rows * list[0].cols);
  let at = 0;
  for (const m of list) {
    data.set(m.data, at);
    at += m.data.length;
  }
  return { rows, cols: list[0].cols, data };
}

/** The largest |a − b| over two matrices of one shape. */
export function largestDifference(a, b) {
  let worst = 0;
  for (let k = 0; k < a.data.length; k++) worst = Math.max(worst, Math.abs(a.data[k] - b.data[k]));
  return worst;
}
