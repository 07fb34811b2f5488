// ONNX Attention (opset 23/24) in float64, written from the operator's
// definition and independent of the library: the oracle the conformance stage
// checks the library against, beside ONNX's own expected outputs. Inputs are
// { shape, data } with plain numbers (float16 inputs already decoded);
// attributes as ONNX names them. Fully masked rows give zero weights (ONNX's
// current rule; its expected data agrees).

// [batch, heads, rows, width] accessors over 4-D or 3-D [batch, rows, heads·width] data.
function heads4(t, heads) {
  if (t.shape.length === 4) {
    const [, h, rows, width] = t.shape;
    return { heads: h, rows, width, at: (b, g, i, c) => t.data[((b * h + g) * rows + i) * width + c] };
  }
  const [, rows, hidden] = t.shape;
  const width = hidden / heads;
  return { heads, rows, width, at: (b, g, i, c) => t.data[(b * rows + i) * hidden + g * width + c] };
}

// attn_mask as a function of (b, h, i, j) with numpy broadcasting and ONNX's padding of a short last axis.
function maskValue(mask, b, h, i, j) {
  const s = [...Array(4 - mask.shape.length).fill(1), ...mask.shape];
  if (j >= s[3]) return -Infinity;  // a short mask is padded with hidden keys (false, or −∞)
  const idx = [b, h, i, j].map((x, k) => (s[k] === 1 ? 0 : x));
  const value = mask.data[((idx[0] * s[1] + idx[1]) * s[2] + idx[2]) * s[3] + idx[3]];
  return mask.dtype === 'bool' ? (value ? 0 : -Infinity) : value;
}

/** { Y, presentKey, presentValue, qk } in float64; Y in the layout of Q. */
export function onnxAttention(inputs, attributes) {
  const { Q, K, V, attn_mask: mask, past_key: pastK, past_value: pastV, nonpad_kv_seqlen: nonpad } = inputs;
  const a = attributes;
  const batch = Q.shape[0];
  const q = heads4(Q, a.q_num_heads), k = heads4(K, a.kv_num_heads), v = heads4(V, a.kv_num_heads);
  const [H, G, n, d, dv] = [q.heads, k.heads, q.rows, q.width, v.width];
  const past = pastK ? pastK.shape[2] : 0;
  const T = past + k.rows;
  const cache = (p, t, width) => (b, g, j, c) => (j < past ? p.data[((b * G + g) * past + j) * width + c] : t.at(b, g, j - past, c));
  const keyAt = cache(pastK, k, d), valueAt = cache(pastV, v, dv);
  const scale = a.scale ?? 1 / Math.sqrt(d);
  const softcap = a.softcap ?? 0;
  const Y = new Float64Array(batch * H * n * dv), qk = new Float64Array(batch * H * n * T);
  for (let b = 0; b < batch; b++) {
    const offset = !a.is_causal ? 0 : past > 0 || !nonpad ? past : Number(nonpad.data[b]) - n;
    for (let h = 0; h < H; h++) {
      const g = Math.floor((h * G) / H);
      for (let i = 0; i < n; i++) {
        const raw = [], capped = [], biased = [];
        for (let j = 0; j < T; j++) {
          let s = 0;
          for (let c = 0; c < d; c++) s += q.at(b, h, i, c) * keyAt(b, g, j, c);
          s *= scale;
          raw.push(s);
          const sc = softcap > 0 ? softcap * Math.tanh(s / softcap) : s;
          capped.push(sc);
          let bias = mask ? maskValue(mask, b, h, i, j) : 0;
          if (a.is_causal && j > i + offset) bias = -Infinity;
          if (nonpad && j >= Number(nonpad.data[b])) bias = -Infinity;
          biased.push(sc + bias);
        }
        const max = Math.max(...biased);
        const e = biased.map((s) => (max === -Infinity ? 0 : Math.exp(s - max)));
        const sum = e.reduce((x, y) => x + y, 0);
        const w = e.map((x) => (sum > 0 ? x / sum : 0));
        const mode = a.qk_matmul_output_mode ?? 0;
        const row = [raw, softcap > 0 ? capped : raw, biased, w][mode];
        for (let j = 0; j < T; j++) qk[((b * H + h) * n + i) * T + j] = row[j];
        for (let c = 0; c < dv; c++) {
          let y = 0;
          for (let j = 0; j < T; j++) if (w[j] !== 0) y += w[j] * valueAt(b, g, j, c);
          const at = Q.shape.length === 4 ? ((b * H + h) * n + i) * dv + c : (b * n + i) * H * dv + h * dv + c;
          Y[at] = y;
        }
      }
    }
  }
  const present = (t, width, at) => {
    const out = new Float64Array(batch * G * T * width);
    for (let b = 0; b < batch; b++) for (let g = 0; g < G; g++) for (let j = 0; j < T; j++) for (let c = 0; c < width; c++) out[((b * G + g) * T + j) * width + c] = at(b, g, j, c);
    return out;
  };
  return { Y, presentKey: present(K, d, keyAt), presentValue: present(V, dv, valueAt), qk };
}
