// The shipped reader (dist/checkpoints/reader/reader.bin, made by `npm run train:reader`): it loads in
// both languages with the default URL; its figures in docs/results/reader.json are measured again
// here on the same fixed held-out sample from the int8 models it holds (the decoder against the bigram,
// top-5, the famous-pair goal of each language, every head's label), and the famous pair through the
// public API; and a bounded piece of its recipe (each model's first steps) loses and makes exactly
// what it did when the reader was packed (a recipe changed without training again fails here). Needs build/reader/ (scripts/reader/corpus.mjs: npm test makes it).
import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';

import { parseReader } from '../../dist/reader/bundle.js';
import { measureHeads } from '../../scripts/reader/heads.mjs';
import { BUNDLE_LANGUAGE, firstSteps } from '../../scripts/reader/pack.mjs';
import { decoderQuality, pronounGoal } from '../../scripts/reader/quality.mjs';
import { piecesIn } from '../../scripts/reader/rows.mjs';
import { pronounPairs } from '../../scripts/reader/sentences.mjs';
import { loadTrainingLab } from './helpers.js';

const FILE = new URL('../../dist/checkpoints/reader/reader.bin', import.meta.url);
const report = JSON.parse(readFileSync(new URL('../../docs/results/reader.json', import.meta.url), 'utf8'));
const SLOW = 300_000; // the held-out measurement: about a minute on a 2-core machine

describe('the shipped reader', () => {
  let lab;
  let models;
  let header;
  beforeAll(async () => {
    lab = await loadTrainingLab(true);
    const parsed = parseReader('test', new Uint8Array(readFileSync(FILE)));
    header = parsed.header;
    models = { encoder: lab.loadTransformer(parsed.images.encoder), decoder: lab.loadTransformer(parsed.images.decoder) };
    return () => Object.values(models).forEach((m) => m.dispose());
  });

  it('is the size the report gives, within the 3 MB budget, with every head labelled in both languages', () => {
    const bytes = readFileSync(FILE);
    expect(bytes.length).toBe(report.bytes);
    expect(report.gzipBytes).toBeLessThanOrEqual(3_000_000);
    const count = (c) => (c.encoderLayers + c.decoderLayers) * c.heads;
    expect(header.heads).toHaveLength(count(models.encoder.config) + count(models.decoder.config));
    for (const h of header.heads) {
      expect(h.label.en.length).toBeGreaterThan(0);
      expect(h.label['zh-CN'].length).toBeGreaterThan(0);
      expect(h.kind === 'none').toBe(h.score < 0.5);
    }
  });

  it('holds the heads the report lists, and they measure the same again', () => {
    expect(header.heads).toEqual(report.heads);
    expect([...measureHeads(models.encoder, 'encoder'), ...measureHeads(models.decoder, 'decoder')]).toEqual(report.heads);
  }, SLOW);

  for (const language of ['en', 'zh']) {
    it(`${language}: the decoder's held-out cross-entropy, the bigram's and top-5 are the reported ones`, () => {
      const quality = decoderQuality(models.decoder, language);
      expect(quality).toEqual(report.quality[language].decoder);
      expect(quality.crossEntropy).toBeLessThan(quality.bigram);
    }, SLOW);

    it(`${language}: the famous-pair goal measures as reported, and the famous pair reads the same through loadReader`, async () => {
      const goal = pronounGoal(models.encoder, language);
      expect(goal).toEqual(report.quality[language].pronoun);
      expect(header.languages[BUNDLE_LANGUAGE[language]].pronounHead).toEqual(goal.head);
      const reader = await lab.loadReader({ language: BUNDLE_LANGUAGE[language] });
      try {
        expect(reader.facts.pronounHead).toEqual(goal.head);
        const famous = pronounPairs({ language, split: 'test' }).find((p) => p.famous);
        famous.halves.forEach((half, k) => {
          const { tokens, attention } = reader.attend(half.text);
          const { offsets } = reader.tokenize(half.text);
          const m = attention[goal.head.layer][goal.head.head];
          expect(tokens.join('').replaceAll('▁', ' ')).toBe(half.text);
          const at = piecesIn(offsets, half.pronoun.span)[0];
          const on = (span) => piecesIn(offsets, span).reduce((sum, j) => sum + m.data[at * m.cols + j], 0);
          const reported = goal.famous.halves[k];
          expect(reported.text).toBe(half.text);
          expect(on(half.candidates[half.referent].span)).toBeCloseTo(reported.onReferent, 4);
          expect(on(half.candidates[1 - half.referent].span)).toBeCloseTo(reported.onOther, 4);
        });
      } finally {
        reader.dispose();
      }
    }, SLOW);
  }
});

describe('a bounded piece of the recipe', () => {
  for (const name of ['encoder', 'decoder']) {
    it(`the ${name}'s first steps lose and make what they did when the reader was packed`, async () => {
      const lab = await loadTrainingLab(true);
      const again = firstSteps(lab, name);
      expect(again).toEqual(report.firstSteps[name]);
      expect(again.losses.every(Number.isFinite)).toBe(true);
    }, SLOW);
  }
});
