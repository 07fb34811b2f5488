// Trains one of the reader's models by its recipe (recipe.mjs) with the library's own training build
// in Node, and saves it exactly (float32) to build/reader/<model>.bin; pack.mjs quantizes, measures
// and packs both. One process per model (two can run at once, one per core); every draw is seeded,
// so the same build remakes the same bytes.
//   node scripts/reader/train.mjs --model=encoder|decoder [--steps=N] [--out=file]
// Needs build/reader/ (corpus.mjs, sentences.mjs) and dist/ (the training build).
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { MASK } from '../../bindings/reader/tokenizer.js';
import { learningRateAt, MAX_LENGTH, RECIPE, SEEDS } from './recipe.mjs';
import { READER_DIR, corpusWindows, generatedRows, lmBatchOf, tokenizer } from './rows.mjs';

const LANGUAGES = ['en', 'zh'];

/** Row r of a batch: which language (alternating), and whether from the corpus (a fixed share, spread evenly). */
const languageOf = (step, r) => LANGUAGES[(step + r) % 2];
const fromCorpus = (step, r, share) => ((r * 7919 + step * 104729) % 1000) / 1000 < share;

/** The encoder's batches: masked rows, with each pronoun's referent as its target. */
function encoderBatches(lab, recipe) {
  const streams = Object.fromEntries(LANGUAGES.flatMap((l) => [
    [`corpus-${l}`, corpusWindows(l, 'train', { seed: SEEDS.corpus[l], length: recipe.short })],
    [`long-${l}`, corpusWindows(l, 'train', { seed: SEEDS.corpus[l] + 1000, length: MAX_LENGTH })],
    [`generated-${l}`, generatedRows(l, { length: recipe.short })],
  ]));
  return (step) => {
    const long = step % recipe.longEvery === 0;
    const rows = [];
    for (let r = 0; r < (long ? recipe.longRows : recipe.rows); r++) {
      const l = languageOf(step, r);
      if (long) rows.push({ ids: streams[`long-${l}`].next().value });
      else if (fromCorpus(step, r, recipe.corpusShare)) rows.push({ ids: streams[`corpus-${l}`].next().value });
      else rows.push(streams[`generated-${l}`].next().value);
    }
    const batch = lab.mlmBatch(rows, { mask: MASK, vocabSize: tokenizer.size, rate: recipe.maskRate, seed: SEEDS.mask + step });
    rows.forEach((row, r) => {
      if (!row.aux) return;
      const at = r * batch.length + row.aux.at;
      batch.input[at] = row.ids[row.aux.at];
      batch.target[at] = row.aux.target;
    });
    return batch;
  };
}

/** The decoder's batches: windows of the corpora and generated sentences, next piece. */
function decoderBatches(recipe) {
  const streams = Object.fromEntries(LANGUAGES.flatMap((l) => [
    [`corpus-${l}`, corpusWindows(l, 'train', { seed: SEEDS.corpus[l], length: MAX_LENGTH })],
    [`generated-${l}`, generatedRows(l, { length: MAX_LENGTH })],
  ]));
  return (step) => {
    const rows = [];
    for (let r = 0; r < recipe.rows; r++) {
      const l = languageOf(step, r);
      rows.push(fromCorpus(step, r, recipe.corpusShare) ? streams[`corpus-${l}`].next().value : streams[`generated-${l}`].next().value.ids);
    }
    return lmBatchOf(rows);
  };
}

/**
 * Trains `name` for `steps` (the recipe's unless given; the learning rate's schedule follows it) and
 * returns the model. log(step, result, msPerStep) is called every `every` steps.
 */
export function trainReaderModel(lab, name, { steps, log = () => {}, every = 100 } = {}) {
  const recipe = RECIPE[name];
  if (!recipe) throw new Error(`train: no model ${JSON.stringify(name)}; one of ${Object.keys(RECIPE).join(', ')}`);
  const total = steps ?? recipe.steps;
  const model = lab.createTransformer(recipe.config);
  const batchAt = name === 'encoder' ? encoderBatches(lab, recipe) : decoderBatches(recipe);
  const started = Date.now();
  try {
    for (let step = 1; step <= total; step++) {
      const result = model.trainStep(batchAt(step), { learningRate: learningRateAt(recipe, step, total) });
      if (result.diverged) throw new Error(`train: the ${name} diverged at step ${step}`);
      if (step % every === 0 || step === 1) log(step, result, (Date.now() - started) / step);
    }
  } catch (error) {
    model.dispose();
    throw error;
  }
  return model;
}

async function main(argv) {
  const args = Object.fromEntries(argv.map((a) => a.replace(/^--/, '').split('=')));
  const name = args.model;
  const { init } = await import('../../dist/training-node.js');
  const lab = await init({ simd: true });
  const out = args.out ?? fileURLToPath(new URL(`${name}.bin`, READER_DIR));
  const started = Date.now();
  const model = trainReaderModel(lab, name, {
    steps: args.steps === undefined ? undefined : Number(args.steps),
    log: (step, r, ms) => console.log(`${name} step ${step} loss ${r.loss.toFixed(3)} (${ms.toFixed(0)} ms a step)`),
  });
  writeFileSync(out, model.save());
  console.log(`${name}: ${model.parameterCount} parameters trained in ${((Date.now() - started) / 1000).toFixed(0)} s → ${out}`);
  model.dispose();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
