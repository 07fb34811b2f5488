// The wall time from lab.createTransformer to ≥ 99 % validation exact match on lab.tasks.dates
// (issue 13's goal: ≤ 60 s on a 2-core machine, one thread), in Node.
//   node bench/train-dates.mjs                 (the task's default model and training settings)
//   node bench/train-dates.mjs --scalar        (the scalar build)
//   node bench/train-dates.mjs --limit=120     (give up after this many seconds; default 300)
//   node bench/train-dates.mjs --every=100 --validation=500 --seed=1
// Each step trains on a fresh seeded batch of the train split; the learning rate warms up
// linearly, then decays as 1/√step. Every `every` steps the validation split is decoded greedily
// (model.generate) and checked with task.check; the clock stops at the first check ≥ the goal.
// The time includes those checks. Prints one JSON line at the end.
import { init } from '../dist/node.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
const number = (name, fallback) => (args[name] === undefined ? fallback : Number(args[name]));
const lab = await init({ simd: !('scalar' in args) });
const task = lab.tasks.dates;
const { training, model: sizes } = task.defaults;
const every = number('every', 100);
const limitMs = number('limit', 300) * 1000;
const batchSize = number('batch', training.batchSize);
const peak = number('lr', training.learningRate);
const warmup = number('warmup', training.warmup);

// The validation examples, encoded once (their text is what task.check reads).
const validation = task.batch({ seed: 12345, size: number('validation', 500), split: 'validation' }).examples
  .map((e) => ({ ...e, ids: task.encode(e.source) }));

function greedyExactMatch(model) {
  let right = 0;
  for (const e of validation) if (task.check(e.source, model.generate(e.ids).text)) right++;
  return right / validation.length;
}

const rate = (step) => peak * Math.min(step / warmup, Math.sqrt(warmup / step));
const log = (...a) => console.error(...a);
const start = performance.now();
const model = lab.createTransformer({ task, seed: number('seed', 1) });
let step = 0;
let exact = 0;
let trainMs = 0;
let checkMs = 0;
const curve = [];
while (performance.now() - start < limitMs) {
  const t0 = performance.now();
  let result;
  for (let i = 0; i < every; i++) {
    step++;
    result = model.trainStep(task.batch({ seed: step, size: batchSize, split: 'train' }), { learningRate: rate(step), clipNorm: training.clipNorm });
    if (result.diverged) throw new Error(`diverged at step ${result.step}`);
  }
  const t1 = performance.now();
  exact = greedyExactMatch(model);
  const t2 = performance.now();
  trainMs += t1 - t0;
  checkMs += t2 - t1;
  curve.push({ step, loss: +result.loss.toFixed(4), exactMatch: exact, seconds: +((t2 - start) / 1000).toFixed(1) });
  log(`step ${step}  loss ${result.loss.toFixed(4)}  validation exact match ${(100 * exact).toFixed(1)} %  ${((t2 - start) / 1000).toFixed(1)} s`);
  if (exact >= task.goal.value) break;
}
const seconds = (performance.now() - start) / 1000;
const sample = validation.slice(0, 3).map((e) => ({ source: e.source, output: model.generate(e.ids).text }));
console.log(JSON.stringify({
  build: lab.simd ? 'simd' : 'scalar', reached: exact >= task.goal.value, exactMatch: exact, steps: step, seconds: +seconds.toFixed(1),
  trainSeconds: +(trainMs / 1000).toFixed(1), checkSeconds: +(checkMs / 1000).toFixed(1), stepsPerSecond: +(step / (trainMs / 1000)).toFixed(1),
  batchSize, model: sizes, parameters: model.parameterCount, validation: validation.length, sample, curve,
}));
model.dispose();
