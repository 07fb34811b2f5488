// The reader's baseline (scripts/reader/bigram.mjs) on the fixture: fitted on most of each
// language's lines, measured on the rest with the shipped vocabulary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenizer, BOS, EOS } from '../../bindings/reader/tokenizer.js';
import { K_GRID, bigramCrossEntropy, chooseK, fitBigram, sequencesOf, unigramCrossEntropy } from '../../scripts/reader/bigram.mjs';

const ROOT = join(import.meta.dirname, '../..');
const tokenizer = createTokenizer(JSON.parse(readFileSync(join(ROOT, 'bindings/reader/vocabulary.json'), 'utf8')));

/** The fixture's lines of one language: the first three quarters to fit, the rest to measure. */
function split(language) {
  const lines = readFileSync(join(ROOT, `tests/fixtures/reader/${language}.txt`), 'utf8').split('\n').filter(Boolean);
  const cut = Math.floor(lines.length * 0.75);
  return { train: sequencesOf(tokenizer, lines.slice(0, cut).join('\n')), held: sequencesOf(tokenizer, lines.slice(cut).join('\n')) };
}

describe('reader bigram baseline', () => {
  it('frames each line as <bos> pieces <eos>', () => {
    const [seq] = sequencesOf(tokenizer, 'Call me Ishmael.');
    expect(seq[0]).toBe(BOS);
    expect(seq.at(-1)).toBe(EOS);
    expect(tokenizer.decode(seq)).toBe('Call me Ishmael.');
  });

  it('gives probabilities that sum to 1 over the vocabulary after any piece', () => {
    const { train } = split('en');
    const model = fitBigram(train, tokenizer.size);
    for (const previous of [BOS, train[0][1], 4]) {
      let total = 0;
      for (let next = 0; next < tokenizer.size; next++) total += Math.exp(-bigramCrossEntropy(model, [Int32Array.of(previous, next)], 0.01));
      expect(total).toBeCloseTo(1, 9);
    }
  });

  for (const language of ['en', 'zh']) {
    it(`${language}: on the text it was fitted on, a finite cross-entropy below the unigram's`, () => {
      const { train, held } = split(language);
      const all = [...train, ...held];
      const model = fitBigram(all, tokenizer.size);
      const bigram = chooseK(model, all);
      const unigram = chooseK(model, all, unigramCrossEntropy);
      expect(Number.isFinite(bigram.crossEntropy) && bigram.crossEntropy > 0).toBe(true);
      expect(bigram.crossEntropy).toBeLessThan(unigram.crossEntropy - 1);
    });

    it(`${language}: held out, finite and below the uniform guess (a few KB is too little to beat the unigram there)`, () => {
      const { train, held } = split(language);
      const model = fitBigram(train, tokenizer.size);
      const bigram = chooseK(model, held);
      expect(Number.isFinite(bigram.crossEntropy)).toBe(true);
      expect(bigram.crossEntropy).toBeLessThan(Math.log(tokenizer.size)); // ln 4096 ≈ 8.32 nats
      // k is chosen where the held-out text is best: its neighbours on the grid do worse
      const i = K_GRID.indexOf(bigram.k);
      for (const j of [i - 1, i + 1]) if (j >= 0 && j < K_GRID.length) expect(bigramCrossEntropy(model, held, K_GRID[j])).toBeGreaterThan(bigram.crossEntropy);
    });
  }
});
