// The wall time from lab.createTransformer to ≥ 99 % validation exact match on lab.tasks.dates
// (issue 13's goal: ≤ 60 s on a 2-core machine, one thread), in Node.
//   node bench/train-dates.mjs                 (the task's default model and training settings)
//   node bench/train-dates.mjs --scalar        (the scalar build)
//   node bench/train-dates.mjs --limit=120     (give up after this many seconds; default 300)
//   node bench/train-dates.mjs --every=100 --validation=8 --seed=1 --batch=64 --lr=0.001 --warmup=100
// Measured 2026-12-01 (2 cores, lightly loaded, SIMD): --lr=0.003 --warmup=200 reaches 99.2 % greedy
// exact match at step 1700 in 207 s (8.5 steps/s); the task's defaults (0.001, 100) were at 97.1 %
// after 2300 steps. The same seed gives the same curve, run after run.
// Each step trains on a fresh seeded batch of the train split; the learning rate warms up
// linearly, then decays as 1/√step. Every `every` steps the validation split is scored with
// teacher forcing (model.evaluate's exactMatch, which equals greedy decoding's); once that reaches
// the goal it is decoded greedily (model.generate) and checked with task.check, and the clock stops
// at the first greedy check ≥ the goal. The time includes every check. Prints one JSON line at the end.
import { init } from '../dist/training-node.js';

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

// The validation split: 8 seeded batches (512 examples with batch 64).
const validation = Array.from({ length: number('validation', 8) }, (_, i) => task.batch({ seed: 1000 + i, size: batchSize, split: 'validation' }));

// Teacher-forced exact match: a row is right when every counted position (its EOS included) is
// predicted right, which is exactly when greedy decoding reproduces it; cheap to check often.
function teacherForcedExactMatch(model) {
  let right = 0;
  let rows = 0;
  for (const b of validation) {
    right += model.evaluate(b).exactMatch * b.size;
    rows += b.size;
  }
  return right / rows;
}

// The goal's own measure: greedy decoding (model.generate) of every validation source, checked by task.check.
function greedyExactMatch(model) {
  let right = 0;
  let rows = 0;
  for (const b of validation)
    for (const e of b.examples) {
      rows++;
      if (task.check(e.source, model.generate(task.encode(e.source)).text)) right++;
    }
  return right / rows;
}

const rate = (step) => peak * Math.min(step / warmup, Math.sqrt(warmup / step));
const log = (...a) => console.error(...a);
const start = performance.now();
const overrides = Object.fromEntries(['dModel', 'heads', 'dFF', 'encoderLayers', 'decoderLayers'].filter((k) => k in args).map((k) => [k, Number(args[k])]));
if ('norm' in args) overrides.norm = args.norm;
const model = lab.createTransformer({ task, seed: number('seed', 1), ...overrides });
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
  exact = teacherForcedExactMatch(model);
  if (exact >= task.goal.value) exact = greedyExactMatch(model);
  const t2 = performance.now();
  trainMs += t1 - t0;
  checkMs += t2 - t1;
  curve.push({ step, loss: +result.loss.toFixed(4), exactMatch: exact, seconds: +((t2 - start) / 1000).toFixed(1) });
  log(`step ${step}  loss ${result.loss.toFixed(4)}  validation exact match ${(100 * exact).toFixed(1)} %  ${((t2 - start) / 1000).toFixed(1)} s`);
  if (exact >= task.goal.value) break;
}
const seconds = (performance.now() - start) / 1000;
const sample = validation[0].examples.slice(0, 3).map((e) => ({ source: e.source, output: model.generate(task.encode(e.source)).text }));
console.log(JSON.stringify({
  build: lab.simd ? 'simd' : 'scalar', reached: exact >= task.goal.value, exactMatch: exact, steps: step, seconds: +seconds.toFixed(1),
  trainSeconds: +(trainMs / 1000).toFixed(1), checkSeconds: +(checkMs / 1000).toFixed(1), stepsPerSecond: +(step / (trainMs / 1000)).toFixed(1),
  batchSize, learningRate: peak, warmup, model: { ...sizes, ...overrides }, parameters: model.parameterCount, validation: validation.length * batchSize, sample, curve,
}));
model.dispose();
