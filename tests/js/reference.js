// Plain float64 reference implementations of everything attention-lab
// computes, written from the definitions (Dive into Deep Learning ch. 11 and
// the API's contract), not from the library's code. They are the test
// oracle: slow, obvious, no SIMD, no workspace, no float32 rounding of
// intermediates. Matrices here are nested arrays of numbers (number[][]);
// `fromMatrix` turns a library matrix { rows, cols, data } into one.

/** number[][] from a { rows, cols, data } matrix, nested arrays, or a flat vector (as one row). */
export function fromMatrix(m) {
  if (Array.isArray(m)) return m.map((row) => Array.from(row, Number));
  const out = [];
  for (let i = 0; i < m.rows; i++) out.push(Array.from(m.data.subarray ? m.data.subarray(i * m.cols, (i + 1) * m.cols) : m.data.slice(i * m.cols, (i + 1) * m.cols), Number));
  return out;
}

export const zeros = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(0));

export const transpose = (A) => (A.length === 0 ? [] : A[0].map((_, j) => A.map((row) => row[j])));

/** A·B for A n×k and B k×m (k may be 0: the result is all zeros). */
export function matmul(A, B) {
  const n = A.length;
  const k = n > 0 ? A[0].length : B.length;
  const m = B.length > 0 ? B[0].length : 0;
  const C = zeros(n, m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      let sum = 0;
      for (let t = 0; t < k; t++) sum += A[i][t] * B[t][j];
      C[i][j] = sum;
    }
  return C;
}

/** Columns [first, first + count) of A. */
export const columns = (A, first, count) => A.map((row) => row.slice(first, first + count));

/**
 * The visibility of an n×m score matrix as booleans (true = may attend), from
 * any mask the public API accepts: undefined / 'none', 'causal', { validLens }
 * (an array or a single number), nested 0/1 arrays or a { rows, cols, data } 0/1 matrix.
 */
export function visibility(mask, n, m) {
  if (mask === undefined || mask === null || mask === 'none') return zeros(n, m).map((row) => row.map(() => true));
  if (mask === 'causal') return zeros(n, m).map((row, i) => row.map((_, j) => j <= i));
  if (typeof mask === 'object' && 'validLens' in mask) {
    const lens = typeof mask.validLens === 'number' ? new Array(n).fill(mask.validLens) : Array.from(mask.validLens);
    return zeros(n, m).map((row, i) => row.map((_, j) => j < lens[i]));
  }
  return fromMatrix(mask).map((row) => row.map((b) => b === 1));
}

/** Row-wise softmax over the visible entries; a row with nothing visible is all zeros. */
export function maskedSoftmax(S, visible) {
  return S.map((row, i) => {
    const vis = visible ? visible[i] : row.map(() => true);
    let max = -Infinity;
    for (let j = 0; j < row.length; j++) if (vis[j] && row[j] > max) max = row[j];
    if (max === -Infinity) return row.map(() => 0);
    const e = row.map((x, j) => (vis[j] ? Math.exp(x - max) : 0));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
}

export const softmax = (S, mask) => maskedSoftmax(S, visibility(mask, S.length, S.length ? S[0].length : 0));

/** The masked-scores intermediate: visible entries kept, hidden entries −∞. */
export const applyMask = (S, visible) => S.map((row, i) => row.map((x, j) => (visible[i][j] ? x : -Infinity)));

/**
 * softmax(QKᵀ·scale)V with every intermediate. Q n×d, K m×d, V m×d_v.
 * Default scale 1/√d.
 */
export function scaledDotProduct(Q, K, V, { mask, scale } = {}) {
  const n = Q.length;
  const m = K.length;
  const d = n > 0 ? Q[0].length : K.length > 0 ? K[0].length : 0;
  const s = scale ?? 1 / Math.sqrt(d);
  const visible = visibility(mask, n, m);
  const scores = matmul(Q, transpose(K));
  const scaled = scores.map((row) => row.map((x) => x * s));
  const weights = maskedSoftmax(scaled, visible);
  return { scores, scaled, masked: applyMask(scaled, visible), weights, output: matmul(weights, V), visible };
}

/**
 * Additive attention: score(q_i, k_j) = w_vᵀ tanh(q_i W_q + k_j W_k).
 * Q n×d_q, K m×d_k, V m×d_v, W_q d_q×h, W_k d_k×h, w_v of length h.
 */
export function additive(Q, K, V, { Wq, Wk, wv, mask }) {
  const n = Q.length;
  const m = K.length;
  const qh = matmul(Q, Wq);
  const kh = matmul(K, Wk);
  const scores = zeros(n, m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let t = 0; t < wv.length; t++) s += wv[t] * Math.tanh(qh[i][t] + kh[j][t]);
      scores[i][j] = s;
    }
  const visible = visibility(mask, n, m);
  const weights = maskedSoftmax(scores, visible);
  return { scores, masked: applyMask(scores, visible), weights, output: matmul(weights, V), visible };
}

/** Single-head self-attention: Q, K, V = XW_Q, XW_K, XW_V, then scaled dot-product attention. */
export function selfAttention(X, { Wq, Wk, Wv, mask }) {
  const [Q, K, V] = [matmul(X, Wq), matmul(X, Wk), matmul(X, Wv)];
  return { Q, K, V, ...scaledDotProduct(Q, K, V, { mask }) };
}

/**
 * Multi-head attention: the projections split into `heads` column blocks,
 * each block attends with scale 1/√(d_k per head), the head outputs are
 * concatenated and multiplied by W_O.
 */
export function multiHead(X, { heads, Wq, Wk, Wv, Wo, mask }) {
  const [Q, K, V] = [matmul(X, Wq), matmul(X, Wk), matmul(X, Wv)];
  const dk = Wq[0].length / heads;
  const dv = Wv[0].length / heads;
  const perHead = [];
  for (let h = 0; h < heads; h++) {
    const [q, k, v] = [columns(Q, h * dk, dk), columns(K, h * dk, dk), columns(V, h * dv, dv)];
    perHead.push({ Q: q, K: k, V: v, ...scaledDotProduct(q, k, v, { mask }) });
  }
  const concat = X.map((_, i) => perHead.flatMap((head) => head.output[i]));
  return { Q, K, V, heads: perHead, concat, output: matmul(concat, Wo) };
}

/** γ ⊙ (r − mean) / √(var + ε) + β on every row (biased variance). */
export function layerNorm(X, gamma, beta, eps) {
  return X.map((row) => {
    const mean = row.reduce((s, v) => s + v, 0) / row.length;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / row.length;
    return row.map((v, j) => gamma[j] * ((v - mean) / Math.sqrt(variance + eps)) + beta[j]);
  });
}

const add = (A, B) => A.map((row, i) => row.map((v, j) => v + B[i][j]));
const addRow = (A, b, relu) => A.map((row) => row.map((v, j) => (relu ? Math.max(0, v + b[j]) : v + b[j])));

/** The post-norm Transformer encoder block: Z = LN(Y + FFN(Y)), Y = LN(X + MultiHead(X)). */
export function transformerBlock(X, { heads, Wq, Wk, Wv, Wo, W1, b1, W2, b2, gamma1, beta1, gamma2, beta2, epsilon = 1e-5, mask }) {
  const d = X[0]?.length ?? 0;
  const ones = new Array(d).fill(1);
  const zero = new Array(d).fill(0);
  const attention = multiHead(X, { heads, Wq, Wk, Wv, Wo, mask });
  const sum1 = add(X, attention.output);
  const norm1 = layerNorm(sum1, gamma1 ?? ones, beta1 ?? zero, epsilon);
  const hidden = addRow(matmul(norm1, W1), b1 ?? new Array(W1[0].length).fill(0), true);
  const ffn = addRow(matmul(hidden, W2), b2 ?? zero, false);
  const sum2 = add(norm1, ffn);
  return { attention, sum1, norm1, hidden, ffn, sum2, output: layerNorm(sum2, gamma2 ?? ones, beta2 ?? zero, epsilon) };
}

/** Kernel functions K(u), u = (x − x_i)/h. */
export const KERNELS = {
  gaussian: (u) => Math.exp(-0.5 * u * u),
  boxcar: (u) => (Math.abs(u) <= 1 ? 1 : 0),
  epanechnikov: (u) => (Math.abs(u) <= 1 ? 0.75 * (1 - u * u) : 0),
  constant: () => 1,
};

/**
 * Nadaraya-Watson kernel regression: f(x) = Σ_i K((x − x_i)/h) y_i / Σ_j K((x − x_j)/h).
 * A query with zero total kernel mass gets all-zero weights and predicts 0.
 * The gaussian is evaluated relative to the nearest training point so far
 * queries do not underflow (the ratio is unchanged).
 */
export function nadarayaWatson(xTrain, yTrain, xQuery, { kernel = 'gaussian', bandwidth = 1 } = {}) {
  const K = KERNELS[kernel];
  const weights = [];
  const predictions = [];
  for (const x of xQuery) {
    const u = Array.from(xTrain, (xi) => (x - xi) / bandwidth);
    let k;
    if (kernel === 'gaussian') {
      const minSq = Math.min(...u.map((v) => v * v));
      k = u.map((v) => Math.exp(-0.5 * (v * v - minSq)));
    } else k = u.map(K);
    const sum = k.reduce((a, b) => a + b, 0);
    const w = sum > 0 ? k.map((v) => v / sum) : k.map(() => 0);
    weights.push(w);
    predictions.push(w.reduce((acc, wi, i) => acc + wi * yTrain[i], 0));
  }
  return { predictions, weights };
}

// ---- Efficient attention variants ----

/**
 * Sliding-window attention of a sequence with itself: scaled dot-product
 * attention where key j is visible to query i iff |i − j| < window
 * (causal: 0 ≤ i − j < window). Default scale 1/√d.
 */
export function local(Q, K, V, { window, causal = false, scale } = {}) {
  const n = Q.length;
  const bits = zeros(n, n).map((row, i) => row.map((_, j) => (causal ? i - j >= 0 && i - j < window : Math.abs(i - j) < window) ? 1 : 0));
  return scaledDotProduct(Q, K, V, { mask: bits, scale });
}

/** The elu + 1 feature map of linear attention: x + 1 for x > 0, eˣ otherwise (always positive). */
export const featureMap = (x) => (x > 0 ? x + 1 : Math.exp(x));

/**
 * Kernelised linear attention: weight_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'),
 * output = weights · V; causal restricts the sums to j ≤ i.
 */
export function linear(Q, K, V, { causal = false } = {}) {
  const [fq, fk] = [Q.map((r) => r.map(featureMap)), K.map((r) => r.map(featureMap))];
  const sim = matmul(fq, transpose(fk));
  const weights = sim.map((row, i) => {
    const kept = row.map((s, j) => (!causal || j <= i ? s : 0));
    const sum = kept.reduce((a, b) => a + b, 0);
    return kept.map((s) => (sum > 0 ? s / sum : 0));
  });
  return { weights, output: matmul(weights, V) };
}

/** Linformer: K' = EK and V' = FV (p rows each), then scaled dot-product attention of Q over them. */
export function linformer(Q, K, V, { E, F, scale } = {}) {
  return scaledDotProduct(Q, matmul(E, K), matmul(F, V), { scale: scale ?? 1 / Math.sqrt(Q[0]?.length ?? K[0].length) });
}
