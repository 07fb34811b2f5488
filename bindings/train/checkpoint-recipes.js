// How each shipped checkpoint (dist/checkpoints/<task>.bin, committed as checkpoints/<task>.bin) was
// made: scripts/make-checkpoints.mjs trains lab.tasks[task] with this recipe on the SIMD training
// build and saves it at `precision`; tests/js/checkpoints.test.js makes them again and compares the
// bytes. Plain data, shipped so a program can read what it loads (lab.checkpoints).
//
// Training: step s (1-based) trains on task.batch({ seed: s, size: batchSize, split: 'train' }) at
// lab.learningRateAt(s, training) with clipNorm, for exactly `steps` steps, from
// createTransformer({ task, seed, ...model }). `validation` is the saved checkpoint's score, loaded back:
// 8 seeded batches of 64 from the validation split (seeds 1000…1007; grammar counts its determined
// words), greedy decoding checked by task.check for dates and reverse, teacher-forced exact match (every
// counted position right) for grammar and repeat: the measure of bench/lib/train-to-goal.mjs.
//
// Sizes (session 10, gzip -9 of the int8 images): dates 62.8 KB, grammar 50.1 KB, reverse 16.2 KB,
// repeat 6.9 KB; 136 KB in all against a budget of 150 KB. The training defaults of the tasks (64 wide for
// dates and grammar) would be 230 KB: the checkpoints are narrower, and still reach each goal.
const recipe = (model, training, validation) => Object.freeze({
  seed: 1,
  model: Object.freeze({ heads: 4, norm: 'pre', positions: 'sinusoidal', ...model }),
  training: Object.freeze({ batchSize: 32, clipNorm: 1, ...training }),
  precision: 'int8',
  validation,
});

/** Every shipped checkpoint's recipe, by task name. */
export const CHECKPOINT_RECIPES = Object.freeze({
  dates: recipe({ dModel: 48, dFF: 96, encoderLayers: 1, decoderLayers: 1 }, { learningRate: 1e-2, warmup: 200, steps: 1600 }, 0.994140625),
  reverse: recipe({ dModel: 24, dFF: 48, encoderLayers: 1, decoderLayers: 1 }, { learningRate: 1e-2, warmup: 200, steps: 1200 }, 1),
  grammar: recipe({ dModel: 48, dFF: 96, encoderLayers: 0, decoderLayers: 2 }, { learningRate: 3e-3, warmup: 100, steps: 1500 }, 1),
  repeat: recipe({ dModel: 16, dFF: 32, encoderLayers: 0, decoderLayers: 2 }, { learningRate: 3e-3, warmup: 100, steps: 2000 }, 0.9921875),
});
