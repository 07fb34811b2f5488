// The reader's recipe: the two models' shapes and their training, in one table that the trainer
// (train.mjs), the packer (pack.mjs), CI's bounded piece of training (tests/js/reader-recipe.test.js)
// and docs/reader-data.md read. Both models read both languages with one shared vocabulary
// (bindings/reader/vocabulary.json), so one encoder and one decoder serve English and Chinese.
import { tokenizer } from './rows.mjs';

/** The longest text either model reads, in pieces (a decoder's <bos> included). */
export const MAX_LENGTH = 128;

const shared = { vocabSize: tokenizer.size, maxLength: MAX_LENGTH, norm: 'pre', positions: 'learned', seed: 1 };

export const RECIPE = Object.freeze({
  // A bidirectional encoder trained by masked prediction (BERT's 15 %, 80/10/10) on the generated
  // sentences and the corpora, plus one auxiliary target: at each generated pronoun, the first piece
  // of its referent (the model is never told where to look: the weights are not supervised).
  encoder: Object.freeze({
    config: Object.freeze({ ...shared, kind: 'mlm', dModel: 64, heads: 2, dFF: 256, encoderLayers: 4 }),
    steps: 12_000,
    rows: 32, // a batch: rows of at most SHORT pieces, but every LONG_EVERY-th batch: corpus windows up to MAX_LENGTH
    short: 48,
    longEvery: 8,
    longRows: 16,
    corpusShare: 0.2, // of the short rows; the rest are generated sentences
    maskRate: 0.15,
    learningRate: 2e-3,
    warmup: 200,
  }),
  // A causal decoder trained on windows of the corpora (and a share of generated sentences), next piece.
  decoder: Object.freeze({
    config: Object.freeze({ ...shared, kind: 'lm', dModel: 96, heads: 4, dFF: 384, decoderLayers: 4 }),
    steps: 3_500,
    rows: 24,
    corpusShare: 0.85,
    learningRate: 2e-3,
    warmup: 200,
  }),
});

/** The learning rate of step `step` (1-based) of `steps`: a linear warm-up, then a cosine down to a tenth. */
export function learningRateAt(recipe, step, steps = recipe.steps) {
  const warm = Math.min(1, step / recipe.warmup);
  return recipe.learningRate * warm * (0.1 + 0.45 * (1 + Math.cos((Math.PI * step) / steps)));
}

/** Seeds of the streams (each language and kind its own), and of the held-out measurement windows. */
export const SEEDS = Object.freeze({ corpus: { en: 7, zh: 8 }, heldOut: { en: 99, zh: 100 }, mask: 1 });
