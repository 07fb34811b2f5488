// WASM (SIMD128, in Node) against the same C++ compiled natively (SSE2, no
// FMA contraction): builds bench/native with CMake, runs its Google Benchmark,
// times the same kernels through attention-lab's JS API, prints the ratio.
//   node bench/native/ratio.mjs [--quick] [--filter=regex] [--out=path] [--no-build]
// The native figure is kernel time only; the WASM figure is the public call,
// so it also pays the copies in and out of the WASM heap: the ratio is a
// lower bound of the kernels' own ratio. Both sides use the process CPU time
// (median), which a busy shared machine disturbs less than the wall clock;
// the wall-clock ratio is printed beside it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { randomMatrix } from '../lib/data.mjs';
import { fmt, fmtMs, machine, table } from '../lib/report.mjs';
import { measure } from '../lib/timing.mjs';
import { createAttentionLab } from '../peers/attention-lab.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const buildDir = path.join(root, 'build', 'bench-native');
const outFile = args.out ?? path.join(root, 'bench', 'results', 'native-ratio.json');
const log = (...a) => console.error(...a);

// Native benchmark names (Google Benchmark) and how the WASM build computes the same thing.
const D = 64, WINDOW = 128, LINFORMER_K = 256, MODEL = 512, HEADS = 8;
const CASES = [
  ...[64, 256, 1024, 2048].flatMap((n) => [0, 1].map((c) => ({ native: `BM_fused/n:${n}/causal:${c}`, kernel: 'fused', n, causal: !!c }))),
  ...(quick ? [] : [4096, 16384].map((n) => ({ native: `BM_fused/n:${n}/causal:0`, kernel: 'fused', n, causal: false }))),
  ...[64, 256, 1024].map((n) => ({ native: `BM_weights/n:${n}/causal:0`, kernel: 'weights', n, causal: false })),
  ...[1024, 4096].flatMap((n) => [0, 1].flatMap((c) => [
    { native: `BM_local/n:${n}/causal:${c}`, kernel: 'local', n, causal: !!c },
    { native: `BM_linear/n:${n}/causal:${c}`, kernel: 'linear', n, causal: !!c },
  ])),
  ...[1024, 4096].map((n) => ({ native: `BM_linformer/n:${n}`, kernel: 'linformer', n })),
  ...[128, 512].flatMap((n) => [
    { native: `BM_multi_head_layer/n:${n}`, kernel: 'mha-layer', n },
    { native: `BM_multi_head_oneshot/n:${n}`, kernel: 'mha-oneshot', n },
  ]),
].filter((c) => !args.filter || new RegExp(args.filter, 'i').test(c.native));

// ---- native ---------------------------------------------------------------------------------

if (!('no-build' in args)) {
  const cxx = spawnSync('clang++', ['--version']).status === 0 ? ['-DCMAKE_CXX_COMPILER=clang++'] : [];
  log(`building ${path.relative(root, buildDir)} (${cxx.length ? 'clang++, like em++' : 'default C++ compiler'}) …`);
  execFileSync('cmake', ['-S', here, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', ...cxx], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('cmake', ['--build', buildDir, '-j', '2'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const escape = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };
let nativeContext = null;
// One native benchmark, run on its own (median of repetitions), so native and
// WASM timings of a case are taken close together in time.
function runNative(name) {
  const json = JSON.parse(execFileSync(path.join(buildDir, 'attention-bench'), [
    `--benchmark_filter=^${escape(name)}$`, '--benchmark_format=json',
    `--benchmark_min_time=${quick ? 0.1 : 0.3}`, `--benchmark_repetitions=${quick ? 1 : 3}`, '--benchmark_report_aggregates_only=true',
  ], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] }));
  nativeContext ??= json.context;
  const b = json.benchmarks.find((x) => !x.aggregate_name || x.aggregate_name === 'median');
  if (!b) return { error: 'not run' };
  if (b.error_occurred) return { error: b.error_message };
  return { cpuMs: b.cpu_time * toMs[b.time_unit], ms: b.real_time * toMs[b.time_unit] };
}

// ---- WASM -----------------------------------------------------------------------------------

const impl = await createAttentionLab({ simd: true });
const lab = impl.lab;
const inputs = (n) => ({ Q: randomMatrix(n, D, 1000 + n), K: randomMatrix(n, D, 2000 + n), V: randomMatrix(n, D, 3000 + n) });
const s = 1 / Math.sqrt(MODEL);
const weights = { heads: HEADS, Wq: randomMatrix(MODEL, MODEL, 11, s), Wk: randomMatrix(MODEL, MODEL, 12, s), Wv: randomMatrix(MODEL, MODEL, 13, s), Wo: randomMatrix(MODEL, MODEL, 14, s) };

function wasmCall(c) {
  const { Q, K, V } = inputs(c.n);
  switch (c.kernel) {
    case 'fused':
      if (!impl.fused) return null;
      return () => lab.scaledDotProductAttention(Q, K, V, { weights: false, ...(c.causal ? { mask: 'causal' } : {}) });
    case 'weights':
      return () => lab.scaledDotProductAttention(Q, K, V);
    case 'local':
      return typeof lab.localAttention === 'function' ? () => lab.localAttention(Q, K, V, { window: WINDOW, causal: c.causal }) : null;
    case 'linear':
      return typeof lab.linearAttention === 'function' ? () => lab.linearAttention(Q, K, V, { causal: c.causal }) : null;
    case 'linformer': {
      if (typeof lab.linformerAttention !== 'function') return null;
      const E = randomMatrix(LINFORMER_K, c.n, 7, 1 / Math.sqrt(c.n)), F = randomMatrix(LINFORMER_K, c.n, 8, 1 / Math.sqrt(c.n));
      return () => lab.linformerAttention(Q, K, V, { E, F });
    }
    case 'mha-layer': {
      if (typeof lab.createMultiHeadAttention !== 'function') return null;
      const layer = lab.createMultiHeadAttention(weights), X = randomMatrix(c.n, MODEL, 20 + c.n);
      return () => layer.forward(X);
    }
    case 'mha-oneshot': {
      const X = randomMatrix(c.n, MODEL, 20 + c.n);
      return () => lab.multiHeadAttention(X, weights);
    }
  }
  return null;
}

const rows = [];
for (const c of CASES) {
  const row = { name: c.native.replace(/^BM_/, ''), native: runNative(c.native) };
  rows.push(row);
  const run = wasmCall(c);
  if (!run) {
    row.wasm = { error: 'not in the library' };
    continue;
  }
  try {
    row.wasm = await measure(run, quick ? { warmupMs: 50, budgetMs: 200 } : { warmupMs: 200, budgetMs: 800 });
  } catch (e) {
    row.wasm = { error: `${e.name}: ${e.message}` };
  }
  if (row.native.cpuMs && row.wasm.cpuMs) {
    row.ratio = row.native.cpuMs / row.wasm.cpuMs;
    row.wallRatio = row.native.ms / row.wasm.ms;
  }
  log(`${row.name}: native ${fmtMs(row.native.cpuMs)} ms, wasm ${fmtMs(row.wasm.cpuMs)} ms (cpu)`);
}

const info = machine();
console.log(`\nWASM SIMD128 vs native SSE2 (clang, -O3 -msse2 -ffp-contract=off), ${new Date().toISOString()}, ${info.cpu}, Node ${info.node}, load average ${os.loadavg()[0].toFixed(2)}`);
console.log('ratio = native time / WASM time (1 = WASM as fast as native; the goal is ≥ 0.9). CPU-time medians; WASM through the JS API, copies included.');
console.log(table(rows, [
  { title: 'kernel / shape', get: (r) => r.name, align: 'left' },
  { title: 'native ms', get: (r) => r.native.error ?? fmtMs(r.native.cpuMs) },
  { title: 'wasm ms', get: (r) => r.wasm.error ?? fmtMs(r.wasm.cpuMs) },
  { title: 'ratio', get: (r) => (r.ratio != null ? fmt(r.ratio) : '') },
  { title: 'ratio (wall)', get: (r) => (r.wallRatio != null ? fmt(r.wallRatio) : '') },
  { title: '≥ 0.9', get: (r) => (r.ratio == null ? '' : r.ratio >= 0.9 ? 'yes' : 'NO'), align: 'left' },
]));
await mkdir(path.dirname(outFile), { recursive: true });
await writeFile(outFile, JSON.stringify({ date: new Date().toISOString(), machine: info, nativeContext, rows }, null, 2) + '\n');
console.log(`\nWrote ${path.relative(process.cwd(), outFile)}`);
