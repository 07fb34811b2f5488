// Attention forward + backward: lab.attentionBackward (fused, and with the weights kept) against
// tfjs-backend-wasm's autodiff (tf.grads of the same function: softmax(QKᵀ/√d)V) and plain
// JavaScript, in one Node process, one thread, float32, d = 64, self-attention n = m.
//   npm run bench:backward               (from the repository root)
//   node bench/backward.mjs --quick      (fewer, shorter rounds)
//   node bench/backward.mjs --filter=causal
// Each call goes from Float32Array Q, K, V, dO to Float32Array dQ, dK, dV (the forward included:
// attentionBackward recomputes it; tf.grads runs it to record the tape). Every implementation's
// gradients are checked against a float64 reference backward before they are timed; then the
// implementations take turns in interleaved rounds (bench/lib/timing.mjs).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { randomMatrix } from './lib/data.mjs';
import { compare } from './lib/reference.mjs';
import { fmt, fmtMs, libraryVersion, machine, table } from './lib/report.mjs';
import { measureInterleaved, warmUp } from './lib/timing.mjs';
import { createAttentionLab } from './peers/attention-lab.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const filter = args.filter ? new RegExp(args.filter, 'i') : null;
const here = path.dirname(fileURLToPath(import.meta.url));
const outFile = args.out ?? path.join(here, 'results', 'backward.json');
const timing = quick ? { warmupMs: 50, rounds: 5, budgetMs: 600, minReps: 3 } : { warmupMs: 300, rounds: 15, budgetMs: 2000, minReps: 5 };
const log = (...a) => console.error(...a);
if (!existsSync(path.join(here, '..', 'dist', 'node.js'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');

const d = 64;
const CELLS = [256, 1024].flatMap((n) => [false, true].map((causal) => ({ name: `n=${n}${causal ? ' causal' : ''}`, n, causal })));
const GOAL = 3;

// ---- the float64 reference: dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(P ∘ dP)), dQ = dS K/√d, dK = dSᵀ Q/√d

function referenceBackward({ n, causal }, { Q, K, V, dO }) {
  const s = 1 / Math.sqrt(d), dQ = new Float64Array(n * d), dK = new Float64Array(n * d), dV = new Float64Array(n * d);
  const p = new Float64Array(n), dp = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const end = causal ? i + 1 : n;
    let max = -Infinity, sum = 0, rowsum = 0;
    for (let j = 0; j < end; j++) {
      let x = 0;
      for (let t = 0; t < d; t++) x += Q.data[i * d + t] * K.data[j * d + t];
      p[j] = x * s;
      if (p[j] > max) max = p[j];
    }
    for (let j = 0; j < end; j++) sum += p[j] = Math.exp(p[j] - max);
    for (let j = 0; j < end; j++) {
      p[j] /= sum;
      let x = 0;
      for (let t = 0; t < d; t++) x += dO.data[i * d + t] * V.data[j * d + t];
      dp[j] = x;
      rowsum += p[j] * x;
    }
    for (let j = 0; j < end; j++) {
      const ds = p[j] * (dp[j] - rowsum) * s;
      for (let t = 0; t < d; t++) {
        dV[j * d + t] += p[j] * dO.data[i * d + t];
        dQ[i * d + t] += ds * K.data[j * d + t];
        dK[j * d + t] += ds * Q.data[i * d + t];
      }
    }
  }
  return [dQ, dK, dV];
}

function check(want, got) {
  for (const [k, name] of ['dQ', 'dK', 'dV'].entries()) {
    const c = compare(got[k], want[k]);
    if (!c.ok) return { ok: false, maxAbs: c.maxAbs, why: `${name} ${c.why}` };
  }
  const maxAbs = Math.max(...want.map((w, k) => compare(got[k], w).maxAbs));
  return { ok: true, maxAbs };
}

// ---- the implementations: each prepare() returns { run(): [dQ, dK, dV] as Float32Arrays }

function labRunner(impl, cell, x, fused) {
  const options = { fused, ...(cell.causal ? { mask: 'causal' } : {}) };
  return {
    run() {
      const g = impl.lab.attentionBackward(x.Q, x.K, x.V, x.dO, options);
      return [g.dQ.data, g.dK.data, g.dV.data];
    },
  };
}

// tfjs-core's Node bundle registers no gradients (the @tensorflow/tfjs union package does, with
// layers, converter and data beside them). Its ES module build has them, in
// dist/register_all_gradients.js, but imports its files without the .js extension Node requires:
// a resolve hook adds it, for that folder only. Both builds share one engine and one gradient
// registry (tfjs keeps them on the global object), so the gradients serve the Node bundle's ops.
async function importGradients() {
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier.startsWith('.') && !specifier.endsWith('.js') && context.parentURL?.includes('/@tensorflow/tfjs-core/dist/'))
      return next(specifier + '.js', context);
    return next(specifier, context);
  }`;
  const { register } = await import('node:module');
  register('data:text/javascript,' + encodeURIComponent(hook));
  await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
}

// tf.grads of f(q, k, v) = softmax(q kᵀ/√d + mask) v, with dy = dO: the vector-Jacobian product.
async function createTfjsGrads() {
  const tf = await import('@tensorflow/tfjs-core');
  await importGradients();
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'));
  wasm.setWasmPaths(dir + path.sep);
  wasm.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  const version = require('@tensorflow/tfjs-backend-wasm/package.json').version;
  const simd = tf.env().getBool('WASM_HAS_SIMD_SUPPORT');
  return {
    name: `tfjs-backend-wasm ${version} tf.grads`,
    note: `tfjs-backend-wasm ${version}: SIMD ${simd}, threads ${wasm.getThreadsCount()}`,
    prepare({ n, causal }, x) {
      let mask = null;
      if (causal) {
        const bits = new Float32Array(n * n);
        for (let i = 0; i < n; i++) bits.fill(-1e9, i * n + i + 1, (i + 1) * n);
        mask = tf.tensor2d(bits, [n, n]); // a constant, built once outside the timing
      }
      const scale = 1 / Math.sqrt(d);
      const f = (q, k, v) => {
        let s = tf.mul(tf.matMul(q, tf.transpose(k)), scale); // transpose: see bench/peers/tfjs.mjs
        if (mask) s = tf.add(s, mask);
        return tf.matMul(tf.softmax(s), v);
      };
      const grads = tf.grads(f);
      return {
        run() {
          const out = tf.tidy(() => {
            const t = (m) => tf.tensor2d(m.data, [m.rows, m.cols]);
            return grads([t(x.Q), t(x.K), t(x.V)], t(x.dO));
          });
          const data = out.map((g) => g.dataSync());
          for (const g of out) g.dispose();
          return data;
        },
        dispose: () => mask?.dispose(),
      };
    },
  };
}

// Plain JavaScript: the forward keeping P (n×m), then the backward with dP and dS as n×m arrays.
function plainJs({ n, causal }, { Q, K, V, dO }) {
  const s = 1 / Math.sqrt(d), q = Q.data, k = K.data, v = V.data, g = dO.data;
  const P = new Float32Array(n * n), dS = new Float32Array(n * n);
  const dQ = new Float32Array(n * d), dK = new Float32Array(n * d), dV = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    const end = causal ? i + 1 : n, row = i * n;
    let max = -Infinity, sum = 0, rowsum = 0;
    for (let j = 0; j < end; j++) {
      let x = 0;
      for (let t = 0; t < d; t++) x += q[i * d + t] * k[j * d + t];
      P[row + j] = x * s;
      if (P[row + j] > max) max = P[row + j];
    }
    for (let j = 0; j < end; j++) sum += P[row + j] = Math.exp(P[row + j] - max);
    for (let j = 0; j < end; j++) {
      P[row + j] /= sum;
      let x = 0;
      for (let t = 0; t < d; t++) x += g[i * d + t] * v[j * d + t];
      dS[row + j] = x; // dP for now
      rowsum += P[row + j] * x;
    }
    for (let j = 0; j < end; j++) dS[row + j] = P[row + j] * (dS[row + j] - rowsum) * s;
  }
  for (let i = 0; i < n; i++)
    for (let j = 0; j < (causal ? i + 1 : n); j++) {
      const p = P[i * n + j], ds = dS[i * n + j];
      for (let t = 0; t < d; t++) {
        dV[j * d + t] += p * g[i * d + t];
        dQ[i * d + t] += ds * k[j * d + t];
        dK[j * d + t] += ds * q[i * d + t];
      }
    }
  return [dQ, dK, dV];
}

// ---- the cells: check, then interleaved timing

const lab = await createAttentionLab({ simd: true, training: true });
if (typeof lab.lab.attentionBackward !== 'function') throw new Error('this build has no lab.attentionBackward');
const tfjs = await createTfjsGrads();
const results = [];
const loadBefore = os.loadavg();
log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}; ${tfjs.note}`);

for (const [c, cell] of CELLS.entries()) {
  if (filter && !filter.test(cell.name)) continue;
  const seed = 9000 + 100 * c;
  const x = { Q: randomMatrix(cell.n, d, seed + 1), K: randomMatrix(cell.n, d, seed + 2), V: randomMatrix(cell.n, d, seed + 3), dO: randomMatrix(cell.n, d, seed + 4) };
  const want = referenceBackward(cell, x);
  const impls = [
    { name: `${lab.name} fused`, key: 'fused', prepare: () => labRunner(lab, cell, x, true) },
    { name: `${lab.name} weights kept`, key: 'kept', prepare: () => labRunner(lab, cell, x, false) },
    { name: tfjs.name, key: 'tfjs', peer: true, prepare: () => tfjs.prepare(cell, x) },
    { name: 'plain JavaScript', key: 'js', prepare: () => ({ run: () => plainJs(cell, x) }) },
  ];
  const live = [];
  for (const impl of impls) {
    const entry = { cell: cell.name, impl: impl.name, key: impl.key };
    results.push(entry);
    try {
      const prepared = impl.prepare();
      const checked = check(want, prepared.run());
      entry.check = { ok: checked.ok, maxAbsError: checked.maxAbs };
      if (!checked.ok) throw new Error(`WRONG RESULT (${checked.why}): not timed`);
      await warmUp(prepared.run, { warmupMs: timing.warmupMs });
      live.push({ entry, prepared, run: prepared.run, slow: impl.key === 'js' && cell.n >= 1024 });
    } catch (e) {
      entry.error = e.message;
      log(`  ${cell.name} · ${impl.name}: ${e.message}`);
    }
  }
  if (live.length) await measureInterleaved(live, timing);
  for (const l of live) {
    Object.assign(l.entry, { ms: l.ms, cpuMs: l.cpuMs, reps: l.samples.length });
    l.prepared.dispose?.();
  }
  const peer = results.find((r) => r.cell === cell.name && r.key === 'tfjs' && r.ms != null);
  for (const r of results.filter((r) => r.cell === cell.name && r.ms != null)) {
    if (peer && r !== peer) [r.ratio, r.cpuRatio] = [peer.ms / r.ms, peer.cpuMs / r.cpuMs];
    log(`  ${cell.name} · ${r.impl}: ${fmtMs(r.ms)} ms (cpu ${fmtMs(r.cpuMs)}; max |error| ${r.check.maxAbsError.toExponential(1)})${r.ratio ? `, ${fmt(r.ratio)}× tfjs` : ''}`);
  }
}
const loadAfter = os.loadavg();

const rows = CELLS.filter((c) => results.some((r) => r.cell === c.name)).map((c) => {
  const of = (key) => results.find((r) => r.cell === c.name && r.key === key);
  return { cell: c.name, fused: of('fused'), kept: of('kept'), tfjs: of('tfjs'), js: of('js') };
});
const ms = (r) => (r?.ms != null ? `${fmtMs(r.ms)} [${fmtMs(r.cpuMs)}]` : r?.error ? 'wrong/failed' : '');
const ratio = (r) => (r?.ratio ? `${fmt(r.ratio)}× / ${fmt(r.cpuRatio)}×` : '');
console.log(`\nattention forward + backward (dQ, dK, dV), self-attention d = ${d}, float32, one thread: lab.attentionBackward vs ${tfjs.name} and plain JavaScript
(median wall ms [CPU ms]; ratio = tfjs / ours wall / cpu, > 1: faster; load ${loadBefore[0].toFixed(2)} → ${loadAfter[0].toFixed(2)} on ${os.cpus().length} cores)
${table(rows, [
  { title: 'cell', get: (r) => r.cell, align: 'left' },
  { title: 'fused ms', get: (r) => ms(r.fused) },
  { title: 'fused ratio', get: (r) => ratio(r.fused) },
  { title: 'weights kept ms', get: (r) => ms(r.kept) },
  { title: 'kept ratio', get: (r) => ratio(r.kept) },
  { title: 'tfjs tf.grads ms', get: (r) => ms(r.tfjs) },
  { title: 'plain JS ms', get: (r) => ms(r.js) },
  { title: `goal ≥ ${GOAL}× (fused, wall)`, get: (r) => (r.fused?.ratio == null ? '' : r.fused.ratio >= GOAL ? 'met' : 'NOT met') },
])}`);
await mkdir(path.dirname(outFile), { recursive: true });
const library = libraryVersion(path.join(here, '..'));
await writeFile(outFile, JSON.stringify({ date: new Date().toISOString(), library, machine: machine(), loadAverage: { before: loadBefore, after: loadAfter }, quick, timing, results }, null, 2) + '\n');
console.log(`\nWrote ${path.relative(process.cwd(), outFile)}`);
process.exit(0);
