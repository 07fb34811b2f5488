// A pilot of the reader's encoder: a small bidirectional model trained by masked prediction on the
// generated sentences and the corpora, with (optionally) an auxiliary target at each pronoun of the
// generated pronoun sentences: its referent noun's first piece. It measures the famous-pair goal:
// for every (layer, head), the share of dev pairs where the pronoun's weight summed over each
// candidate's pieces is larger on the referent in both halves; the best head on dev is reported on
// test, with the famous pair itself. Everything is seeded.
//   node scripts/reader/pilot.mjs [--steps=1500] [--d=64] [--layers=2] [--heads=4] [--aux=1] [--corpus=0.5]
// Needs build/reader/ (corpus.mjs, sentences.mjs) and dist/ (the training build).
import { readFileSync } from 'node:fs';

import { init } from '../../dist/training-node.js';
import { MASK, createTokenizer } from '../../bindings/reader/tokenizer.js';
import { pronounPairs, sentences } from './sentences.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const number = (name, fallback) => (args[name] === undefined ? fallback : Number(args[name]));
const STEPS = number('steps', 1500);
const D = number('d', 64);
const LAYERS = number('layers', 2);
const HEADS = number('heads', 4);
const AUX = number('aux', 1) === 1;
const CORPUS_SHARE = number('corpus', 0.5);
const BATCH = number('batch', 32);
const MAX_LENGTH = number('length', 48);
const LR = number('lr', 2e-3);

const vocabulary = JSON.parse(readFileSync(new URL('../../bindings/reader/vocabulary.json', import.meta.url), 'utf8'));
const tokenizer = createTokenizer(vocabulary);

/** Pieces covering [start, end) of the text (their indices). */
const piecesIn = (offsets, [start, end]) => {
  const out = [];
  for (let i = 0; i < offsets.length / 2; i++) if (offsets[2 * i] < end && offsets[2 * i + 1] > start) out.push(i);
  return out;
};

/** A generated sentence as a training row: its ids, and the pronoun's position and referent's first piece when it has them. */
function generatedRow(item) {
  const { ids, offsets } = tokenizer.tokenize(item.text, { maxLength: MAX_LENGTH });
  const row = { ids: Array.from(ids) };
  if (item.kind === 'pronoun') {
    const at = piecesIn(offsets, item.pronoun.span);
    const referent = piecesIn(offsets, item.candidates[item.referent].span);
    if (at.length && referent.length) row.aux = { at: at[0], target: ids[referent[0]] };
  }
  return row;
}

/** Corpus lines cut into windows of at most MAX_LENGTH pieces. */
function* corpusRows(language) {
  const lines = readFileSync(new URL(`../../build/reader/${language}.train.txt`, import.meta.url), 'utf8').split('\n').filter((l) => l.trim());
  let seed = 12345;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (;;) {
    const line = lines[Math.floor(next() * lines.length)];
    const { ids } = tokenizer.tokenize(line);
    const start = ids.length > MAX_LENGTH ? Math.floor(next() * (ids.length - MAX_LENGTH)) : 0;
    yield { ids: Array.from(ids.subarray(start, start + MAX_LENGTH)) };
  }
}

const streams = {
  en: sentences({ language: 'en', split: 'train', count: 10_000_000 }),
  zh: sentences({ language: 'zh', split: 'train', count: 10_000_000 }),
  corpusEn: corpusRows('en'),
  corpusZh: corpusRows('zh'),
};

function batchRows(step) {
  const rows = [];
  for (let r = 0; r < BATCH; r++) {
    const language = (step + r) % 2 ? 'zh' : 'en';
    const fromCorpus = ((r * 7919 + step * 104729) % 1000) / 1000 < CORPUS_SHARE;
    rows.push(fromCorpus ? streams[language === 'en' ? 'corpusEn' : 'corpusZh'].next().value : generatedRow(streams[language].next().value));
  }
  return rows;
}

const lab = await init();
const model = lab.createTransformer({ kind: 'mlm', vocabSize: tokenizer.size, maxLength: MAX_LENGTH, dModel: D, heads: HEADS, dFF: 4 * D, encoderLayers: LAYERS, norm: 'pre', positions: 'learned', seed: 1 });
console.log(`pilot: d ${D}, ${LAYERS} layers × ${HEADS} heads, vocabulary ${tokenizer.size}, ${model.parameterCount ?? '?'} parameters; ${STEPS} steps of ${BATCH} rows; aux ${AUX}; corpus share ${CORPUS_SHARE}`);

const started = Date.now();
for (let step = 1; step <= STEPS; step++) {
  const rows = batchRows(step);
  const batch = lab.mlmBatch(rows, { mask: MASK, vocabSize: tokenizer.size, rate: 0.15, seed: step });
  if (AUX)
    rows.forEach((row, r) => {
      if (!row.aux) return;
      const at = r * batch.length + row.aux.at;
      batch.input[at] = row.ids[row.aux.at];
      batch.target[at] = row.aux.target;
    });
  const warm = Math.min(1, step / 100);
  const decay = 0.5 * (1 + Math.cos((Math.PI * step) / STEPS));
  const result = model.trainStep(batch, { learningRate: LR * warm * (0.1 + 0.9 * decay) });
  if (step % 100 === 0 || step === 1) console.log(`step ${step} loss ${result.loss.toFixed(3)} (${((Date.now() - started) / step).toFixed(0)} ms/step)`);
}
console.log(`trained in ${((Date.now() - started) / 1000).toFixed(0)} s`);

let auxRight = 0;
let auxAll = 0;
/** For one half: per [layer][head], whether the pronoun's weight on the referent's pieces beats the other's. */
function halfVerdicts(half) {
  const { ids, offsets } = tokenizer.tokenize(half.text);
  const { attention, logits } = model.attend(ids);
  const at = piecesIn(offsets, half.pronoun.span)[0];
  const row = logits.data.subarray(at * logits.cols, (at + 1) * logits.cols);
  let best = 0;
  for (let k = 1; k < row.length; k++) if (row[k] > row[best]) best = k;
  auxAll++;
  if (best === ids[piecesIn(offsets, half.candidates[half.referent].span)[0]]) auxRight++;
  const weightOn = (m, span) => piecesIn(offsets, span).reduce((sum, j) => sum + m.data[at * m.cols + j], 0);
  return attention.map((layer) => layer.map((m) => weightOn(m, half.candidates[half.referent].span) > weightOn(m, half.candidates[1 - half.referent].span)));
}

function pairShares(pairs) {
  const shares = Array.from({ length: LAYERS }, () => new Array(HEADS).fill(0));
  for (const pair of pairs) {
    const [a, b] = pair.halves.map(halfVerdicts);
    for (let l = 0; l < LAYERS; l++) for (let h = 0; h < HEADS; h++) shares[l][h] += a[l][h] && b[l][h] ? 1 / pairs.length : 0;
  }
  return shares;
}

for (const language of ['en', 'zh']) {
  const dev = pairShares(pronounPairs({ language, split: 'dev' }));
  let best = [0, 0];
  for (let l = 0; l < LAYERS; l++) for (let h = 0; h < HEADS; h++) if (dev[l][h] > dev[best[0]][best[1]]) best = [l, h];
  const testPairs = pronounPairs({ language, split: 'test' });
  const test = pairShares(testPairs);
  const famous = testPairs.find((p) => p.famous);
  const [fa, fb] = famous.halves.map(halfVerdicts);
  console.log(`${language}: the referent predicted at the pronoun in ${((100 * auxRight) / auxAll).toFixed(1)} % of halves (dev and test)`);
  auxRight = auxAll = 0;
  console.log(`${language}: dev shares by layer/head ${dev.map((r) => r.map((x) => x.toFixed(2)).join(' ')).join(' | ')}`);
  console.log(`${language}: best head on dev: layer ${best[0] + 1} head ${best[1] + 1} (${dev[best[0]][best[1]].toFixed(3)}); on test ${test[best[0]][best[1]].toFixed(3)}; famous pair ${fa[best[0]][best[1]] && fb[best[0]][best[1]] ? 'right' : 'wrong'} ("${famous.halves[0].text}")`);
}
