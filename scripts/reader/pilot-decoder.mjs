// A pilot of the reader's decoder: a small causal model (kind 'lm') trained on windows of the
// corpora and the generated sentences of both languages, measured against the add-k bigram
// (bigram.mjs) on the same held-out windows of each language's validation split: cross-entropy in
// nats per piece, and the decoder's top-5 next-piece accuracy. Everything is seeded.
//   node scripts/reader/pilot-decoder.mjs [--steps=3000] [--d=64] [--layers=3] [--heads=4] [--corpus=0.7]
// Needs build/reader/ (corpus.mjs, sentences.mjs) and dist/ (the training build).
import { readFileSync } from 'node:fs';

import { init } from '../../dist/training-node.js';
import { BOS, EOS, PAD, createTokenizer } from '../../bindings/reader/tokenizer.js';
import { bigramCrossEntropy, chooseK, fitBigram, sequencesOf } from './bigram.mjs';
import { sentences } from './sentences.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const number = (name, fallback) => (args[name] === undefined ? fallback : Number(args[name]));
const STEPS = number('steps', 3000);
const D = number('d', 64);
const LAYERS = number('layers', 3);
const HEADS = number('heads', 4);
const CORPUS_SHARE = number('corpus', 0.7);
const BATCH = number('batch', 32);
const MAX_LENGTH = number('length', 48);
const LR = number('lr', 2e-3);
const HELD_OUT = number('heldOut', 400);

const tokenizer = createTokenizer(JSON.parse(readFileSync(new URL('../../bindings/reader/vocabulary.json', import.meta.url), 'utf8')));
const text = (language, split) => readFileSync(new URL(`../../build/reader/${language}.${split}.txt`, import.meta.url), 'utf8');

/** A row of at most MAX_LENGTH − 1 pieces from `ids` at `start`, and what follows it (EOS at the end of the line). */
function windowOf(ids, start) {
  const piece = Array.from(ids.subarray(start, start + MAX_LENGTH - 1));
  const next = start + piece.length < ids.length ? ids[start + piece.length] : EOS;
  return { input: [BOS, ...piece], target: [...piece, next] };
}

function* corpusWindows(language, split, seed) {
  const lines = text(language, split).split('\n').filter((l) => l.trim());
  let state = seed;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (;;) {
    const { ids } = tokenizer.tokenize(lines[Math.floor(next() * lines.length)]);
    yield windowOf(ids, ids.length > MAX_LENGTH ? Math.floor(next() * (ids.length - MAX_LENGTH)) : 0);
  }
}

function* generatedWindows(language) {
  for (const item of sentences({ language, split: 'train', count: 10_000_000 })) yield windowOf(tokenizer.tokenize(item.text).ids, 0);
}

function batchOf(rows) {
  const length = Math.max(...rows.map((r) => r.input.length));
  const input = new Int32Array(rows.length * length).fill(PAD);
  const target = new Int32Array(rows.length * length).fill(PAD);
  rows.forEach((r, i) => {
    input.set(r.input, i * length);
    target.set(r.target, i * length);
  });
  return { size: rows.length, length, input, target, sourceLength: 0, source: null };
}

const streams = { en: corpusWindows('en', 'train', 7), zh: corpusWindows('zh', 'train', 8), genEn: generatedWindows('en'), genZh: generatedWindows('zh') };
const lab = await init();
const model = lab.createTransformer({ kind: 'lm', vocabSize: tokenizer.size, maxLength: MAX_LENGTH, dModel: D, heads: HEADS, dFF: 4 * D, decoderLayers: LAYERS, norm: 'pre', positions: 'learned', seed: 1 });
console.log(`decoder pilot: d ${D}, ${LAYERS} layers × ${HEADS} heads, ${STEPS} steps of ${BATCH} rows, corpus share ${CORPUS_SHARE}`);
const started = Date.now();
for (let step = 1; step <= STEPS; step++) {
  const rows = [];
  for (let r = 0; r < BATCH; r++) {
    const zh = (step + r) % 2 === 1;
    const fromCorpus = ((r * 7919 + step * 104729) % 1000) / 1000 < CORPUS_SHARE;
    rows.push(streams[fromCorpus ? (zh ? 'zh' : 'en') : zh ? 'genZh' : 'genEn'].next().value);
  }
  const decay = 0.5 * (1 + Math.cos((Math.PI * step) / STEPS));
  const result = model.trainStep(batchOf(rows), { learningRate: LR * Math.min(1, step / 100) * (0.1 + 0.9 * decay) });
  if (step % 250 === 0 || step === 1) console.log(`step ${step} loss ${result.loss.toFixed(3)} (${((Date.now() - started) / step).toFixed(0)} ms/step)`);
}
console.log(`trained in ${((Date.now() - started) / 1000).toFixed(0)} s`);

for (const language of ['en', 'zh']) {
  const held = [];
  const windows = corpusWindows(language, 'validation', 99);
  for (let i = 0; i < HELD_OUT; i++) held.push(windows.next().value);
  let sum = 0;
  let counted = 0;
  let top5 = 0;
  for (let i = 0; i < held.length; i += BATCH) {
    const batch = batchOf(held.slice(i, i + BATCH));
    const { loss, counted: n } = model.evaluate(batch);
    sum += loss * n;
    counted += n;
  }
  for (const w of held.slice(0, 100)) {
    const { logits } = model.attend(w.input);
    for (let t = 0; t < w.target.length; t++) {
      const row = Array.from(logits.data.subarray(t * logits.cols, (t + 1) * logits.cols));
      const best = row.map((v, k) => [v, k]).sort((a, b) => b[0] - a[0]).slice(0, 5).map(([, k]) => k);
      if (best.includes(w.target[t])) top5++;
    }
  }
  const top5Of = held.slice(0, 100).reduce((n, w) => n + w.target.length, 0);
  const bigram = fitBigram(sequencesOf(tokenizer, text(language, 'train')), tokenizer.size);
  const { k } = chooseK(bigram, sequencesOf(tokenizer, text(language, 'validation')));
  const sequences = held.map((w) => Int32Array.from([...w.input, w.target[w.target.length - 1]]));
  const baseline = bigramCrossEntropy(bigram, sequences, k);
  console.log(`${language}: held-out cross-entropy ${(sum / counted).toFixed(3)} nats per piece against the bigram's ${baseline.toFixed(3)} (k = ${k}) on the same ${held.length} windows: ${((100 * (baseline - sum / counted)) / baseline).toFixed(1)} % below; top-5 next-piece accuracy ${((100 * top5) / top5Of).toFixed(1)} % (100 windows)`);
}
