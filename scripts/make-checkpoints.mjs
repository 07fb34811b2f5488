// Trains every task's shipped checkpoint (the recipes in bindings/train/checkpoint-recipes.js) with the
// SIMD training build in dist/ and writes checkpoints/<task>.bin; scripts/build.mjs copies them into
// dist/checkpoints/. Deterministic: the same build writes the same bytes (tests/js/checkpoints.test.js
// checks it). Re-run it, and commit the files, after a change to the core that moves training's numbers.
//   node scripts/make-checkpoints.mjs            (every task)
//   node scripts/make-checkpoints.mjs dates      (some tasks)
// Prints one JSON line per task: its bytes, gzip -9 bytes, validation score and training seconds; writes
// checkpoints/manifest.json: each file's size, gzip -9 size, SHA-256 and score, and the SHA-256 of the
// training .wasm that made them (when the test's bytes differ, compare it with dist/'s first), and the
// SHA-256 of every input of training (trainingInputsHash): while it is unchanged, the tests that
// train (the re-make here, the goals in tests/js/training-goal.test.js) would repeat a result already
// checked, and npm test skips them (ATTENTION_LAB_RETRAIN=1 runs them anyway). The hash is written
// only by a run of every task in which each checkpoint scores what its recipe states and each task of
// GOAL_TASKS, trained with its defaults, reaches its goal (what those tests check).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { trainToGoal } from '../bench/lib/train-to-goal.mjs';
import { CHECKPOINT_RECIPES } from '../bindings/train/checkpoint-recipes.js';

/** The tasks tests/js/training-goal.test.js trains to their goal with their defaults. */
export const GOAL_TASKS = ['dates', 'grammar'];

export const CHECKPOINT_DIR = new URL('../checkpoints/', import.meta.url);
const VALIDATION_BATCHES = 8;
const TRAINING_WASM = new URL('../dist/attention-lab-training-simd.wasm', import.meta.url);

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
/** The SHA-256 of dist/'s SIMD training .wasm, the build the checkpoints are made with. */
export const trainingWasmHash = () => sha256(readFileSync(TRAINING_WASM));

// What training's numbers depend on besides the training .wasm (the C++ core and its bindings): the
// JavaScript that drives training, the tasks and their data, the recipes and the goal loop.
const TRAINING_INPUTS = ['bindings/train/', 'bindings/tasks/', 'bindings/training.js', 'bindings/training-node.js',
  'scripts/make-checkpoints.mjs', 'bench/lib/train-to-goal.mjs', 'checkpoints/'];
const ROOT = new URL('../', import.meta.url);

/** One SHA-256 over the training .wasm and every file of TRAINING_INPUTS (manifest.json and subfolders, the reader's, left out). */
export function trainingInputsHash() {
  const files = TRAINING_INPUTS.flatMap((path) =>
    path.endsWith('/') ? readdirSync(new URL(path, ROOT), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => path + e.name).sort() : [path])
    .filter((f) => !f.endsWith('manifest.json'));
  const lines = files.map((f) => `${sha256(readFileSync(new URL(f, ROOT)))}  ${f}`);
  return sha256([`${trainingWasmHash()}  dist/attention-lab-training-simd.wasm`, ...lines].join('\n'));
}

/** True when the training tests would repeat what made the committed checkpoints (see above). */
export const trainingUnchanged = () => !process.env.ATTENTION_LAB_RETRAIN && readManifest().trainingInputsSha256 === trainingInputsHash();

/** checkpoints/manifest.json, or an empty one. */
export function readManifest() {
  try {
    return JSON.parse(readFileSync(new URL('manifest.json', CHECKPOINT_DIR), 'utf8'));
  } catch {
    return { files: {} };
  }
}

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
  const manifestUrl = new URL('manifest.json', CHECKPOINT_DIR);
  const manifest = readManifest();
  manifest.trainingWasmSha256 = trainingWasmHash();
  let checked = names.length === 0;
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
    const entry = { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, sha256: sha256(bytes), validation };
    manifest.files[`${name}.bin`] = entry;
    console.log(JSON.stringify({ task: name, ...entry, stated, seconds }));
    if (validation !== stated) {
      console.error(`make-checkpoints: ${name} scores ${validation}, the recipe states ${stated}: update checkpoint-recipes.js`);
      checked = false;
    }
  }
  for (const name of checked ? GOAL_TASKS : []) {
    const task = lab.tasks[name];
    const result = trainToGoal(lab, name, { limitSeconds: 600, maxSteps: task.defaults.training.steps });
    console.log(JSON.stringify({ goal: name, reached: result.reached, steps: result.steps, exactMatch: result.exactMatch }));
    if (!result.reached) checked = false;
  }
  const order = Object.keys(CHECKPOINT_RECIPES).filter((n) => manifest.files[`${n}.bin`]);
  manifest.files = Object.fromEntries(order.map((n) => [`${n}.bin`, manifest.files[`${n}.bin`]]));
  manifest.gzipTotal = Object.values(manifest.files).reduce((sum, f) => sum + f.gzip, 0);
  // Written after the .bin files, which are among the inputs; only when every check above passed.
  if (checked) manifest.trainingInputsSha256 = trainingInputsHash();
  else delete manifest.trainingInputsSha256;
  writeFileSync(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
