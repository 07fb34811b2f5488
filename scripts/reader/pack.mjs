// Packs the trained reader: both models (train.mjs's float32 images) saved at int8, measured as they
// ship (the int8 models: held-out cross-entropy against the bigram, top-5, the famous-pair goal in each
// language, every head labelled), and written as one file with its tokenizer and labels
// (bindings/reader/bundle.js), with the figures in docs/results/reader.json.
//   node scripts/reader/pack.mjs [--encoder=build/reader/encoder.bin] [--decoder=build/reader/decoder.bin]
//                                [--out=checkpoints/reader/reader.bin] [--report=docs/results/reader.json]
//   node scripts/reader/pack.mjs --first-steps   (only the recipe's first steps, which CI runs again, recorded anew)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

import { packReader } from '../../bindings/reader/bundle.js';
import { measureHeads } from './heads.mjs';
import { decoderQuality, pronounGoal } from './quality.mjs';
import { RECIPE } from './recipe.mjs';
import { READER_DIR } from './rows.mjs';
import { trainReaderModel } from './train.mjs';

const ROOT = new URL('../../', import.meta.url);
/** The bundle's language names for the generator's. */
export const BUNDLE_LANGUAGE = { en: 'en', zh: 'zh-CN' };
const CORPUS = {
  en: 'Moby-Dick and 233 State of the Union addresses (public domain), with generated sentences',
  zh: 'Classical poetry and prose of chinese-poetry (MIT), in simplified script, with generated modern sentences',
};

/** The bounded piece of the recipe CI runs: each model's first steps (their schedule over that many). */
export const FIRST_STEPS = Object.freeze({ encoder: 12, decoder: 3 });

/** The first steps of a model's recipe: each step's loss and the SHA-256 of the model they make. */
export function firstSteps(lab, name) {
  const losses = [];
  const model = trainReaderModel(lab, name, { steps: FIRST_STEPS[name], every: 1, log: (step, result) => losses.push(result.loss) });
  const sha256 = createHash('sha256').update(model.save()).digest('hex');
  model.dispose();
  return { steps: FIRST_STEPS[name], losses, sha256 };
}

/** Every figure of a pair of (int8) models: { quality: { en, zh }, heads }. */
export function measureReader(encoder, decoder) {
  const quality = {};
  for (const language of ['en', 'zh']) quality[language] = { decoder: decoderQuality(decoder, language), pronoun: pronounGoal(encoder, language) };
  return { quality, heads: [...measureHeads(encoder, 'encoder'), ...measureHeads(decoder, 'decoder')] };
}

/** The reader's bytes and its report from two float32 images. */
export function packImages(lab, images) {
  const int8 = {};
  const models = {};
  try {
    for (const name of ['encoder', 'decoder']) {
      const exact = lab.loadTransformer(images[name]);
      int8[name] = exact.save({ precision: 'int8' });
      exact.dispose();
      models[name] = lab.loadTransformer(int8[name]);
    }
    const { quality, heads } = measureReader(models.encoder, models.decoder);
    const languages = Object.fromEntries(['en', 'zh'].map((l) => [BUNDLE_LANGUAGE[l], { corpus: CORPUS[l], pronounHead: quality[l].pronoun.head }]));
    const vocabulary = JSON.parse(readFileSync(new URL('bindings/reader/vocabulary.json', ROOT), 'utf8'));
    const bytes = packReader({ vocabulary, encoder: int8.encoder, decoder: int8.decoder, bos: { encoder: false, decoder: true }, heads, languages });
    const report = {
      models: Object.fromEntries(['encoder', 'decoder'].map((name) => [name, {
        config: RECIPE[name].config, steps: RECIPE[name].steps, parameters: models[name].parameterCount, int8Bytes: int8[name].length,
      }])),
      bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length,
      quality, heads,
      firstSteps: { encoder: firstSteps(lab, 'encoder'), decoder: firstSteps(lab, 'decoder') },
    };
    return { bytes, report };
  } finally {
    for (const model of Object.values(models)) model.dispose();
  }
}

async function main(argv) {
  const args = Object.fromEntries(argv.map((a) => a.replace(/^--/, '').split('=')));
  const { init } = await import('../../dist/training-node.js');
  const lab = await init({ simd: true });
  const reportFile = args.report ?? fileURLToPath(new URL('docs/results/reader.json', ROOT));
  if ('first-steps' in args) {
    // only the recipe's first steps, again (after a change to training's numbers; the models stay)
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    report.firstSteps = { encoder: firstSteps(lab, 'encoder'), decoder: firstSteps(lab, 'decoder') };
    writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const images = {
    encoder: readFileSync(args.encoder ?? fileURLToPath(new URL('encoder.bin', READER_DIR))),
    decoder: readFileSync(args.decoder ?? fileURLToPath(new URL('decoder.bin', READER_DIR))),
  };
  const { bytes, report } = packImages(lab, { encoder: new Uint8Array(images.encoder), decoder: new Uint8Array(images.decoder) });
  const out = args.out ?? fileURLToPath(new URL('checkpoints/reader/reader.bin', ROOT));
  for (const file of [out, reportFile]) mkdirSync(dirname(file), { recursive: true });
  writeFileSync(out, bytes);
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  for (const language of ['en', 'zh']) {
    const { decoder, pronoun } = report.quality[language];
    console.log(`${language}: decoder ${decoder.crossEntropy} nats/piece, bigram ${decoder.bigram} (${(100 * decoder.below).toFixed(1)} % below), top-5 ${(100 * decoder.top5).toFixed(1)} %`);
    console.log(`${language}: pronoun head layer ${pronoun.head.layer + 1} head ${pronoun.head.head + 1}: dev ${pronoun.dev}, test ${pronoun.test}, famous pair ${pronoun.famous.right ? 'right' : 'wrong'}; referent predicted ${pronoun.referentPredicted.test}`);
  }
  for (const h of report.heads) console.log(`${h.model} layer ${h.layer + 1} head ${h.head + 1}: ${h.kind} ${h.score}${h.closest ? ` (closest ${h.closest})` : ''}`);
  console.log(`reader: ${bytes.length} bytes, ${report.gzipBytes} gzip → ${out}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
