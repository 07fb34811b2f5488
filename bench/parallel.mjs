// Both cores: one call on the page's thread vs the same call spread over createWorkerPool's two
// workers, against onnxruntime-web with ort.env.wasm.numThreads = 2, in one process, interleaved.
//   node bench/parallel.mjs [--quick]
// Cells: scaledDotProductAttention at n = 1,024 and 2,048 (d 64; weights returned and fused, each
// with and without a causal mask) and the packed multi-head layer (d_model 512, 8 heads, n 128 and
// 512). Every pool result is checked bit-identical to the one-thread result first, every ORT result
// against it (relative RMS); a wrong result is reported and not timed. Prints the load average and
// each entry's median CPU time per call (the whole process: the pool's and ORT's threads included),
// which shows the work a split adds where the wall times show only what the machine had free.
import os from 'node:os';

import { createWorkerPool, init } from '../dist/node.js';
import { randomMatrix } from './lib/data.mjs';
import { relRms } from './lib/reference.mjs';
import { fmt, fmtMs, machine, table } from './lib/report.mjs';
import { measureInterleaved, warmUp } from './lib/timing.mjs';
import { createOnnxRuntime } from './peers/onnxruntime.mjs';

const quick = process.argv.includes('--quick');
const SDPA_N = quick ? [1024] : [1024, 2048];
const MHA = { dModel: 512, heads: 8, n: quick ? [512] : [128, 512] };
const D = 64;
const timing = quick ? { rounds: 3, budgetMs: 600 } : { rounds: 6, budgetMs: 1500 };

const lab = await init({ fma: false }); // the deterministic SIMD build, as bench/run.mjs measures
const pool = await createWorkerPool(lab, { workers: 2 });
if (pool.workers !== 2) throw new Error(`bench/parallel: the pool has ${pool.workers} workers (${pool.reason})`);
const ort = await createOnnxRuntime({ numThreads: 2 }).catch((error) => (console.log(`onnxruntime-web: not measured (${error.message})`), null));

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`${JSON.stringify(machine())}\nattention-lab ${lab.build} build; pool of ${pool.workers} workers; ${ort?.name ?? 'no ORT'} with numThreads 2\nload average before: ${load()}`);

const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
const rows = [];

async function cell(label, single, parallel, peer, expected) {
  const one = (await single()).data;
  const split = (await parallel()).data;
  if (!same(one, split)) return rows.push({ cell: label, note: 'pool result NOT bit-identical: not timed' });
  const entries = [{ name: 'one thread', run: single }, { name: 'pool of 2', run: parallel }];
  let ortNote = '';
  if (peer) {
    const err = relRms(await peer.run(), expected ?? one);
    if (err < 1e-4) entries.push({ name: 'ORT 2 threads', run: () => peer.run() });
    else ortNote = `ORT wrong (rel. RMS ${fmt(err)}): not timed`;
  }
  for (const e of entries) await warmUp(e.run, { warmupMs: 300 });
  await measureInterleaved(entries, timing);
  const [a, b, c] = entries;
  rows.push({
    cell: label, 'one thread ms': fmtMs(a.ms), 'pool of 2 ms': fmtMs(b.ms), 'ORT 2 threads ms': fmtMs(c?.ms),
    'CPU ms one / pool / ORT': [a, b, c].map((e) => fmtMs(e?.cpuMs)).join(' / '),
    'pool ÷ one': `${fmt(a.ms / b.ms)}×`, 'ORT ÷ pool': c ? `${fmt(c.ms / b.ms)}×` : ortNote, load: os.loadavg()[0].toFixed(2),
  });
  console.log(`  ${label}: one ${fmtMs(a.ms)} ms, pool ${fmtMs(b.ms)} ms, ORT ${fmtMs(c?.ms)} ms`);
}

for (const n of SDPA_N)
  for (const weights of [true, false])
    for (const causal of [false, true]) {
      const [Q, K, V] = [randomMatrix(n, D, 1000 + n), randomMatrix(n, D, 2000 + n), randomMatrix(n, D, 3000 + n)];
      const options = { weights, mask: causal ? 'causal' : undefined };
      const peer = ort && (await ort.sdpa({ Q, K, V, causal }));
      const label = `sdpa n=${n}${weights ? ' weights' : ' fused'}${causal ? ' causal' : ''}`;
      await cell(label, async () => lab.scaledDotProductAttention(Q, K, V, options).output,
        async () => (await pool.scaledDotProductAttention(Q, K, V, options)).output, peer);
    }

const s = 1 / Math.sqrt(MHA.dModel);
const weights = {
  heads: MHA.heads,
  Wq: randomMatrix(MHA.dModel, MHA.dModel, 11, s), Wk: randomMatrix(MHA.dModel, MHA.dModel, 12, s),
  Wv: randomMatrix(MHA.dModel, MHA.dModel, 13, s), Wo: randomMatrix(MHA.dModel, MHA.dModel, 14, s),
};
const [oneLayer, poolLayer] = [lab.createMultiHeadAttention(weights), await pool.createMultiHeadAttention(weights)];
for (const n of MHA.n) {
  const X = randomMatrix(n, MHA.dModel, 20 + n);
  const peer = ort && (await ort.mhaOneShot({ X, weights }));
  await cell(`multi-head layer n=${n}`, async () => oneLayer.forward(X).output, async () => (await poolLayer.forward(X)).output, peer);
  peer?.dispose?.();
}

const COLUMNS = ['cell', 'one thread ms', 'pool of 2 ms', 'ORT 2 threads ms', 'pool ÷ one', 'ORT ÷ pool', 'CPU ms one / pool / ORT', 'load', 'note'];
console.log(`\n${table(rows, COLUMNS.map((title) => ({ title, get: (row) => row[title], align: title === 'cell' ? 'left' : 'right' })))}`);
console.log(`load average after: ${load()} (1, 5, 15 min; ${os.cpus().length} cores)`);
pool.close();
