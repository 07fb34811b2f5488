// The wall time from lab.createTransformer to a task's validation goal (the goal: dates ≥ 99 % greedy
// exact match in ≤ 60 s on a 2-core machine, one thread), in Node. The loop is bench/lib/train-to-goal.mjs;
// bench/train-browser.mjs runs the same loop in Chromium.
//   node bench/train.mjs                        (dates, the task's default model and training settings)
//   node bench/train.mjs --task=reverse         (dates, reverse, grammar, repeat; --task=all: each in turn)
//   node bench/train.mjs --scalar               (the scalar build)
//   node bench/train.mjs --seed=2 --batch=64 --lr=0.003 --warmup=200 --steps=2000 (where the cosine ends)
//   node bench/train.mjs --dModel=64 --heads=4 --dFF=128 --encoderLayers=2 --decoderLayers=2 --norm=post
//   node bench/train.mjs --every=100 --validation=8 --limit=300 (seconds before giving up) --maxSteps=2000
// Prints a line per check on stderr and one JSON line per task on stdout.
import { pathToFileURL } from 'node:url';

import { trainToGoal } from './lib/train-to-goal.mjs';

const TASKS = ['dates', 'reverse', 'grammar', 'repeat'];

export function parseTrainingArgs(argv) {
  const args = Object.fromEntries(argv.map((a) => a.replace(/^--/, '').split(/=(.*)/s).slice(0, 2)));
  const number = (name) => (args[name] === undefined ? undefined : Number(args[name]));
  const model = {};
  for (const k of ['dModel', 'heads', 'dFF', 'encoderLayers', 'decoderLayers']) if (k in args) model[k] = Number(args[k]);
  if ('norm' in args) model.norm = args.norm;
  const task = args.task ?? 'dates';
  if (task !== 'all' && !TASKS.includes(task)) throw new Error(`--task must be one of ${TASKS.join(', ')} or all, got ${task}`);
  return {
    tasks: task === 'all' ? TASKS : [task],
    simd: !('scalar' in args),
    options: {
      seed: number('seed'), batchSize: number('batch'), learningRate: number('lr'), warmup: number('warmup'),
      steps: number('steps'), maxSteps: number('maxSteps'), every: number('every'), validation: number('validation'), limitSeconds: number('limit'), model,
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { init } = await import('../dist/training-node.js');
  const { tasks, simd, options } = parseTrainingArgs(process.argv.slice(2));
  const lab = await init({ simd });
  for (const name of tasks) {
    const result = trainToGoal(lab, name, options, (line) => console.error(line));
    console.log(JSON.stringify({ environment: `Node ${process.version}`, ...result }));
  }
}
