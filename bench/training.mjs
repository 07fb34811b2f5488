// One training step of the dates model: lab's model.trainStep against the same model written with
// tfjs-core on tfjs-backend-wasm (bench/peers/tfjs-transformer.mjs), at the same batch size, in one
// Node process, one thread. The goal: ≥ 3× tfjs's steps per second.
//   npm run bench:training                (from the repository root)
//   node bench/training.mjs --quick       (fewer, shorter rounds)
//   node bench/training.mjs --scalar      (also lab's scalar build)
//   node bench/training.mjs --batch=32
// Both train on the same few seeded batches of lab.tasks.dates (cycled), so both do the same
// work per step; each takes turns in interleaved rounds (bench/lib/timing.mjs). Writes
// bench/results/training.json.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { fmt, fmtMs, libraryVersion, machine, table } from './lib/report.mjs';
import { measureInterleaved, warmUp } from './lib/timing.mjs';
import { createTfjs } from './peers/tfjs.mjs';
import { tfjsTransformer } from './peers/tfjs-transformer.mjs';
import { registerTfjsGradients } from './lib/tfjs-gradients.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const quick = 'quick' in args;
const here = path.dirname(fileURLToPath(import.meta.url));
const outFile = args.out ?? path.join(here, 'results', 'training.json');
const timing = quick ? { rounds: 3, budgetMs: 3000, minReps: 3 } : { rounds: 6, budgetMs: 12000, minReps: 5 };
const log = (...a) => console.error(...a);
if (!existsSync(path.join(here, '..', 'dist', 'node.js'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');
const { init } = await import('../dist/training-node.js');

const builds = [await init({ simd: true })];
if ('scalar' in args) builds.push(await init({ simd: false }));
const task = builds[0].tasks.dates;
const size = Number(args.batch ?? task.defaults.training.batchSize);
const batches = Array.from({ length: 4 }, (_, i) => task.batch({ seed: i + 1, size, split: 'train' }));
const sizes = { ...task.defaults.model, vocabSize: task.vocabulary.length, maxLength: Math.max(task.maxLength, task.maxSourceLength) };

const entries = [];
for (const lab of builds) {
  const model = lab.createTransformer({ task, seed: 1 });
  let i = 0;
  entries.push({ name: `attention-lab (${lab.simd ? 'SIMD' : 'scalar'})`, model, parameters: model.parameterCount, run: () => model.trainStep(batches[i++ % batches.length]) });
}
const tfjs = await createTfjs();
const tf = await import('@tensorflow/tfjs-core');
await registerTfjsGradients();
const peer = tfjsTransformer(tf, { ...sizes, seed: 1 });
let j = 0;
entries.push({ name: tfjs.name, parameters: peer.parameterCount, run: () => peer.trainStep(batches[j++ % batches.length]) });

log(`dates model ${JSON.stringify(task.defaults.model)}, batch ${size} (source ${batches[0].sourceLength}, target ${batches[0].length})`);
for (const e of entries) {
  log(`warming up ${e.name} (${e.parameters} parameters)`);
  await warmUp(e.run, { warmupMs: quick ? 500 : 2000, min: 3, maxMs: 20000 });
}
await measureInterleaved(entries, timing);
const tfMs = entries.at(-1).ms;
const columns = [
  { title: 'implementation', get: (e) => e.name, align: 'left' },
  { title: 'parameters', get: (e) => e.parameters },
  { title: 'ms/step', get: (e) => fmtMs(e.ms) },
  { title: 'cpu ms/step', get: (e) => fmtMs(e.cpuMs) },
  { title: 'steps/s', get: (e) => fmt(1000 / e.ms) },
  { title: 'vs tfjs', get: (e) => fmt(tfMs / e.ms) },
];
console.log(table(entries, columns));
console.log(tfjs.notes.join('\n'));
await mkdir(path.dirname(outFile), { recursive: true });
await writeFile(outFile, JSON.stringify({
  library: libraryVersion(path.join(here, '..')), machine: machine(), batch: size, model: task.defaults.model,
  results: entries.map((e) => ({ name: e.name, parameters: e.parameters, ms: e.ms, cpuMs: e.cpuMs, stepsPerSecond: 1000 / e.ms, vsTfjs: tfMs / e.ms, samples: e.samples })),
}, null, 2));
for (const e of entries) e.model?.dispose();
peer.dispose();
