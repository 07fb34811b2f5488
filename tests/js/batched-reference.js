// Float64 reference of lab.batchedAttention's definition, independent of the
// library: canonical [batch, heads, rows, width] arrays (number[]), every rule
// spelled out per score. mask and bias are given full [batch, heads, n, keys].

/**
 * @param {{ batch, heads, kvHeads, n, m, d, dv, q, k, v, scale, softcap?, causal?, offsets?, window?,
 *           kvLengths?, mask?, bias? }} c  offsets: one per batch entry
 */
export function batchedReference(c) {
  const { batch, heads, kvHeads, n, m, d, dv } = c;
  const output = new Float64Array(batch * heads * n * dv), weights = new Float64Array(batch * heads * n * m);
  const biased = new Float64Array(batch * heads * n * m);
  for (let b = 0; b < batch; b++)
    for (let h = 0; h < heads; h++) {
      const g = Math.floor((h * kvHeads) / heads);
      const offset = c.offsets ? c.offsets[b] : 0;
      for (let i = 0; i < n; i++) {
        const row = (b * heads + h) * n + i;
        const s = [];
        for (let j = 0; j < m; j++) {
          let x = 0;
          for (let t = 0; t < d; t++) x += c.q[row * d + t] * c.k[((b * kvHeads + g) * m + j) * d + t];
          x *= c.scale;
          if (c.softcap) x = c.softcap * Math.tanh(x / c.softcap);
          if (c.bias) x += c.bias[row * m + j];
          const hidden = (c.causal && j > i + offset) || (c.window && j <= i + offset - c.window) ||
            (c.kvLengths && j >= c.kvLengths[b]) || (c.mask && !c.mask[row * m + j]);
          s.push(hidden ? -Infinity : x);
          biased[row * m + j] = s[j];
        }
        const max = Math.max(...s);
        if (max === -Infinity) continue;
        const e = s.map((x) => Math.exp(x - max));
        const sum = e.reduce((a, x) => a + x, 0);
        for (let j = 0; j < m; j++) {
          weights[row * m + j] = e[j] / sum;
          for (let t = 0; t < dv; t++) output[row * dv + t] += (e[j] / sum) * c.v[((b * kvHeads + g) * m + j) * dv + t];
        }
      }
    }
  return { output, weights, biased };
}

/** [batch, heads, rows, width] → [batch, rows, heads·width] (the 3-D layout). */
export function toRowsMajor(x, batch, heads, rows, width) {
  const y = new Float32Array(x.length);
  for (let b = 0; b < batch; b++)
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < rows; i++)
        for (let t = 0; t < width; t++) y[((b * rows + i) * heads + h) * width + t] = x[((b * heads + h) * rows + i) * width + t];
  return y;
}
