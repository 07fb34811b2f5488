// Float64 references, row by row, so long sequences can be checked on a sample
// of rows. Every implementation's result is compared with these before timing.
// Matrices are { rows, cols, data } with float32 data; sums are in double.

const dot = (a, ai, b, bi, d) => {
  let s = 0;
  for (let t = 0; t < d; t++) s += a[ai + t] * b[bi + t];
  return s;
};

// Softmax attention of query row i of Q over keys [lo, hi) of K, V:
// softmax(q_i K[lo:hi]ᵀ · scale) V[lo:hi]. Empty range: zeros.
export function windowRow(Q, K, V, i, lo, hi, scale) {
  const d = Q.cols, dv = V.cols, out = new Float64Array(dv);
  if (hi <= lo) return out;
  const s = new Float64Array(hi - lo);
  let max = -Infinity;
  for (let j = lo; j < hi; j++) {
    s[j - lo] = dot(Q.data, i * d, K.data, j * d, d) * scale;
    if (s[j - lo] > max) max = s[j - lo];
  }
  let sum = 0;
  for (let j = 0; j < s.length; j++) sum += s[j] = Math.exp(s[j] - max);
  for (let j = lo; j < hi; j++) {
    const w = s[j - lo] / sum;
    for (let t = 0; t < dv; t++) out[t] += w * V.data[j * dv + t];
  }
  return out;
}

// The key range [lo, hi) query i sees, for full (causal or not) and local attention.
export function keyRange(kind, i, n, m, { causal = false, window = 0 } = {}) {
  if (kind === 'local') return causal ? [Math.max(0, i - window + 1), i + 1] : [Math.max(0, i - window + 1), Math.min(n, i + window)];
  return [0, causal ? Math.min(i + 1, m) : m];
}

const phi = (x) => (x > 0 ? x + 1 : Math.exp(x)); // elu(x) + 1

// Linear attention (elu+1 features), query row i; causal: keys j ≤ i.
export function linearRow(Q, K, V, i, causal) {
  const d = Q.cols, dv = V.cols, out = new Float64Array(dv);
  const hi = causal ? i + 1 : K.rows;
  const fq = new Float64Array(d);
  for (let t = 0; t < d; t++) fq[t] = phi(Q.data[i * d + t]);
  let den = 0;
  for (let j = 0; j < hi; j++) {
    let w = 0;
    for (let t = 0; t < d; t++) w += fq[t] * phi(K.data[j * d + t]);
    den += w;
    for (let t = 0; t < dv; t++) out[t] += w * V.data[j * dv + t];
  }
  if (den > 0) for (let t = 0; t < dv; t++) out[t] /= den;
  else out.fill(0);
  return out;
}

// P·X for P k×n and X n×c, in double, returned as a float64 "matrix".
export function project(P, X) {
  const k = P.rows, n = P.cols, c = X.cols, out = new Float64Array(k * c);
  for (let r = 0; r < k; r++)
    for (let j = 0; j < n; j++) {
      const p = P.data[r * n + j];
      if (p === 0) continue;
      for (let t = 0; t < c; t++) out[r * c + t] += p * X.data[j * c + t];
    }
  return { rows: k, cols: c, data: out };
}

// A·B in double (A n×k, B k×m).
export function matmul64(A, B) {
  const n = A.rows, k = A.cols, m = B.cols, out = new Float64Array(n * m);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < k; t++) {
      const a = A.data[i * k + t];
      for (let j = 0; j < m; j++) out[i * m + j] += a * B.data[t * m + j];
    }
  return { rows: n, cols: m, data: out };
}

// Multi-head self-attention with projections, in double: n×d_out.
export function multiHead64(X, { heads, Wq, Wk, Wv, Wo }, causal = false) {
  const n = X.rows, Q = matmul64(X, Wq), K = matmul64(X, Wk), V = matmul64(X, Wv);
  const dk = Wq.cols / heads, dv = Wv.cols / heads;
  const concat = { rows: n, cols: heads * dv, data: new Float64Array(n * heads * dv) };
  const slice = (M, h, w) => {
    const s = new Float64Array(n * w);
    for (let i = 0; i < n; i++) for (let t = 0; t < w; t++) s[i * w + t] = M.data[i * M.cols + h * w + t];
    return { rows: n, cols: w, data: s };
  };
  for (let h = 0; h < heads; h++) {
    const q = slice(Q, h, dk), k = slice(K, h, dk), v = slice(V, h, dv);
    for (let i = 0; i < n; i++) {
      const row = windowRow(q, k, v, i, 0, causal ? i + 1 : n, 1 / Math.sqrt(dk));
      for (let t = 0; t < dv; t++) concat.data[i * heads * dv + h * dv + t] = row[t];
    }
  }
  return matmul64(concat, Wo).data;
}

// Largest error and whether every entry is within atol + rtol·|ref|.
// got: float32 rows (rows.length × cols, in the order of `rows`), ref: float64 the same.
export function compare(got, ref, { atol = 1e-3, rtol = 1e-3 } = {}) {
  if (!got || got.length !== ref.length) return { ok: false, maxAbs: NaN, why: `length ${got?.length} ≠ ${ref.length}` };
  let maxAbs = 0, ok = true, worst = -1;
  for (let t = 0; t < ref.length; t++) {
    const e = Math.abs(got[t] - ref[t]);
    if (!(e <= atol + rtol * Math.abs(ref[t]))) {
      if (ok) worst = t;
      ok = false;
    }
    if (!(e <= maxAbs)) maxAbs = e; // NaN propagates
  }
  return { ok, maxAbs, why: ok ? '' : `entry ${worst}: got ${got[worst]}, want ${ref[worst]}` };
}

// Relative RMS difference ‖a − b‖ / ‖b‖ (for approximation error of a variant).
export function relRms(a, b) {
  let num = 0, den = 0;
  for (let t = 0; t < b.length; t++) {
    num += (a[t] - b[t]) ** 2;
    den += b[t] ** 2;
  }
  return Math.sqrt(num / (den || 1));
}

// RMS of a − b.
export function rmsDiff(a, b) {
  let s = 0;
  for (let t = 0; t < b.length; t++) s += (a[t] - b[t]) ** 2;
  return Math.sqrt(s / (b.length || 1));
}
