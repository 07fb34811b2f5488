// Naive JavaScript: what one writes first. Float32Array storage, plain loops,
// the full n×m score matrix, softmax row by row, then the weighted sum.
// Causal: a query's loop stops at its own position (as a naive coder would).

export function naiveAttention(Q, K, V, causal, scale = 1 / Math.sqrt(Q.cols)) {
  const n = Q.rows, m = K.rows, d = Q.cols, dv = V.cols;
  const q = Q.data, k = K.data, v = V.data;
  const S = new Float32Array(n * m), out = new Float32Array(n * dv);
  for (let i = 0; i < n; i++) {
    const end = causal ? Math.min(i + 1, m) : m;
    let max = -Infinity;
    for (let j = 0; j < end; j++) {
      let s = 0;
      for (let t = 0; t < d; t++) s += q[i * d + t] * k[j * d + t];
      S[i * m + j] = s * scale;
      if (S[i * m + j] > max) max = S[i * m + j];
    }
    let sum = 0;
    for (let j = 0; j < end; j++) sum += S[i * m + j] = Math.exp(S[i * m + j] - max);
    for (let j = 0; j < end; j++) {
      const w = S[i * m + j] / sum;
      for (let t = 0; t < dv; t++) out[i * dv + t] += w * v[j * dv + t];
    }
  }
  return out;
}

function naiveMatmul(A, B) {
  const n = A.rows, k = A.cols, m = B.cols, a = A.data, b = B.data, c = new Float32Array(n * m);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < k; t++) {
      const x = a[i * k + t];
      for (let j = 0; j < m; j++) c[i * m + j] += x * b[t * m + j];
    }
  return { rows: n, cols: m, data: c };
}

function columns(M, first, count) {
  const out = new Float32Array(M.rows * count);
  for (let i = 0; i < M.rows; i++) out.set(M.data.subarray(i * M.cols + first, i * M.cols + first + count), i * count);
  return { rows: M.rows, cols: count, data: out };
}

export function createNaive() {
  return {
    name: 'naive JavaScript',
    notes: [],
    sdpa: ({ Q, K, V, causal }) => ({ run: () => naiveAttention(Q, K, V, causal) }),
    mhaOneShot({ X, weights: { heads, Wq, Wk, Wv, Wo }, causal }) {
      return {
        run() {
          const Qp = naiveMatmul(X, Wq), Kp = naiveMatmul(X, Wk), Vp = naiveMatmul(X, Wv);
          const dk = Wq.cols / heads, dv = Wv.cols / heads, n = X.rows;
          const concat = { rows: n, cols: heads * dv, data: new Float32Array(n * heads * dv) };
          for (let h = 0; h < heads; h++) {
            const o = naiveAttention(columns(Qp, h * dk, dk), columns(Kp, h * dk, dk), columns(Vp, h * dv, dv), causal);
            for (let i = 0; i < n; i++) concat.data.set(o.subarray(i * dv, (i + 1) * dv), i * heads * dv + h * dv);
          }
          return naiveMatmul(concat, Wo).data;
        },
      };
    },
  };
}
