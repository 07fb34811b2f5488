// Trains every task's shipped checkpoint (the recipes in bindings/train/checkpoint-recipes.js) with the
// SIMD training build in dist/ and writes checkpoints/<task>.bin; scripts/build.mjs copies them into
// dist/checkpoints/. Deterministic: the same build writes the same bytes (tests/js/checkpoints.test.js
// checks it). Re-run it, and commit the files, after a change to the core that moves training's numbers.
//   node scripts/make-checkpoints.mjs            (every task)
//   node scripts/make-checkpoints.mjs dates      (some tasks)
// Prints one JSON line per task: its bytes, gzip -9 bytes, validation score and training seconds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { CHECKPOINT_RECIPES } from '../bindings/train/checkpoint-recipes.js';

export const CHECKPOINT_DIR = new URL('../checkpoints/', import.meta.url);
const VALIDATION_BATCHES = 8;

/** Trains lab.tasks[name] by its recipe and returns the saved image (Uint8Array). */
export function makeCheckpoint(lab, name, recipe = CHECKPOINT_RECIPES[name]) {
  const task = lab.tasks[name];
  const { batchSize, clipNorm, steps } = recipe.training;
  const model = lab.createTransformer({ task, seed: recipe.seed, ...recipe.model });
  try {
    for (let step = 1; step <= steps; step++) {
      const batch = task.batch({ seed: step, size: batchSize, split: 'train' });
      const result = model.trainStep(batch, { learningRate: lab.learningRateAt(step, recipe.training), clipNorm });
      if (result.diverged) throw new Error(`make-checkpoints: ${name} diverged at step ${result.step}`);
    }
    return model.save({ precision: recipe.precision });
  } finally {
    model.dispose();
  }
}

/** A model's validation score on lab.tasks[name], the recipes' measure (see checkpoint-recipes.js): 0…1. */
export function validationScore(lab, name, model) {
  const task = lab.tasks[name];
  const extra = task.goal.count ? { count: task.goal.count } : {};
  let right = 0;
  let rows = 0;
  for (let i = 0; i < VALIDATION_BATCHES; i++) {
    const batch = task.batch({ seed: 1000 + i, size: 64, split: 'validation', ...extra });
    if (task.kind === 'seq2seq')
      for (const e of batch.examples) right += task.check(e.source, model.generate(task.encode(e.source)).text) ? 1 : 0;
    else right += model.evaluate(batch).exactMatch * batch.size;
    rows += batch.size;
  }
  return right / rows;
}

async function main(names) {
  const { init } = await import('../dist/training-node.js');
  const lab = await init({ simd: true });
  mkdirSync(CHECKPOINT_DIR, { recursive: true });
  for (const name of names.length ? names : Object.keys(CHECKPOINT_RECIPES)) {
    if (!CHECKPOINT_RECIPES[name]) throw new Error(`make-checkpoints: no recipe for ${name}; one of ${Object.keys(CHECKPOINT_RECIPES).join(', ')}`);
    const start = performance.now();
    const bytes = makeCheckpoint(lab, name);
    const seconds = +((performance.now() - start) / 1000).toFixed(1);
    writeFileSync(new URL(`${name}.bin`, CHECKPOINT_DIR), bytes);
    const model = lab.loadTransformer(bytes, { task: lab.tasks[name] });
    const validation = validationScore(lab, name, model);
    model.dispose();
    const stated = CHECKPOINT_RECIPES[name].validation;
    console.log(JSON.stringify({ task: name, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, validation, stated, seconds }));
    if (validation !== stated) console.error(`make-checkpoints: ${name} scores ${validation}, the recipe states ${stated}: update checkpoint-recipes.js`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
