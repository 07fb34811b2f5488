// What the reader's models are measured by (pack.mjs writes the figures into the reader and
// docs/results/reader.json; the reader test checks them again on the shipped file):
//   decoderQuality   held-out cross-entropy in nats per piece against the add-k bigram fitted on the same
//                    training text, on the same windows of the validation split; top-5 next-piece accuracy
//   pronounGoal      in the encoder, per head: the share of pronoun pairs where the pronoun's weight summed
//                    over each noun's pieces is larger on the referent in both halves; the best head on dev
//                    reported on test, with the famous pair; and how often the referent is predicted
import { BOS } from '../../bindings/reader/tokenizer.js';
import { bigramCrossEntropy, chooseK, fitBigram, sequencesOf } from './bigram.mjs';
import { MAX_LENGTH, SEEDS } from './recipe.mjs';
import { corpusText, corpusWindows, lmBatchOf, piecesIn, tokenizer } from './rows.mjs';
import { pronounPairs } from './sentences.mjs';

export const HELD_OUT_WINDOWS = 400;
export const TOP5_WINDOWS = 100;

/** The fixed held-out sample of a language: HELD_OUT_WINDOWS windows of its validation split. */
export function heldOutWindows(language, count = HELD_OUT_WINDOWS) {
  const windows = corpusWindows(language, 'validation', { seed: SEEDS.heldOut[language], length: MAX_LENGTH });
  return Array.from({ length: count }, () => windows.next().value);
}

const bigrams = new Map();
/** The bigram of a language's training text, and its k chosen on the validation split (cached). */
export function bigramOf(language) {
  if (!bigrams.has(language)) {
    const model = fitBigram(sequencesOf(tokenizer, corpusText(language, 'train')), tokenizer.size);
    bigrams.set(language, { model, k: chooseK(model, sequencesOf(tokenizer, corpusText(language, 'validation'))).k });
  }
  return bigrams.get(language);
}

/** The decoder against the bigram on `windows` (default: the fixed held-out sample). */
export function decoderQuality(decoder, language, windows = heldOutWindows(language)) {
  let sum = 0;
  let counted = 0;
  for (let i = 0; i < windows.length; i += 16) {
    const { loss, counted: n } = decoder.evaluate(lmBatchOf(windows.slice(i, i + 16)));
    sum += loss * n;
    counted += n;
  }
  const { model, k } = bigramOf(language);
  const bigram = bigramCrossEntropy(model, windows.map((w) => Int32Array.of(BOS, ...w)), k);
  let right = 0;
  let all = 0;
  for (const w of windows.slice(0, TOP5_WINDOWS)) {
    const { logits } = decoder.attend(Int32Array.of(BOS, ...w.slice(0, -1)));
    w.forEach((target, t) => {
      const row = logits.data.subarray(t * logits.cols, (t + 1) * logits.cols);
      let above = 0; // pieces scored above the target: it is in the top 5 when fewer than 5 are
      for (let j = 0; j < row.length && above < 5; j++) if (row[j] > row[target]) above++;
      right += above < 5 ? 1 : 0;
      all++;
    });
  }
  const perPiece = sum / counted;
  return {
    windows: windows.length, pieces: counted, crossEntropy: round(perPiece), bigram: round(bigram), bigramK: k,
    below: round((bigram - perPiece) / bigram), top5: round(right / all), top5Pieces: all,
  };
}

const round = (x, places = 4) => Math.round(x * 10 ** places) / 10 ** places;

/** The pronoun's weight on each candidate per layer and head, and whether the referent is predicted, for one half. */
function halfWeights(encoder, half) {
  const { ids, offsets } = tokenizer.tokenize(half.text, { maxLength: MAX_LENGTH });
  const { attention, logits } = encoder.attend(ids);
  const at = piecesIn(offsets, half.pronoun.span)[0];
  const referent = piecesIn(offsets, half.candidates[half.referent].span);
  const other = piecesIn(offsets, half.candidates[1 - half.referent].span);
  const on = (m, js) => js.reduce((s, j) => s + m.data[at * m.cols + j], 0);
  const row = logits.data.subarray(at * logits.cols, (at + 1) * logits.cols);
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return {
    predicted: best === ids[referent[0]],
    weights: attention.map((layer) => layer.map((m) => ({ referent: on(m, referent), other: on(m, other) }))),
  };
}

/** Per [layer][head], the share of `pairs` right in both halves; and the share of halves whose referent is predicted. */
function pairShares(encoder, pairs) {
  const { encoderLayers: layers, heads } = encoder.config;
  const shares = Array.from({ length: layers }, () => new Array(heads).fill(0));
  let predicted = 0;
  for (const pair of pairs) {
    const [a, b] = pair.halves.map((half) => halfWeights(encoder, half));
    predicted += Number(a.predicted) + Number(b.predicted);
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < heads; h++) {
        const right = (x) => x.weights[l][h].referent > x.weights[l][h].other;
        if (right(a) && right(b)) shares[l][h] += 1;
      }
  }
  return { shares: shares.map((r) => r.map((x) => round(x / pairs.length))), predicted: round(predicted / (2 * pairs.length)) };
}

/** The famous-pair goal of one language: the head chosen on dev, its share on test, the famous pair's weights. */
export function pronounGoal(encoder, language) {
  const devPairs = pronounPairs({ language, split: 'dev' });
  const dev = pairShares(encoder, devPairs);
  let head = { layer: 0, head: 0 };
  dev.shares.forEach((row, l) => row.forEach((x, h) => {
    if (x > dev.shares[head.layer][head.head]) head = { layer: l, head: h };
  }));
  const testPairs = pronounPairs({ language, split: 'test' });
  const test = pairShares(encoder, testPairs);
  const famous = testPairs.find((p) => p.famous);
  const halves = famous.halves.map((half) => {
    const w = halfWeights(encoder, half).weights[head.layer][head.head];
    return { text: half.text, referent: half.candidates[half.referent].text ?? null, onReferent: round(w.referent), onOther: round(w.other) };
  });
  return {
    head: { model: 'encoder', ...head }, dev: dev.shares[head.layer][head.head], test: test.shares[head.layer][head.head],
    pairs: { dev: devPairs.length, test: testPairs.length },
    referentPredicted: { dev: dev.predicted, test: test.predicted },
    sharesByHead: { dev: dev.shares, test: test.shares },
    famous: { right: halves.every((h) => h.onReferent > h.onOther), halves },
  };
}
