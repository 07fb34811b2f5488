// The peer table in a page (bench/peers-browser.mjs): attention-lab as a page loads it (init() of
// dist/index.js, so the FMA build where relaxed SIMD ships, or the build `initOptions` asks for)
// against tfjs-backend-wasm (XNNPACK, SIMD, one thread) and onnxruntime-web (wasm, one thread),
// loaded in the same page. Cells: the default call (weights returned) and `weights: false`, causal
// or not, at n = 256, 1,024, 2,048, d = 64. Every implementation's output is checked on 16 sampled
// rows against float64 first; then the implementations of one cell take turns in interleaved rounds
// (a change in machine load hits them alike) and the median per call is reported.
// Runs in the page only: `tf` and `ort` are the globals of their UMD bundles, added by the driver.
import { init } from '../../dist/index.js';
import { randomMatrix, sampleRows } from './data.mjs';
import { compare, keyRange, windowRow } from './reference.mjs';

const D = 64;
const now = () => performance.now();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

function causalBits(n) {
  const bits = new Float32Array(n * n);
  for (let i = 0; i < n; i++) bits.fill(-1e9, i * n + i + 1, (i + 1) * n);
  return bits;
}

// tfjs-backend-wasm as bench/peers/tfjs.mjs drives it: K transposed explicitly, mask added.
async function tfjsPeer(base) {
  const { tf } = globalThis;
  tf.wasm.setWasmPaths(`${base}/bench/node_modules/@tensorflow/tfjs-backend-wasm/dist/`);
  tf.wasm.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  const masks = new Map();
  return {
    name: `tfjs-backend-wasm ${tf.version_core} (SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.wasm.getThreadsCount()})`,
    prepare({ Q, K, V, causal }) {
      if (causal && !masks.has(Q.rows)) masks.set(Q.rows, tf.tensor2d(causalBits(Q.rows), [Q.rows, Q.rows]));
      const mask = causal ? masks.get(Q.rows) : null;
      return () => {
        const out = tf.tidy(() => {
          const q = tf.tensor2d(Q.data, [Q.rows, D]), k = tf.tensor2d(K.data, [K.rows, D]), v = tf.tensor2d(V.data, [V.rows, D]);
          let s = tf.mul(tf.matMul(q, tf.transpose(k)), 1 / Math.sqrt(D));
          if (mask) s = tf.add(s, mask);
          return tf.matMul(tf.softmax(s), v);
        });
        const data = out.dataSync();
        out.dispose();
        return data;
      };
    },
  };
}

// onnxruntime-web with the graphs of bench/peers/onnx-graph.mjs (built by the driver in Node).
async function ortPeer(base, models) {
  const { ort } = globalThis;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = `${base}/bench/node_modules/onnxruntime-web/dist/`;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const sessions = {};
  for (const [key, bytes] of Object.entries(models)) sessions[key] = await ort.InferenceSession.create(new Uint8Array(bytes), options);
  return {
    name: `onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, numThreads ${ort.env.wasm.numThreads})`,
    prepare({ Q, K, V, causal }) {
      const session = sessions[causal ? 'causal' : 'full'];
      const mask = causal ? new ort.Tensor('float32', causalBits(Q.rows), [Q.rows, Q.rows]) : null;
      return async () => {
        const feeds = { Q: new ort.Tensor('float32', Q.data, [Q.rows, D]), K: new ort.Tensor('float32', K.data, [K.rows, D]), V: new ort.Tensor('float32', V.data, [V.rows, D]) };
        if (mask) feeds.mask = mask;
        const { output } = await session.run(feeds);
        const data = output.data;
        output.dispose?.();
        return data;
      };
    },
  };
}

function check(name, data, { n, causal }, Q, K, V) {
  const got = [], want = [];
  for (const i of sampleRows(n, 16)) {
    const [lo, hi] = keyRange('full', i, n, n, { causal });
    want.push(...windowRow(Q, K, V, i, lo, hi, 1 / Math.sqrt(D)));
    got.push(...data.subarray(i * D, (i + 1) * D));
  }
  const r = compare(got, want, { atol: 1e-4, rtol: 1e-3 });
  if (!r.ok) throw new Error(`${name}, n = ${n}${causal ? ' causal' : ''}: wrong result, ${r.why}`);
}

// Median ms per call; a sample is a batch of calls lasting >= 10 ms (the page's clock is coarse).
async function interleave(entries, { rounds, turnMs }) {
  for (const e of entries) {
    const t = now();
    await e.run();
    e.batch = Math.max(1, Math.ceil(10 / Math.max(now() - t, 0.01)));
    e.samples = [];
  }
  for (let r = 0; r < rounds; r++)
    for (const e of entries) {
      const t0 = now();
      do {
        const t = now();
        for (let k = 0; k < e.batch; k++) await e.run();
        e.samples.push((now() - t) / e.batch);
      } while (now() - t0 < turnMs);
    }
  for (const e of entries) e.ms = median(e.samples);
}

/**
 * @param {{ base: string, models: { full: number[], causal: number[] }, quick?: boolean, initOptions?: object, log?: Function }} options
 * @returns {Promise<{ build: string, peers: string[], rows: object[] }>}
 */
export async function peersTable({ base, models, quick = false, initOptions, log = () => {} }) {
  const lab = await init(initOptions);
  const peers = [await tfjsPeer(base), await ortPeer(base, models)];
  const rows = [];
  for (const n of quick ? [1024] : [256, 1024, 2048])
    for (const causal of [false, true]) {
      const [Q, K, V] = [1, 2, 3].map((k) => randomMatrix(n, D, 1000 * n + k));
      const peerEntries = peers.map((p) => ({ name: p.name, run: p.prepare({ Q, K, V, causal }) }));
      for (const e of peerEntries) check(e.name, await e.run(), { n, causal }, Q, K, V);
      const ours = [true, false].map((weights) => {
        const options = { ...(causal ? { mask: 'causal' } : {}), ...(weights ? {} : { weights: false }) };
        const run = () => lab.scaledDotProductAttention(Q, K, V, options).output.data;
        check(`attention-lab ${lab.build}`, run(), { n, causal }, Q, K, V);
        return { name: weights ? 'weights returned' : 'weights: false', run };
      });
      const entries = [...ours, ...peerEntries];
      for (const e of entries) for (let t0 = now(); now() - t0 < (quick ? 100 : 300); ) await e.run(); // warm-up: V8 tiers up
      await interleave(entries, quick ? { rounds: 5, turnMs: 60 } : { rounds: 15, turnMs: 100 });
      const best = Math.min(...peerEntries.map((e) => e.ms));
      const row = { n, causal, ours: ours.map((e) => ({ call: e.name, ms: e.ms, ratio: best / e.ms })), peers: peerEntries.map((e) => ({ name: e.name, ms: e.ms })) };
      log(`n=${n}${causal ? ' causal' : ''}: ${[...ours, ...peerEntries].map((e) => `${e.name} ${e.ms.toFixed(2)} ms`).join(', ')}; ratio ${row.ours.map((o) => o.ratio.toFixed(2)).join(' / ')}`);
      rows.push(row);
    }
  return { build: lab.build, peers: peers.map((p) => p.name), rows };
}

// ---- the prefill cells: lab.batchedAttention (fused) against one ONNX Attention node (opset 23) ----
const GQA = { heads: 8, kvHeads: 2, n: 1024 };

// Row (h, i) in float64: query head h reads key/value head ⌊h·kvHeads/heads⌋; causal: keys j ≤ i.
function gqaRow(x, h, i, causal) {
  const { heads, kvHeads, n } = GQA, g = Math.floor((h * kvHeads) / heads), keys = causal ? i + 1 : n;
  const s = new Float64Array(keys);
  for (let j = 0; j < keys; j++) {
    let dot = 0;
    for (let t = 0; t < D; t++) dot += x.Q[(h * n + i) * D + t] * x.K[(g * n + j) * D + t];
    s[j] = dot / Math.sqrt(D);
  }
  const max = Math.max(...s), out = new Float64Array(D);
  let sum = 0;
  for (let j = 0; j < keys; j++) sum += s[j] = Math.exp(s[j] - max);
  for (let j = 0; j < keys; j++) for (let t = 0; t < D; t++) out[t] += (s[j] / sum) * x.V[(g * n + j) * D + t];
  return out;
}

function checkGqa(name, out, x, causal) {
  const got = [], want = [];
  for (let h = 0; h < GQA.heads; h++)
    for (const i of sampleRows(GQA.n, 16)) {
      got.push(...out.subarray((h * GQA.n + i) * D, (h * GQA.n + i + 1) * D));
      want.push(...gqaRow(x, h, i, causal));
    }
  const r = compare(got, want, { atol: 1e-4, rtol: 1e-3 });
  if (!r.ok) throw new Error(`${name}, prefill${causal ? ' causal' : ''}: wrong result, ${r.why}`);
}

/**
 * Prefill n = 1,024, batch 1, 8 query heads over 2 key/value heads, d = 64, not causal and causal:
 * lab.batchedAttention(…, { weights: false }) against onnxruntime-web running models.{full,causal}
 * (bench/peers/onnx-attention.mjs's attentionModel, built by the driver).
 */
export async function prefillTable({ base, models, quick = false, initOptions, log = () => {} }) {
  const { ort } = globalThis;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = `${base}/bench/node_modules/onnxruntime-web/dist/`;
  ort.env.logLevel = 'error';
  const lab = await init(initOptions);
  const { heads, kvHeads, n } = GQA;
  const rows = [];
  for (const causal of [false, true]) {
    const x = { Q: randomMatrix(heads * n, D, 15001).data, K: randomMatrix(kvHeads * n, D, 15002).data, V: randomMatrix(kvHeads * n, D, 15003).data };
    const session = await ort.InferenceSession.create(new Uint8Array(models[causal ? 'causal' : 'full']), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const t = (data, h) => ({ shape: [1, h, n, D], data });
    const ours = () => lab.batchedAttention(t(x.Q, heads), t(x.K, kvHeads), t(x.V, kvHeads), { weights: false, causal }).output.data;
    const peer = async () => {
      const feeds = { Q: new ort.Tensor('float32', x.Q, [1, heads, n, D]), K: new ort.Tensor('float32', x.K, [1, kvHeads, n, D]), V: new ort.Tensor('float32', x.V, [1, kvHeads, n, D]) };
      return (await session.run(feeds)).Y.data;
    };
    checkGqa(`attention-lab ${lab.build}`, ours(), x, causal);
    checkGqa('onnxruntime-web', await peer(), x, causal);
    const entries = [{ name: `attention-lab ${lab.build}`, run: ours }, { name: 'onnxruntime-web Attention-23', run: peer }];
    for (const e of entries) for (let t0 = now(); now() - t0 < (quick ? 200 : 600); ) await e.run();
    await interleave(entries, quick ? { rounds: 5, turnMs: 150 } : { rounds: 15, turnMs: 300 });
    const row = { causal, ours: entries[0].ms, ort: entries[1].ms, ratio: entries[1].ms / entries[0].ms };
    log(`prefill n=1024${causal ? ' causal' : ''}: ${entries.map((e) => `${e.name} ${e.ms.toFixed(1)} ms`).join(', ')}; ratio ${row.ratio.toFixed(2)}`);
    rows.push(row);
    await session.release();
  }
  return { build: lab.build, rows };
}
