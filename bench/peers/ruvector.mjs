// ruvector-attention-wasm: one query per call (scaled_dot_attention(query,
// keys, values) with keys and values as JS arrays of row vectors, serialised
// across the boundary on every call). A full n-query run costs minutes at
// n = 2048, so this peer is timed on a SUBSET of query rows, evenly spread,
// and the time is scaled by n / rows; the runner prints the scaling.
// The row arrays are views built once outside the timing.
import { readFile } from 'node:fs/promises';

export async function createRuvector({ sampleRows = 8 } = {}) {
  const rv = await import('ruvector-attention-wasm');
  const dir = new URL('../node_modules/ruvector-attention-wasm/', import.meta.url);
  rv.initSync({ module: await readFile(new URL('ruvector_attention_wasm_bg.wasm', dir)) });
  const version = JSON.parse(await readFile(new URL('package.json', dir))).version;
  const rowsOf = (M) => Array.from({ length: M.rows }, (_, i) => M.data.subarray(i * M.cols, (i + 1) * M.cols));
  return {
    name: `ruvector-attention-wasm ${version}`,
    notes: [`ruvector-attention-wasm ${version}: timed on ${sampleRows} evenly spread query rows per shape, scaled by n / ${sampleRows}`],
    sampleRows,
    sdpa({ Q, K, V, causal, rows }) {
      const q = rowsOf(Q), k = rowsOf(K), v = rowsOf(V), dv = V.cols;
      const scale = 1 / Math.sqrt(Q.cols);
      // Causal: query i gets the prefix of keys 0..i (slices of the row arrays, built once).
      const keys = rows.map((i) => (causal ? k.slice(0, i + 1) : k));
      const values = rows.map((i) => (causal ? v.slice(0, i + 1) : v));
      return {
        rows,
        scaleBy: Q.rows / rows.length,
        run() {
          const out = new Float32Array(rows.length * dv);
          rows.forEach((i, r) => out.set(rv.scaled_dot_attention(q[i], keys[r], values[r], scale), r * dv));
          return out;
        },
      };
    },
  };
}
