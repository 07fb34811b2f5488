// lab.batchedAttention against onnxruntime-web's ONNX Attention node (opset 23), in one Node
// process, one thread, float32, d = 64, 8 query heads sharing 2 key/value heads (GQA).
//   npm run bench:batched                 (from the repository root)
//   node bench/batched.mjs --quick        (fewer, shorter rounds)
//   node bench/batched.mjs --scalar       (also the scalar build)
//   node bench/batched.mjs --filter=decode
//   node bench/batched.mjs --baseline=DIR  (also another build's dist/ folder, e.g. an earlier
//                                          commit's, timed in the same rounds: before and after)
// Cells: decode steps (one new token against a cache of 256 / 1,024 / 2,048, bottom-right
// causal; ours both through batchedAttention's pastKey/pastValue and through createKVCache's step) and prefill n = 1,024 on the fused path (weights: false): causal, with a float bias,
// with a soft cap, and causal with an offset (a second chunk of 1,024 after a cache of 1,024).
// Every result is checked against a float64 reference (sampled rows of every head) before it is
// timed; then the implementations take turns in interleaved rounds (bench/lib/timing.mjs).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { randomMatrix, sampleRows } from './lib/data.mjs';
import { compare } from './lib/reference.mjs';
import { fmt, fmtMs, libraryVersion, machine, table } from './lib/report.mjs';
import { measureInterleaved, warmUp } from './lib/timing.mjs';
import { createAttentionLab } from './peers/attention-lab.mjs';
import { createOnnxAttention } from './peers/onnx-attention.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const filter = args.filter ? new RegExp(args.filter, 'i') : null;
const here = path.dirname(fileURLToPath(import.meta.url));
const library = libraryVersion(path.join(here, '..'));
const outFile = args.out ?? path.join(here, 'results', 'batched.json');
const timing = quick ? { warmupMs: 50, rounds: 5, budgetMs: 400, minReps: 3 } : { warmupMs: 200, rounds: 15, budgetMs: 1500, minReps: 5 };
const log = (...a) => console.error(...a);
if (!existsSync(path.join(here, '..', 'dist', 'node.js'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');

const GQA = { batch: 1, heads: 8, kvHeads: 2, d: 64 };
const slope = 1 / 64; // an ALiBi-like bias: −|i − j| / 64, the same for every head (broadcast [n, keys])
const CELLS = [
  ...[256, 1024, 2048].map((past) => ({ name: `decode past=${past}`, ...GQA, n: 1, m: 1, past, causal: true })),
  { name: 'prefill n=1024', ...GQA, n: 1024, m: 1024, past: 0, causal: false },
  { name: 'prefill n=1024 causal', ...GQA, n: 1024, m: 1024, past: 0, causal: true },
  { name: 'prefill n=1024 causal + bias', ...GQA, n: 1024, m: 1024, past: 0, causal: true, bias: true },
  { name: 'prefill n=1024 causal + softcap 5', ...GQA, n: 1024, m: 1024, past: 0, causal: true, softcap: 5 },
  { name: 'prefill n=1024 causal, offset 1024 (after a cache of 1024)', ...GQA, n: 1024, m: 1024, past: 1024, causal: true },
];

// ---- inputs and the float64 reference ----------------------------------------------------------

function inputsOf(cell, seed) {
  const { batch, heads, kvHeads, n, m, past, d } = cell;
  const data = (rows, k) => randomMatrix(rows, d, seed + k).data;
  const inputs = { Q: data(batch * heads * n, 1), K: data(batch * kvHeads * m, 2), V: data(batch * kvHeads * m, 3) };
  if (past) [inputs.pastKey, inputs.pastValue] = [data(batch * kvHeads * past, 4), data(batch * kvHeads * past, 5)];
  if (cell.bias) {
    const keys = past + m, b = new Float32Array(n * keys);
    for (let i = 0; i < n; i++) for (let j = 0; j < keys; j++) b[i * keys + j] = -Math.abs(i + past - j) * slope;
    inputs.bias = b;
  }
  return inputs;
}

// Row (h, i) of batch entry 0 in float64: present keys = past ++ new; query i sees key j ≤ i + past when causal.
function referenceRow(cell, x, h, i) {
  const { heads, kvHeads, m, past, d } = cell, keys = past + m, g = Math.floor((h * kvHeads) / heads);
  const key = (j, t) => (j < past ? x.pastKey[(g * past + j) * d + t] : x.K[(g * m + j - past) * d + t]);
  const value = (j, t) => (j < past ? x.pastValue[(g * past + j) * d + t] : x.V[(g * m + j - past) * d + t]);
  const s = new Float64Array(keys).fill(-Infinity), q = (h * cell.n + i) * d;
  for (let j = 0; j < keys; j++) {
    if (cell.causal && j > i + past) continue;
    let dot = 0;
    for (let t = 0; t < d; t++) dot += x.Q[q + t] * key(j, t);
    let score = dot / Math.sqrt(d);
    if (cell.softcap) score = cell.softcap * Math.tanh(score / cell.softcap);
    s[j] = score + (x.bias ? x.bias[i * keys + j] : 0);
  }
  const max = Math.max(...s), out = new Float64Array(d);
  let sum = 0;
  for (let j = 0; j < keys; j++) sum += s[j] = Math.exp(s[j] - max);
  for (let j = 0; j < keys; j++) for (let t = 0; t < d; t++) out[t] += (s[j] / sum) * value(j, t);
  return out;
}

function checkOutput(cell, x, out) {
  const rows = sampleRows(cell.n, quick ? 6 : 16), got = [], want = [];
  for (let h = 0; h < cell.heads; h++)
    for (const i of rows) {
      got.push(...out.subarray((h * cell.n + i) * cell.d, (h * cell.n + i + 1) * cell.d));
      want.push(...referenceRow(cell, x, h, i));
    }
  return { ...compare(Float32Array.from(got), Float64Array.from(want)), rows: got.length / cell.d };
}

// ---- attention-lab: lab.batchedAttention, 4-D tensors, weights: false -------------------------

function labRunner(impl, cell, x) {
  const { batch, heads, kvHeads, n, m, past, d } = cell, t = (data, h, rows) => ({ shape: [batch, h, rows, d], data });
  const Q = t(x.Q, heads, n), K = t(x.K, kvHeads, m), V = t(x.V, kvHeads, m);
  const options = { weights: false, causal: cell.causal };
  if (cell.softcap) options.softcap = cell.softcap;
  if (x.bias) options.bias = { shape: [n, past + m], data: x.bias };
  if (past) [options.pastKey, options.pastValue] = [t(x.pastKey, kvHeads, past), t(x.pastValue, kvHeads, past)];
  return {
    run() {
      const r = impl.lab.batchedAttention(Q, K, V, options);
      if (past) [r.presentKey.data, r.presentValue.data];
      return r.output.data;
    },
  };
}

// ---- attention-lab: lab.createKVCache, the cache kept in the WASM heap between steps -------------
// Filled once with the cell's past keys and values (a prefill, untimed); each timed call is one
// cache.step (weights: false) followed by cache.truncate(past), which drops the appended token
// again (O(1): a check and the length set back), so every timed step sees exactly `past` tokens.

function cacheRunner(impl, cell, x) {
  const { batch, heads, kvHeads, past, d } = cell, t = (data, h, rows) => ({ shape: [batch, h, rows, d], data });
  const cache = impl.lab.createKVCache({ heads, kvHeads, dK: d, dV: d, capacity: past + 1, batch });
  const prompt = randomMatrix(batch * heads * past, d, 1).data; // the prompt's queries: their outputs are not used
  cache.prefill(t(prompt, heads, past), t(x.pastKey, kvHeads, past), t(x.pastValue, kvHeads, past), { weights: false });
  const q = t(x.Q, heads, 1), k = t(x.K, kvHeads, 1), v = t(x.V, kvHeads, 1);
  return {
    run() {
      const r = cache.step(q, k, v, { weights: false });
      cache.truncate(past);
      return r.output.data;
    },
    dispose: () => cache.release(),
  };
}
function hasCache(impl) { // an older build (--baseline) may have no cache, or no truncate
  if (typeof impl.lab.createKVCache !== 'function') return false;
  const probe = impl.lab.createKVCache({ heads: 1, kvHeads: 1, dK: 1, dV: 1, capacity: 1 });
  probe.release();
  return typeof probe.truncate === 'function';
}
const cacheName = (impl) => `${impl.name} createKVCache`;

// ---- one cell: check, then interleaved timing --------------------------------------------------

const labSimd = await createAttentionLab({ simd: true });
const labScalar = 'scalar' in args ? await createAttentionLab({ simd: false }) : null;
const baseline = args.baseline
  ? { name: `attention-lab SIMD baseline (${args.baseline})`, lab: await (await import(pathToFileURL(path.resolve(args.baseline, 'node.js')))).init({ simd: true }) }
  : null;
const ort = await createOnnxAttention();
const results = [];
const loadBefore = os.loadavg();
log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);

for (const [k, cell] of CELLS.entries()) {
  if (filter && !filter.test(cell.name)) continue;
  const x = inputsOf(cell, 7000 + 100 * k);
  const impls = [
    { name: labSimd.name, prepare: async () => labRunner(labSimd, cell, x) },
    ...(labScalar ? [{ name: labScalar.name, prepare: async () => labRunner(labScalar, cell, x) }] : []),
    ...(baseline ? [{ name: baseline.name, prepare: async () => labRunner(baseline, cell, x) }] : []),
    ...(cell.n === 1 && cell.past ? [labSimd, labScalar, baseline].filter((impl) => impl && hasCache(impl))
      .map((impl) => ({ name: cacheName(impl), prepare: async () => cacheRunner(impl, cell, x) })) : []),
    { name: ort.name, peer: true, prepare: () => ort.attention({ ...cell, bias: !!cell.bias }, x) },
  ];
  const live = [];
  for (const impl of impls) {
    const entry = { cell: cell.name, impl: impl.name, peer: !!impl.peer };
    results.push(entry);
    try {
      const prepared = await impl.prepare();
      const check = checkOutput(cell, x, await prepared.run());
      entry.check = { ok: check.ok, maxAbsError: check.maxAbs, rowsChecked: check.rows };
      if (!check.ok) throw new Error(`WRONG RESULT (${check.why}; max |error| ${check.maxAbs}): not timed`);
      await warmUp(prepared.run, { warmupMs: timing.warmupMs });
      live.push({ entry, prepared, run: prepared.run });
    } catch (e) {
      entry.error = e.message;
      log(`  ${cell.name} · ${impl.name}: ${e.message}`);
    }
  }
  if (live.length) await measureInterleaved(live, timing);
  for (const l of live) {
    Object.assign(l.entry, { ms: l.ms, cpuMs: l.cpuMs, reps: l.samples.length });
    await l.prepared.dispose?.();
  }
  const peer = results.find((r) => r.cell === cell.name && r.peer && r.ms != null);
  for (const r of results.filter((r) => r.cell === cell.name && !r.peer && r.ms != null)) {
    if (peer) [r.ratio, r.cpuRatio] = [peer.ms / r.ms, peer.cpuMs / r.cpuMs];
    log(`  ${cell.name} · ${r.impl}: ${fmtMs(r.ms)} ms (cpu ${fmtMs(r.cpuMs)}), ${r.ratio ? `${fmt(r.ratio)}× the peer` : ''}`);
  }
  if (peer) log(`  ${cell.name} · ${peer.impl}: ${fmtMs(peer.ms)} ms (cpu ${fmtMs(peer.cpuMs)})`);
}
const loadAfter = os.loadavg();

const cellRows = CELLS.filter((c) => results.some((r) => r.cell === c.name)).map((c) => {
  const of = (name) => results.find((r) => r.cell === c.name && r.impl === name);
  return { cell: c.name, lab: of(labSimd.name), cache: of(cacheName(labSimd)), scalar: labScalar && of(labScalar.name), base: baseline && of(baseline.name), ort: of(ort.name) };
});
const best = (r) => [r.lab, r.cache].filter((x) => x?.ratio).sort((a, b) => b.ratio - a.ratio)[0];
const ratios = (x) => (x?.ratio ? `${fmt(x.ratio)}× / ${fmt(x.cpuRatio)}×` : '');
const ms = (r) => (r?.ms != null ? `${fmtMs(r.ms)} [${fmtMs(r.cpuMs)}]` : r?.error ? 'wrong/failed' : '');
console.log(`\nlab.batchedAttention and (decode) lab.createKVCache's step, weights: false, vs ${ort.name} Attention-23, batch 1, heads 8, kvHeads 2, d 64
(median wall ms [CPU ms]; ratio = peer / attention-lab, > 1: faster; load ${loadBefore[0].toFixed(2)} → ${loadAfter[0].toFixed(2)} on ${os.cpus().length} cores)
${table(cellRows, [
  { title: 'cell', get: (r) => r.cell, align: 'left' },
  { title: 'batchedAttention ms', get: (r) => ms(r.lab) },
  { title: 'ratio wall / cpu', get: (r) => ratios(r.lab) },
  { title: 'createKVCache ms', get: (r) => ms(r.cache) },
  { title: 'ratio wall / cpu ', get: (r) => ratios(r.cache) },
  ...(labScalar ? [{ title: 'scalar ms', get: (r) => ms(r.scalar) }] : []),
  ...(baseline ? [{ title: 'baseline ms', get: (r) => ms(r.base) }, { title: 'baseline ratio', get: (r) => (r.base?.ratio ? `${fmt(r.base.ratio)}×` : '') }] : []),
  { title: 'onnxruntime ms', get: (r) => ms(r.ort) },
  { title: 'goal ≥ 1.5× (best, wall)', get: (r) => (best(r) == null ? '' : best(r).ratio >= 1.5 ? 'met' : 'NOT met') },
])}`);
await mkdir(path.dirname(outFile), { recursive: true });
await writeFile(outFile, JSON.stringify({ date: new Date().toISOString(), library, machine: machine(), loadAverage: { before: loadBefore, after: loadAfter }, quick, timing, results }, null, 2) + '\n');
console.log(`\nWrote ${path.relative(process.cwd(), outFile)}`);
process.exit(0);
