// One head's projection: the first columns of a d_model×d_model weight matrix (the panels that
// show a single head of attention use the first d_k columns).

/** The first `keep` columns of W (an input, copied, not computed); W itself when it has no more. */
export function firstColumns(W, keep) {
  if (W.cols === keep) return W;
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
}
