// Issue 16's table in a page (bench/peers-browser.mjs): attention-lab as a page loads it (init() of
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
