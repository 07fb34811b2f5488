// lab.tasks.grammar against rules written here from the grammar's description (not from its code):
// English verbs agree with the head noun across the relative clause, Chinese 都 goes with a plural
// (那些) head, a pronoun names exactly one of the two nouns and the answer is that noun; and what
// batch({ count }) scores.
import { describe, expect, it } from 'vitest';

import { TASKS } from '../../bindings/tasks/index.js';

const { grammar } = TASKS;

const EN_PLURAL = (w) => w === 'men' || w === 'women' || /s$/.test(w);
const EN_PERSON = { boy: 'm', boys: 'm', man: 'm', men: 'm', girl: 'f', girls: 'f', woman: 'f', women: 'f' };
const ZH_PERSON = { 男孩: 'm', 男人: 'm', 女孩: 'f', 女人: 'f' };

/** Does pronoun p fit the noun phrase (English word; Chinese determiner + noun)? */
function fitsEnglish(p, noun) {
  if (EN_PERSON[noun]) return !EN_PLURAL(noun) && p === (EN_PERSON[noun] === 'm' ? 'he' : 'she');
  return p === (EN_PLURAL(noun) ? 'they' : 'it');
}
function fitsChinese(p, det, noun) {
  if (ZH_PERSON[noun]) return det === '那个' && p === (ZH_PERSON[noun] === 'm' ? '他' : '她');
  return p === (det === '那些' ? '它们' : '它');
}

/** Throws unless the words are a grammatical sentence; returns the word indices that had one choice. */
function checkSentence(words) {
  const w = words;
  if (w[0] === 'the' && w[2] === 'that') {
    const want = EN_PLURAL(w[1]) ? 'are' : 'is';
    if (w[6] !== want) throw new Error(`agreement: ${w.join(' ')}`);
    return [6];
  }
  if (w[0] === 'the') {
    const [a, b, p, ref] = [w[1], w[4], w[6], w[13]];
    const fits = [a, b].filter((n) => fitsEnglish(p, n));
    if (fits.length !== 1 || fits[0] !== ref || w[7] !== w[10] || w[9] !== 'who') throw new Error(`reference: ${w.join(' ')}`);
    return [13];
  }
  if (w[3] === '的') {
    const plural = w[4] === '那些';
    if ((w[6] === '都') !== plural || (plural && w[7] !== '很') || (!plural && w[6] !== '很')) throw new Error(`都: ${w.join('')}`);
    return [6];
  }
  const fits = [[w[0], w[1]], [w[4], w[5]]].filter(([det, noun]) => fitsChinese(w[7], det, noun));
  if (fits.length !== 1 || fits[0][0] !== w[15] || fits[0][1] !== w[16] || w[11] !== '谁' || w[8] !== w[12]) throw new Error(`reference: ${w.join('')}`);
  return [15, 16];
}

describe('tasks.grammar', () => {
  it('every sentence of the language keeps agreement and reference, and both templates of both languages occur', () => {
    const counts = {};
    for (const s of grammar.sentences) {
      expect(checkSentence([...s.words])).toEqual([...s.determined]);
      counts[`${s.language}/${s.template}`] = (counts[`${s.language}/${s.template}`] ?? 0) + 1;
      expect(Array.from(grammar.encode(s.text))).toEqual(Array.from(s.ids)); // segmentation of text without spaces
      expect(grammar.decode(s.ids)).toBe(s.text);
    }
    expect(counts).toEqual({ 'en/agreement': 3584, 'en/reference': 1024, 'zh/agreement': 3584, 'zh/reference': 1024 });
  });

  it('puts attractors of the other number inside the relative clause', () => {
    const en = grammar.sentences.filter((s) => s.language === 'en' && s.template === 'agreement');
    const mismatch = en.filter((s) => EN_PLURAL(s.words[1]) !== EN_PLURAL(s.words[4]));
    expect(mismatch.length).toBe(en.length / 2);
    const example = en.find((s) => s.text === 'the cats that the dog chased are tired.');
    expect(example?.determined).toEqual([6]);
  });

  it('every sentence of a batch is grammatical, and count "every" scores every next word', () => {
    const b = grammar.batch({ seed: 8, size: 400 });
    for (let r = 0; r < b.size; r++) {
      const input = Array.from(b.input.subarray(r * b.length, (r + 1) * b.length));
      const target = Array.from(b.target.subarray(r * b.length, (r + 1) * b.length));
      const words = grammar.tokens(input.filter((id) => id !== grammar.pad && id !== grammar.bos));
      checkSentence(words);
      expect(grammar.decode(input)).toBe(b.examples[r].source);
      expect(target.slice(0, words.length + 1)).toEqual([...input.slice(1, words.length + 1), grammar.eos]);
    }
  });

  it('count "agreement" scores only the determined words', () => {
    const b = grammar.batch({ seed: 8, size: 400, count: 'agreement' });
    const scored = { en: 0, zh: 0 };
    for (let r = 0; r < b.size; r++) {
      const input = Array.from(b.input.subarray(r * b.length, (r + 1) * b.length));
      const words = grammar.tokens(input.filter((id) => id !== grammar.pad && id !== grammar.bos));
      const determined = checkSentence(words);
      const target = Array.from(b.target.subarray(r * b.length, (r + 1) * b.length));
      const counted = target.flatMap((id, i) => (id === grammar.pad ? [] : [i]));
      expect(counted).toEqual(determined); // input i predicts word i
      expect(counted.map((i) => grammar.vocabulary[target[i]])).toEqual(determined.map((i) => words[i]));
      expect(b.examples[r].target).toBe(determined.map((i) => words[i]).join(' '));
      scored[/[a-z]/.test(words[0]) ? 'en' : 'zh']++;
    }
    expect(scored.en).toBeGreaterThan(150);
    expect(scored.zh).toBeGreaterThan(150);
  });

  it('draws one language when asked, and refuses unknown options', () => {
    const en = grammar.batch({ seed: 1, size: 100, language: 'en' }).examples;
    expect(en.every((e) => /^the /.test(e.source))).toBe(true);
    const zh = grammar.batch({ seed: 1, size: 100, language: 'zh' }).examples;
    expect(zh.every((e) => /^那/.test(e.source))).toBe(true);
    expect(() => grammar.batch({ size: 1, language: 'fr' })).toThrow(`tasks.grammar.batch: language must be 'both', 'en' or 'zh', got "fr"`);
    expect(() => grammar.batch({ size: 1, count: 'some' })).toThrow(/count must be 'every' or 'agreement'/);
  });

  it('the validation sentences are never trained on', () => {
    const validation = new Set(grammar.sentences.filter((s) => s.split === 'validation').map((s) => s.text));
    expect(validation.size / grammar.sentences.length).toBeGreaterThan(0.08);
    expect(validation.size / grammar.sentences.length).toBeLessThan(0.12);
    for (let seed = 1; seed <= 5; seed++) {
      for (const e of grammar.batch({ seed, size: 1000, split: 'train' }).examples) expect(validation.has(e.source)).toBe(false);
      for (const e of grammar.batch({ seed, size: 200, split: 'validation' }).examples) expect(validation.has(e.source)).toBe(true);
    }
  });

  it('reads text with or without spaces and marks unknown words', () => {
    expect(grammar.tokens(grammar.encode('那些猫都很累。'))).toEqual(['那些', '猫', '都', '很', '累', '。']);
    expect(grammar.tokens(grammar.encode('the cats were tired.'))).toEqual(['the', 'cats', '<unk>', 'tired', '.']);
    expect(grammar.tokens(grammar.encode('the catz 猫们'))).toEqual(['the', '<unk>', '猫', '<unk>']);
    expect(grammar.check('the cats that the dog chased', 'are tired.')).toBe(true);
    expect(grammar.check('the cats that the dog chased', 'is tired.')).toBe(false);
    expect(grammar.check('那只狗追的那些猫', '很累。')).toBe(false);
  });
});
