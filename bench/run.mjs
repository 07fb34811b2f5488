// attention-lab against its peers, in one Node process, one thread.
//   npm run bench                      (from the repository root; builds dist/ only when it is missing)
//   node bench/run.mjs --quick         (fewer and shorter repetitions, the largest shapes left out)
//   node bench/run.mjs --filter=tfjs   (only cases whose label matches, a case-insensitive regex;
//                                       labels look like "single-head n=1024 causal · onnxruntime-web 1.30.0")
//   node bench/run.mjs --out=path.json (default bench/results/latest.json)
// Every implementation's output is checked against a float64 reference before
// it is timed; a wrong (or failing) result is reported and not timed.
// Time = median of repeated calls after a warm-up, from Float32Array inputs to
// a Float32Array output. FLOPs: 4·n·m·d per head (causal: 2·n²·d, the useful
// half); GFLOP/s uses those counts for every implementation.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { randomMatrix, sampleRows } from './lib/data.mjs';
import { measurePeak } from './lib/peak.mjs';
import { compare, keyRange, linearRow, multiHead64, project, relRms, rmsDiff, windowRow } from './lib/reference.mjs';
import { fmt, fmtBytes, fmtMs, libraryVersion, machine, table } from './lib/report.mjs';
import { resultsMarkdown } from './lib/results-doc.mjs';
import { measureInterleaved, warmUp } from './lib/timing.mjs';
import { createAttentionLab } from './peers/attention-lab.mjs';
import { createNaive } from './peers/naive.mjs';
import { createOnnxRuntime } from './peers/onnxruntime.mjs';
import { createRuvector } from './peers/ruvector.mjs';
import { createTfjs } from './peers/tfjs.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const filter = args.filter ? new RegExp(args.filter, 'i') : null;
const here = path.dirname(fileURLToPath(import.meta.url));
const library = libraryVersion(path.join(here, '..')); // read before loading dist/
const outFile = args.out ?? path.join(here, 'results', 'latest.json');

const D = 64;
const SINGLE_N = quick ? [64, 256, 1024] : [64, 256, 1024, 2048];
const MHA = { dModel: 512, heads: 8, n: quick ? [128] : [128, 512] };
const VARIANT_N = quick ? [1024, 4096] : [1024, 4096, 16384];
const LOCAL_WINDOW = 128; // key j is visible to query i iff |i − j| < 128 (causal: 0 ≤ i − j < 128)
const LINFORMER_K = 256;
// Per implementation and shape: warm-up, then `rounds` turns sharing budgetMs (calls over 0.8 s: 3 calls).
const timing = quick ? { warmupMs: 50, rounds: 5, budgetMs: 300, minReps: 3 } : { warmupMs: 200, rounds: 15, budgetMs: 1500, minReps: 5 };

const log = (...a) => console.error(...a);

// A clean clone has no dist/: build it once (needs Emscripten, see README).
if (!existsSync(path.join(here, '..', 'dist', 'node.js'))) {
  log('dist/ is missing: building it (node scripts/build.mjs)…');
  execFileSync(process.execPath, [path.join(here, '..', 'scripts', 'build.mjs')], { stdio: 'inherit' });
}

const results = [];
const notes = [];

// ---- implementations --------------------------------------------------------------------------

async function tryCreate(label, create) {
  try {
    const impl = await create();
    notes.push(...impl.notes);
    return impl;
  } catch (e) {
    notes.push(`${label}: could not be loaded (${e.message}); its rows are missing`);
    log(`! ${label}: ${e.stack}`);
    return null;
  }
}

const labSimd = await tryCreate('attention-lab SIMD', () => createAttentionLab({ simd: true }));
const labScalar = await tryCreate('attention-lab scalar', () => createAttentionLab({ simd: false }));
const naive = await tryCreate('naive JavaScript', async () => createNaive());
const tfjs = await tryCreate('tfjs-backend-wasm', createTfjs);
const ort = await tryCreate('onnxruntime-web', createOnnxRuntime);
const ruvector = await tryCreate('ruvector-attention-wasm', () => createRuvector({ sampleRows: quick ? 4 : 8 }));
const PEERS = new Set([tfjs, ort, ruvector].filter(Boolean).map((p) => p.name));

// ---- the SIMD128 peak -------------------------------------------------------------------------

// Probed before each group and at the end; the machine is shared, so the
// ceiling is the best probe (each probe's own figure is its median of 7 runs).
const probes = [];
async function probePeak() {
  const p = await measurePeak();
  probes.push(p);
  log(`SIMD128 peak probe: ${fmt(p.gflops)} GFLOP/s wall, ${fmt(p.cpuGflops)} by CPU time`);
}
const loadBefore = os.loadavg();
await probePeak();

// ---- one shape: check every implementation, then time them in turns ---------------------------

// candidates: [{ impl, variant?, prepare: () => { run, rows?, scaleBy?, dispose?, skip? },
//               reference?, flops? }] sharing the shape's group, shape, flops and reference by default.
// reference: { rows, cols, sampled, values(rows?) → Float64Array, full? } (full: the exact
// attention on the same rows, for the approximation error of a variant).
async function runShape({ group, shape, flops, reference, extra = {} }, candidates) {
  const live = [];
  for (const c of candidates) {
    const name = c.variant ? `${c.impl.name} ${c.variant}` : c.impl.name;
    const label = `${group} ${shape} · ${name}`;
    if (filter && !filter.test(label)) continue;
    const ref = c.reference ?? reference;
    const entry = { group, shape, impl: name, peer: PEERS.has(c.impl.name), flops: c.flops ?? flops, ...extra };
    results.push(entry);
    let prepared;
    try {
      prepared = await c.prepare();
      if (prepared.skip) {
        entry.skipped = prepared.skip;
        log(`  ${label}: skipped (${prepared.skip})`);
        continue;
      }
      const t0 = performance.now();
      const out = await prepared.run();
      const firstMs = performance.now() - t0;
      const check = compare(pickRows(out, prepared.rows, ref), ref.values(prepared.rows));
      entry.check = { ok: check.ok, maxAbsError: check.maxAbs, rowsChecked: (prepared.rows ?? ref.rows).length };
      if (!check.ok) throw new Error(`WRONG RESULT (${check.why}; max |error| ${check.maxAbs}): not timed`);
      if (ref.full) {
        const got = pickRows(out, prepared.rows, ref.full), full = ref.full.values(prepared.rows);
        entry.approxError = relRms(got, full);
        entry.rmsError = rmsDiff(got, full);
      }
      const slow = firstMs > 800;
      if (!slow) await warmUp(prepared.run, { warmupMs: timing.warmupMs });
      live.push({ entry, prepared, label, run: prepared.run, slow, heapBytes: c.impl.heapBytes });
    } catch (e) {
      entry.error = e.message.startsWith('WRONG') ? e.message : `${e.name}: ${e.message}`;
      log(`  ${label}: ${entry.error}`);
      await prepared?.dispose?.();
    }
  }
  if (!live.length) return;
  try {
    await measureInterleaved(live, timing);
  } catch (e) {
    for (const l of live) l.entry.error = `${e.name} while timing: ${e.message}`;
    log(`  ${group} ${shape}: ${e.message}`);
  }
  for (const { entry, prepared, label, samples, ms, cpuMs, heapBytes } of live) {
    try {
      await prepared.dispose?.();
    } catch {}
    if (entry.error) continue;
    entry.scaleBy = prepared.scaleBy ?? 1;
    entry.ms = ms * entry.scaleBy;
    entry.minMs = Math.min(...samples) * entry.scaleBy;
    entry.cpuMs = cpuMs * entry.scaleBy;
    entry.reps = samples.length;
    entry.gflops = entry.flops / (entry.ms * 1e6);
    if (heapBytes) entry.heapBytes = heapBytes();
    log(`  ${label}: ${fmtMs(entry.ms)} ms, ${fmt(entry.gflops)} GFLOP/s${entry.scaleBy !== 1 ? ` (scaled ×${fmt(entry.scaleBy)})` : ''}`);
  }
}

// The rows of `out` that the reference covers: all (when the implementation
// computed them all) or just `rows` (when it computed only a sample).
function pickRows(out, implRows, reference) {
  if (implRows || !reference.sampled) return out;
  const cols = reference.cols, picked = new Float32Array(reference.rows.length * cols);
  reference.rows.forEach((i, r) => picked.set(out.subarray(i * cols, (i + 1) * cols), r * cols));
  return picked;
}

// A reference over rows `rows` of an n×cols result, computed row by row and cached.
function rowReference(rows, cols, rowFn, sampled) {
  const cache = new Map();
  const row = (i) => {
    if (!cache.has(i)) cache.set(i, rowFn(i));
    return cache.get(i);
  };
  return {
    rows,
    cols,
    sampled,
    values(subset = rows) {
      const out = new Float64Array(subset.length * cols);
      subset.forEach((i, r) => out.set(row(i), r * cols));
      return out;
    },
  };
}

// ---- single-head scaled dot-product attention -------------------------------------------------

log('\nSingle-head scaled dot-product attention, d = 64');
for (const n of SINGLE_N)
  for (const causal of [false, true]) {
    const shape = `n=${n}${causal ? ' causal' : ''}`;
    const Q = randomMatrix(n, D, 1000 + n), K = randomMatrix(n, D, 2000 + n), V = randomMatrix(n, D, 3000 + n);
    const all = Array.from({ length: n }, (_, i) => i);
    const reference = rowReference(all, D, (i) => windowRow(Q, K, V, i, 0, causal ? i + 1 : n, 1 / Math.sqrt(D)), false);
    const flops = causal ? 2 * n * n * D : 4 * n * n * D;
    await runShape({ group: 'single-head', shape, flops, reference, extra: { n, causal, d: D } }, [
      ...[labSimd, labScalar, naive, tfjs, ort].filter(Boolean).map((impl) => ({ impl, prepare: () => impl.sdpa({ Q, K, V, causal }) })),
      // The default call (weights returned) and, at n = 256, the traced call: the trace goal.
      ...(labSimd?.fused ? [{ impl: labSimd, variant: 'with weights', prepare: () => labSimd.sdpaWeights({ Q, K, V, causal }) }] : []),
      // onnxruntime-web asked for the weights too (not a peer row: the peers' rows return the output only).
      ...(ort && n >= 256 ? [{ impl: ort, variant: 'with weights', prepare: () => ort.sdpa({ Q, K, V, causal, weights: true }) }] : []),
      ...(labSimd && n === 256 && !causal ? [{ impl: labSimd, variant: 'traced', prepare: () => labSimd.sdpaTraced({ Q, K, V, causal }) }] : []),
      ...(ruvector ? [{ impl: ruvector, prepare: () => ruvector.sdpa({ Q, K, V, causal, rows: sampleRows(n, ruvector.sampleRows) }) }] : []),
    ]);
  }

// ---- multi-head self-attention with projections ---------------------------------------------

await probePeak();
log(`\nMulti-head self-attention with projections, d_model ${MHA.dModel}, ${MHA.heads} heads`);
{
  const s = 1 / Math.sqrt(MHA.dModel);
  const weights = {
    heads: MHA.heads,
    Wq: randomMatrix(MHA.dModel, MHA.dModel, 11, s), Wk: randomMatrix(MHA.dModel, MHA.dModel, 12, s),
    Wv: randomMatrix(MHA.dModel, MHA.dModel, 13, s), Wo: randomMatrix(MHA.dModel, MHA.dModel, 14, s),
  };
  for (const n of MHA.n) {
    const X = randomMatrix(n, MHA.dModel, 20 + n);
    const shape = `n=${n}`;
    const dk = MHA.dModel / MHA.heads;
    const flops = 4 * 2 * n * MHA.dModel * MHA.dModel + MHA.heads * 4 * n * n * dk;
    let ref = null;
    const reference = {
      rows: Array.from({ length: n }, (_, i) => i), cols: MHA.dModel, sampled: false,
      values: () => (ref ??= multiHead64(X, weights)),
    };
    await runShape({ group: 'multi-head', shape, flops, reference, extra: { n, dModel: MHA.dModel, heads: MHA.heads } }, [
      ...[labSimd, labScalar].filter(Boolean).flatMap((lab) => [
        { impl: lab, variant: 'layer (packed once)', prepare: () => lab.mhaLayer({ X, weights }) },
        { impl: lab, variant: 'one-shot', prepare: () => lab.mhaOneShot({ X, weights }) },
      ]),
      ...[naive, tfjs, ort].filter(Boolean).map((impl) => ({ impl, prepare: () => impl.mhaOneShot({ X, weights }) })),
    ]);
  }
  notes.push('ruvector-attention-wasm: no multi-head row (its WasmMultiHeadAttention has no projections and takes one query per call)');
}

// ---- efficient variants at long n ------------------------------------------------------------

await probePeak();
log(`\nVariants, d = 64 (local window ${LOCAL_WINDOW}, Linformer k = ${LINFORMER_K}); checked and compared on sampled rows`);
if (labSimd)
  for (const n of VARIANT_N) {
    const Q = randomMatrix(n, D, 4000 + n), K = randomMatrix(n, D, 5000 + n), V = randomMatrix(n, D, 6000 + n);
    const rows = sampleRows(n, 48);
    const scale = 1 / Math.sqrt(D);
    const fullRef = (causal) => rowReference(rows, D, (i) => windowRow(Q, K, V, i, 0, causal ? i + 1 : n, scale), true);
    const full = { false: fullRef(false), true: fullRef(true) };
    const pairs = (kind, causal) => {
      let p = 0;
      for (let i = 0; i < n; i++) {
        const [lo, hi] = keyRange(kind, i, n, n, { causal, window: LOCAL_WINDOW });
        p += hi - lo;
      }
      return p;
    };
    const E = randomMatrix(LINFORMER_K, n, 7000 + n, 1 / Math.sqrt(n)), F = randomMatrix(LINFORMER_K, n, 8000 + n, 1 / Math.sqrt(n));
    let KE, VF;
    const linformerRef = rowReference(rows, D, (i) => {
      KE ??= project(E, K);
      VF ??= project(F, V);
      return windowRow(Q, KE, VF, i, 0, LINFORMER_K, scale);
    }, true);
    const impl = labSimd;
    await runShape({ group: 'variants', shape: `n=${n}`, extra: { n, d: D } }, [
      ...[false, true].map((causal) => ({
        impl, variant: `full${causal ? ' causal' : ''}`, flops: causal ? 2 * n * n * D : 4 * n * n * D,
        reference: full[causal], prepare: () => impl.sdpa({ Q, K, V, causal }),
      })),
      ...[false, true].map((causal) => ({
        impl, variant: `local w=${LOCAL_WINDOW}${causal ? ' causal' : ''}`, flops: 4 * D * pairs('local', causal),
        reference: { ...rowReference(rows, D, (i) => windowRow(Q, K, V, i, ...keyRange('local', i, n, n, { causal, window: LOCAL_WINDOW }), scale), true), full: full[causal] },
        prepare: () => impl.local({ Q, K, V, window: LOCAL_WINDOW, causal }),
      })),
      ...[false, true].map((causal) => ({
        impl, variant: `linear${causal ? ' causal' : ''}`, flops: 4 * n * D * D,
        reference: { ...rowReference(rows, D, (i) => linearRow(Q, K, V, i, causal), true), full: full[causal] },
        prepare: () => impl.linear({ Q, K, V, causal }),
      })),
      {
        impl, variant: `linformer k=${LINFORMER_K}`, flops: 4 * LINFORMER_K * n * D + 4 * n * LINFORMER_K * D,
        reference: { ...linformerRef, full: full.false }, prepare: () => impl.linformer({ Q, K, V, E, F }),
      },
    ]);
  }

// ---- ratios and output ---------------------------------------------------------------------

await probePeak();
const peak = { gflops: Math.max(...probes.map((p) => p.gflops)), cpuGflops: Math.max(...probes.map((p) => p.cpuGflops)), probes, chains: 12 };
const loadAfter = os.loadavg();

for (const r of results) {
  if (r.ms == null) continue;
  const peers = results.filter((p) => p.group === r.group && p.shape === r.shape && p.peer && p.ms != null);
  const best = peers.length ? Math.min(...peers.map((p) => p.ms)) : null;
  if (best != null) r.ratioToBestPeer = best / r.ms;
  const bestCpu = peers.length ? Math.min(...peers.map((p) => p.cpuMs)) : null;
  if (bestCpu != null) r.cpuRatioToBestPeer = bestCpu / r.cpuMs;
  r.fractionOfPeak = r.gflops / peak.gflops;
  r.cpuGflops = r.flops / (r.cpuMs * 1e6);
  r.cpuFractionOfPeak = r.cpuGflops / peak.cpuGflops;
}

const print = (title, rows, columns) => rows.length && console.log(`\n${title}\n${table(rows, columns)}`);
const status = (r) => r.error ?? (r.skipped ? `skipped: ${r.skipped}` : r.check ? `ok (max err ${r.check.maxAbsError.toExponential(1)}${r.scaleBy > 1 ? `; ${r.check.rowsChecked} rows timed, ×${fmt(r.scaleBy)}` : ''})` : '');
const cols = [
  { title: 'shape', get: (r) => r.shape, align: 'left' },
  { title: 'implementation', get: (r) => r.impl, align: 'left' },
  { title: 'median ms', get: (r) => fmtMs(r.ms) },
  { title: 'GFLOP/s', get: (r) => fmt(r.gflops) },
  { title: '× best peer', get: (r) => (r.ratioToBestPeer != null ? fmt(r.ratioToBestPeer) : '') },
  { title: '% peak', get: (r) => (r.fractionOfPeak != null ? (100 * r.fractionOfPeak).toFixed(1) : '') },
  { title: 'cpu ms', get: (r) => fmtMs(r.cpuMs) },
  { title: '× best (cpu)', get: (r) => (r.cpuRatioToBestPeer != null ? fmt(r.cpuRatioToBestPeer) : '') },
  { title: '% peak (cpu)', get: (r) => (r.cpuFractionOfPeak != null ? (100 * r.cpuFractionOfPeak).toFixed(1) : '') },
  { title: 'reps', get: (r) => r.reps ?? '' },
  { title: 'check', get: status, align: 'left' },
];
const info = machine();
console.log(`\nattention-lab benchmark (commit ${library.commit}, dist built ${library.built}), ${new Date().toISOString()}: ${info.cpu}, ${info.cores} cores, Node ${info.node} (V8 ${info.v8}), one thread, float32`);
console.log(`SIMD128 peak probe (12 independent f32x4 mul+add chains), best of ${probes.length} probes: ${fmt(peak.gflops)} GFLOP/s by the wall clock (${probes.map((p) => fmt(p.gflops)).join(', ')}), ${fmt(peak.cpuGflops)} by CPU time (${probes.map((p) => fmt(p.cpuGflops)).join(', ')})`);
console.log(`Load average (1 min) before / after: ${loadBefore[0].toFixed(2)} / ${loadAfter[0].toFixed(2)} on ${info.cores} cores${Math.max(loadBefore[0], loadAfter[0]) > 1.5 ? ' — the machine was busy: timings are noisy; implementations of a shape are timed in turns so the ratios suffer less' : ''}`);
console.log(`median ms = wall clock; cpu ms = process CPU time per call (median). "× best peer" = best peer's time / this time (peers: ${[...PEERS].join(', ')}); > 1 is faster than every peer.`);
print('Single-head scaled dot-product attention, d = 64', results.filter((r) => r.group === 'single-head'), cols);
print(`Multi-head self-attention with projections, d_model ${MHA.dModel}, ${MHA.heads} heads`, results.filter((r) => r.group === 'multi-head'), cols);
print(`Variants (attention-lab SIMD), d = 64, local window ${LOCAL_WINDOW}, Linformer k = ${LINFORMER_K} (E, F random N(0, 1/n)).
Approximation error against exact attention on the same inputs (48 sampled rows; causal variants against causal attention):
rms err = RMS of (variant − full), in units of V (V is N(0, 1)); rel err = ‖variant − full‖ / ‖full‖. With random N(0, 1) inputs
full attention is nearly uniform, so its output is small (≈ 1/√n) and the relative error is large and grows with n: these figures
describe unstructured data, not a trained model's. heap = the WASM memory size after the shape (it never shrinks, so it is the
high-water mark of the run so far; bench/scaling.mjs measures each series in a fresh instance).`,
  results.filter((r) => r.group === 'variants'),
  [...cols.slice(0, 4), { title: 'rms err', get: (r) => (r.rmsError != null ? r.rmsError.toExponential(2) : '') },
    { title: 'rel err', get: (r) => (r.approxError != null ? r.approxError.toExponential(2) : '') },
    { title: 'heap', get: (r) => fmtBytes(r.heapBytes) }, ...cols.slice(6, 7), ...cols.slice(9)]);

// The issue's goals, as measured ratios.
const find = (group, shape, name) => results.find((r) => r.group === group && r.shape === shape && r.impl === name && r.ms != null);
const goals = [];
const goal = (text, value, target, unit = '×', cpu = null, atMost = false) => {
  const ok = (v) => (v == null ? null : atMost ? v <= target : v >= target);
  if (value != null || cpu != null) goals.push({ goal: text, measured: value, cpu, target, atMost, met: ok(value), cpuMet: ok(cpu), unit });
};
const peerName = (prefix) => [...PEERS].find((p) => p.startsWith(prefix));
// The performance goals. The default call returns the n×n weights as well; the peers' rows compute the
// output only, so its ratio is the work a reader of our docs asks for against the peers' fastest.
for (const causal of [false, true]) {
  const suffix = causal ? ' causal' : '';
  for (const n of SINGLE_N.filter((n) => n >= 256)) {
    const r = find('single-head', `n=${n}${suffix}`, 'attention-lab SIMD with weights');
    goal(`default call (weights returned) n=${n}${suffix}: vs best peer`, r?.ratioToBestPeer, causal ? 2 : 1.5, '×', r?.cpuRatioToBestPeer);
    const o = find('single-head', `n=${n}${suffix}`, `${peerName('onnxruntime-web')} with weights`);
    if (o && r) notes.push(`the default call n=${n}${suffix} against onnxruntime-web asked for the weights too (the same work): ${fmt(o.ms / r.ms)}× wall, ${fmt(o.cpuMs / r.cpuMs)}× CPU`);
  }
  for (const n of SINGLE_N.filter((n) => n >= 256)) {
    const r = find('single-head', `n=${n}${suffix}`, 'attention-lab SIMD');
    goal(`fused (weights: false) n=${n}${suffix}: vs best peer`, r?.ratioToBestPeer, causal ? 2.5 : 1.5, '×', r?.cpuRatioToBestPeer);
  }
}
for (const n of SINGLE_N.filter((n) => n >= 1024)) {
  const r = find('single-head', `n=${n}`, 'attention-lab SIMD');
  goal(`fused n=${n}: fraction of the SIMD128 multiply-add peak`, r?.fractionOfPeak, 0.8, '', r?.cpuFractionOfPeak);
}
for (const n of MHA.n) {
  const o = find('multi-head', `n=${n}`, peerName('onnxruntime-web'));
  const layer = find('multi-head', `n=${n}`, 'attention-lab SIMD layer (packed once)');
  goal(`packed multi-head layer n=${n}: vs onnxruntime-web`, o && layer ? o.ms / layer.ms : null, 1.5, '×', o && layer ? o.cpuMs / layer.cpuMs : null);
}
for (const n of SINGLE_N) {
  const s = find('single-head', `n=${n}`, 'attention-lab scalar'), j = find('single-head', `n=${n}`, 'naive JavaScript');
  goal(`single-head n=${n}: scalar build vs naive JavaScript`, s && j ? j.ms / s.ms : null, 8, '×', s && j ? j.cpuMs / s.cpuMs : null);
}
{
  const plain = find('single-head', 'n=256', 'attention-lab SIMD with weights'), traced = find('single-head', 'n=256', 'attention-lab SIMD traced');
  goal('trace n=256: traced / untraced (with weights) time', plain && traced ? traced.ms / plain.ms : null, 1.5, '×', plain && traced ? traced.cpuMs / plain.cpuMs : null, true);
}
const show = (g, v) => (v != null ? (g.unit ? `${fmt(v)}×` : `${(100 * v).toFixed(0)}%`) : 'n/a');
const yes = (m) => (m == null ? '-' : m ? 'yes' : 'NO');
if (goals.length)
  console.log(`\nThe performance goals, measured in this run in Node (Chromium: node bench/peers-browser.mjs; both cores: node bench/parallel.mjs; init: node bench/init.mjs)\n${table(goals, [
    { title: 'goal', get: (g) => g.goal, align: 'left' },
    { title: 'wall', get: (g) => show(g, g.measured) },
    { title: 'cpu', get: (g) => show(g, g.cpu) },
    { title: 'target', get: (g) => `${g.atMost ? '≤' : '≥'} ${g.unit ? `${g.target}×` : `${100 * g.target}%`}` },
    { title: 'met (wall / cpu)', get: (g) => `${yes(g.met)} / ${yes(g.cpuMet)}`, align: 'left' },
  ])}`);
if (notes.length) console.log(`\nNotes\n${notes.map((n) => `- ${n}`).join('\n')}`);

await mkdir(path.dirname(outFile), { recursive: true });
const command = `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim();
const file = { date: new Date().toISOString(), library, command, machine: info, loadAverage: { before: loadBefore, after: loadAfter }, quick, filter: args.filter ?? null, peak, notes, goals, results };
await writeFile(outFile, JSON.stringify(file, null, 2) + '\n');
const mdFile = outFile.replace(/\.json$/, '') + '.md';
await writeFile(mdFile, resultsMarkdown(file));
console.log(`\nWrote ${path.relative(process.cwd(), outFile)} and ${path.relative(process.cwd(), mdFile)}`);
tfjs?.dispose?.();
process.exit(0);
