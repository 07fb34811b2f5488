// How time and memory grow with the sequence length n: full, causal, local
// and linear attention in attention-lab (SIMD build), d = 64.
//   npm run bench:scaling                (from the repository root)
//   node bench/scaling.mjs --quick       (n up to 4096, shorter timing)
//   node bench/scaling.mjs --max=8192    (largest n)
//   node bench/scaling.mjs --out=path    (default bench/results/scaling.json)
// Each series runs in its own fresh instance of the library, n ascending, so
// the WASM memory size after a call is that call's high-water mark (memory
// only grows). A few rows of every result are checked against a float64
// reference before the point is timed.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdir, writeFile } from 'node:fs/promises';

import { randomMatrix, sampleRows } from './lib/data.mjs';
import { compare, keyRange, linearRow, windowRow } from './lib/reference.mjs';
import { fmt, fmtBytes, fmtMs, libraryVersion, machine, table } from './lib/report.mjs';
import { measure } from './lib/timing.mjs';
import { createAttentionLab } from './peers/attention-lab.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const maxN = Number(args.max ?? (quick ? 4096 : 16384));
const here = path.dirname(fileURLToPath(import.meta.url));
const library = libraryVersion(path.join(here, '..')); // read before loading dist/
const outFile = args.out ?? path.join(here, 'results', 'scaling.json');
const D = 64, WINDOW = 128;
const NS = [256, 512, 1024, 2048, 4096, 8192, 16384].filter((n) => n <= maxN);
const log = (...a) => console.error(...a);

// name, how it is called, which keys query i sees (for the check), complexity.
const SERIES = [
  { name: 'full, weights materialised', complexity: 'time O(n²d), memory O(n²)', call: (lab, q, k, v) => lab.scaledDotProductAttention(q, k, v), range: 'full', needs: 'scaledDotProductAttention' },
  { name: 'full (fused)', complexity: 'time O(n²d), memory O(nd)', call: (lab, q, k, v) => lab.scaledDotProductAttention(q, k, v, { weights: false }), range: 'full', needs: 'fused' },
  { name: 'causal (fused)', complexity: 'time O(n²d)/2, memory O(nd)', call: (lab, q, k, v) => lab.scaledDotProductAttention(q, k, v, { mask: 'causal', weights: false }), range: 'causal', needs: 'fused' },
  { name: `local w=${WINDOW}`, complexity: 'time O(nwd), memory O(nd)', call: (lab, q, k, v) => lab.localAttention(q, k, v, { window: WINDOW }), range: 'local', needs: 'localAttention' },
  { name: `local w=${WINDOW} causal`, complexity: 'time O(nwd), memory O(nd)', call: (lab, q, k, v) => lab.localAttention(q, k, v, { window: WINDOW, causal: true }), range: 'local-causal', needs: 'localAttention' },
  { name: 'linear', complexity: 'time O(nd²), memory O(nd)', call: (lab, q, k, v) => lab.linearAttention(q, k, v), range: 'linear', needs: 'linearAttention' },
  { name: 'linear causal', complexity: 'time O(nd²), memory O(nd)', call: (lab, q, k, v) => lab.linearAttention(q, k, v, { causal: true }), range: 'linear-causal', needs: 'linearAttention' },
];

function referenceRow(range, Q, K, V, i) {
  const n = Q.rows, scale = 1 / Math.sqrt(D);
  if (range === 'linear' || range === 'linear-causal') return linearRow(Q, K, V, i, range === 'linear-causal');
  if (range === 'local' || range === 'local-causal')
    return windowRow(Q, K, V, i, ...keyRange('local', i, n, n, { causal: range === 'local-causal', window: WINDOW }), scale);
  return windowRow(Q, K, V, i, 0, range === 'causal' ? i + 1 : n, scale);
}

// Median wall and CPU ms; a call over 0.8 s is timed 3 times with no further warm-up.
async function timeIt(run) {
  const t0 = performance.now();
  run();
  const slow = performance.now() - t0 > 800;
  return measure(run, slow ? { warmupMs: 0, budgetMs: 0, minReps: 3 } : { warmupMs: quick ? 50 : 150, budgetMs: quick ? 250 : 800, minReps: 3, maxReps: 50 });
}

const inputs = new Map(NS.map((n) => [n, { Q: randomMatrix(n, D, 100 + n), K: randomMatrix(n, D, 200 + n), V: randomMatrix(n, D, 300 + n) }]));
const series = [];
for (const s of SERIES) {
  const impl = await createAttentionLab({ simd: true });
  const lab = impl.lab;
  const available = s.needs === 'fused' ? impl.fused : typeof lab[s.needs] === 'function';
  const entry = { name: s.name, complexity: s.complexity, initialHeapBytes: impl.heapBytes(), points: [] };
  series.push(entry);
  if (!available) {
    entry.skipped = `${s.needs} is not in the library`;
    log(`${s.name}: skipped (${entry.skipped})`);
    continue;
  }
  for (const n of NS) {
    const { Q, K, V } = inputs.get(n);
    const point = { n };
    entry.points.push(point);
    try {
      const out = s.call(lab, Q, K, V).output.data;
      const rows = sampleRows(n, 6);
      const got = new Float32Array(rows.length * D);
      rows.forEach((i, r) => got.set(out.subarray(i * D, (i + 1) * D), r * D));
      const want = new Float64Array(rows.length * D);
      rows.forEach((i, r) => want.set(referenceRow(s.range, Q, K, V, i), r * D));
      const check = compare(got, want);
      if (!check.ok) throw new Error(`WRONG RESULT (${check.why}): not timed`);
      Object.assign(point, await timeIt(() => s.call(lab, Q, K, V)));
      point.heapBytes = impl.heapBytes();
      log(`${s.name} n=${n}: ${fmtMs(point.ms)} ms (cpu ${fmtMs(point.cpuMs)}), heap ${fmtBytes(point.heapBytes)}`);
    } catch (e) {
      point.error = e.code === 'OUT_OF_MEMORY' ? `out of memory (${e.message})` : `${e.name}: ${e.message}`;
      log(`${s.name} n=${n}: ${point.error}`);
      if (e.code === 'OUT_OF_MEMORY') break; // larger n cannot fit either
    }
  }
  lab.releaseMemory?.();
}

// Table: one row per n; per series the time, the heap, and the growth
// exponent of the time from the previous n (log2 of the ratio per doubling: 2 for O(n²), 1 for O(n)).
const info = machine();
console.log(`\nattention-lab scaling (commit ${library.commit}, dist built ${library.built}), ${new Date().toISOString()}: ${info.cpu}, ${info.cores} cores, Node ${info.node}, SIMD build, d = ${D}, load average ${os.loadavg()[0].toFixed(2)}`);
console.log('Each cell: median CPU ms per call · WASM heap after the call · exponent of the CPU time since the previous n (2 = quadratic, 1 = linear).');
console.log('CPU time, not wall time, because this machine is shared; the JSON has both (ms = wall, cpuMs = CPU).');
const cell = (s, n) => {
  const k = s.points.findIndex((p) => p.n === n), p = s.points[k];
  if (s.skipped) return 'n/a';
  if (!p) return '';
  if (p.error) return p.error.startsWith('out of memory') ? 'out of memory' : 'error';
  const prev = s.points[k - 1];
  const slope = prev?.cpuMs ? ` · ^${(Math.log2(p.cpuMs / prev.cpuMs) / Math.log2(n / prev.n)).toFixed(2)}` : '';
  return `${fmtMs(p.cpuMs)} ms · ${fmtBytes(p.heapBytes)}${slope}`;
};
console.log(table(NS, [{ title: 'n', get: (n) => n }, ...series.map((s) => ({ title: s.name, get: (n) => cell(s, n) }))]));
console.log(`\nInitial heap (fresh instance): ${fmtBytes(series[0]?.initialHeapBytes)}. Complexity: ${series.map((s) => `${s.name}: ${s.complexity}`).join('; ')}.`);
for (const s of series) if (s.skipped) console.log(`- ${s.name}: ${s.skipped}`);
// The memory goal: causal attention at n = 16384, d = 64 within a 64 MiB WASM heap.
const causal16k = series.find((s) => s.name === 'causal (fused)')?.points.find((p) => p.n === 16384);
if (causal16k?.heapBytes)
  console.log(`Memory goal: causal n = 16384 ran in a ${fmtBytes(causal16k.heapBytes)} WASM heap (goal ≤ 64 MiB: ${causal16k.heapBytes <= 64 * 2 ** 20 ? 'met' : 'NOT met'}).`);

await mkdir(path.dirname(outFile), { recursive: true });
await writeFile(outFile, JSON.stringify({ date: new Date().toISOString(), library, command: `node bench/scaling.mjs ${process.argv.slice(2).join(' ')}`.trim(), machine: info, d: D, window: WINDOW, series }, null, 2) + '\n');
console.log(`\nWrote ${path.relative(process.cwd(), outFile)}`);
