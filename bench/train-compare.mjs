// The two runs of <attention-train>'s compare mode, in Node: for each task and pair (scaled vs
// unscaled dot-product; for seq2seq tasks also additive vs scaled dot-product cross-attention), the
// task's default model and seed 1, trained by the panel's own Trainer (web/src/components/train/
// trainer.js) until the goal or its last step: the step each reached the goal, the loss and the
// gradient norm (before clipping) at a few steps. The panel's explanation is written to these numbers.
//   node bench/train-compare.mjs [--task=reverse] [--pair=scaling|scoring] [--seed=1]
import { init } from '../dist/training-node.js';
import { compareRuns } from '../web/src/components/train/compare-runs.js';
import { trainSettings } from '../web/src/components/train/settings.js';
import { Trainer } from '../web/src/components/train/trainer.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const lab = await init({ simd: true });
const tasks = args.task ? [args.task] : ['reverse', 'dates', 'grammar', 'repeat'];
const AT = [50, 100, 200, 400, 800, 1600];

function run(settings) {
  const trainer = new Trainer(lab, settings);
  const at = {};
  let p;
  do {
    p = trainer.chunk(1e9);
    if (AT.includes(p.step)) at[p.step] = { loss: +p.loss.toFixed(4), gradientNorm: +p.gradientNorm.toFixed(4), accuracy: p.accuracy };
  } while (!p.reached && !p.stopped && !p.diverged);
  trainer.dispose();
  return { scoring: settings.scoring, reachedAt: p.reached ? p.step : null, lastStep: p.step, diverged: p.diverged, seconds: +(trainer.trainMs / 1000).toFixed(1), at };
}

for (const task of tasks)
  for (const pair of args.pair ? [args.pair] : ['scaling', 'scoring']) {
    const s = trainSettings({ task, seed: args.seed ?? '1', compare: pair });
    if (s.compare !== pair) continue;
    const runs = compareRuns(s).map((r) => run(r.settings));
    console.log(JSON.stringify({ task, pair, seed: s.seed, runs }));
  }
