// The baseline a trained model must beat: an add-k smoothed bigram over the tokenizer's pieces,
// fitted on the training split, its cross-entropy (nats per piece) measured on the validation split
// per language, k chosen there. A paragraph is one sequence: <bos>, its pieces, <eos>; every piece
// and the <eos> is predicted from the one before.
//
//   node scripts/reader/bigram.mjs [--in=build/reader]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTokenizer, BOS, EOS } from '../../bindings/reader/tokenizer.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const K_GRID = Object.freeze([1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1]);

/** Sequences of ids, one per non-empty line of `text`: <bos>, the pieces, <eos>. */
export function sequencesOf(tokenizer, text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const { ids } = tokenizer.tokenize(line);
    const seq = new Int32Array(ids.length + 2);
    seq[0] = BOS;
    seq.set(ids, 1);
    seq[ids.length + 1] = EOS;
    out.push(seq);
  }
  return out;
}

/**
 * Counts of a bigram model over ids < size: pairs (sparse), the times each id is followed by
 * something (the bigram's denominators) and the times each id is predicted (the unigram's).
 */
export function fitBigram(sequences, size) {
  const pairs = new Map();
  const context = new Float64Array(size);
  const unigram = new Float64Array(size);
  let predicted = 0;
  for (const seq of sequences) {
    for (let i = 1; i < seq.length; i++) {
      const key = seq[i - 1] * size + seq[i];
      pairs.set(key, (pairs.get(key) ?? 0) + 1);
      context[seq[i - 1]]++;
      unigram[seq[i]]++;
      predicted++;
    }
  }
  return { size, pairs, context, unigram, predicted };
}

/** Mean -ln p(next | previous) in nats per predicted piece, p = (c(a, b) + k) / (c(a) + k·size). */
export function bigramCrossEntropy(model, sequences, k) {
  const { size, pairs, context } = model;
  let sum = 0;
  let n = 0;
  for (const seq of sequences) {
    for (let i = 1; i < seq.length; i++) {
      const a = seq[i - 1];
      const c = pairs.get(a * size + seq[i]) ?? 0;
      sum -= Math.log((c + k) / (context[a] + k * size));
      n++;
    }
  }
  return sum / n;
}

/** The same for the add-k unigram (the previous piece ignored): the baseline's baseline. */
export function unigramCrossEntropy(model, sequences, k) {
  const { size, unigram, predicted } = model;
  let sum = 0;
  let n = 0;
  for (const seq of sequences) {
    for (let i = 1; i < seq.length; i++) {
      sum -= Math.log((unigram[seq[i]] + k) / (predicted + k * size));
      n++;
    }
  }
  return sum / n;
}

/** The k of `grid` with the lowest cross-entropy on `sequences` (the first on a tie), and that value. */
export function chooseK(model, sequences, measure = bigramCrossEntropy, grid = K_GRID) {
  let best = { k: grid[0], crossEntropy: Infinity };
  for (const k of grid) {
    const crossEntropy = measure(model, sequences, k);
    if (crossEntropy < best.crossEntropy) best = { k, crossEntropy };
  }
  return best;
}

async function main() {
  const arg = process.argv.find((a) => a.startsWith('--in='));
  const input = resolve(ROOT, arg ? arg.slice(5) : 'build/reader');
  const started = performance.now();
  const tokenizer = createTokenizer(JSON.parse(readFileSync(join(ROOT, 'bindings/reader/vocabulary.json'), 'utf8')));
  const read = (language, split) => sequencesOf(tokenizer, readFileSync(join(input, `${language}.${split}.txt`), 'utf8'));
  const train = { en: read('en', 'train'), zh: read('zh', 'train') };
  // one model over both languages (they share the vocabulary) and one per language
  const models = { both: fitBigram([...train.en, ...train.zh], tokenizer.size), en: fitBigram(train.en, tokenizer.size), zh: fitBigram(train.zh, tokenizer.size) };
  for (const language of ['en', 'zh']) {
    const validation = read(language, 'validation');
    const test = read(language, 'test');
    for (const fitted of ['both', language]) {
      const model = models[fitted];
      const bigram = chooseK(model, validation);
      const unigram = chooseK(model, validation, unigramCrossEntropy);
      const pieces = validation.reduce((n, s) => n + s.length - 1, 0);
      console.log(
        `${language} (fitted on ${fitted === 'both' ? 'both languages' : `${language} only`}): bigram ${bigram.crossEntropy.toFixed(4)} nats/piece at k = ${bigram.k} ` +
          `(test ${bigramCrossEntropy(model, test, bigram.k).toFixed(4)}), unigram ${unigram.crossEntropy.toFixed(4)} at k = ${unigram.k}; ${pieces} pieces predicted in validation`,
      );
    }
  }
  console.log(`bigram: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
