// The reader's tokenizer (bindings/reader/), its training (scripts/reader/train-tokenizer.mjs) and
// the corpus extraction's rules, on the committed vocabulary and the fixture: no corpora install.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenizer, BYTE_PIECES } from '../../bindings/reader/tokenizer.js';
import { dropStageNotes, paragraphs, splitOf } from '../../scripts/reader/corpus.mjs';
import { HAN_PIECES, SIZE, SPECIALS, serialise, trainTokenizer } from '../../scripts/reader/train-tokenizer.mjs';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(ROOT, 'tests/fixtures/reader');
const vocabulary = JSON.parse(readFileSync(join(ROOT, 'bindings/reader/vocabulary.json'), 'utf8'));
const tokenizer = createTokenizer(vocabulary);
const shipped = tokenizer;
const fixture = { en: readFileSync(join(FIXTURE, 'en.txt'), 'utf8'), zh: readFileSync(join(FIXTURE, 'zh.txt'), 'utf8') };
const RUNS = { seed: 20261206, numRuns: 300 };

// Text a reader may paste: emoji (with ZWJ and skin tone), combining marks, RTL scripts and marks,
// zero-width characters, astral Han, lone surrogates, CRLF, the marker itself, English and Chinese.
const PALETTE = [
  'The ', 'animal ', "didn't ", 'cross', ' the street', '. ', ', ', '动物', '没有', '，', '。', '它', '𠀀', '𪚥',
  '👩‍👩‍👧', '👍🏽', '🇫🇷', 'e\u0301', 'n\u0303\u0308', 'שלום ', 'مرحبا', '\u200f', '\u200b', '\u200d', '\ufeff',
  '\ud800', '\udfff', 'a\ud83d', '\r\n', '\n\n', '   ', '\t', '▁', '<0xE2>', '<pad>', 'ß', 'İ', '１２３', '١٢٣', 'x'.repeat(70),
];
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength: 60 }), // any UTF-16 units
  fc.array(fc.constantFrom(...PALETTE), { maxLength: 24 }).map((parts) => parts.join('')),
);

/** Everything tokenize promises about one text, as a list of broken promises (empty when kept). */
function broken(input, tokenizer = shipped) {
  const { tokens, ids, offsets } = tokenizer.tokenize(input);
  const problems = [];
  if (tokens.length !== ids.length || offsets.length !== 2 * ids.length) problems.push('lengths disagree');
  let at = 0;
  for (let i = 0; i < ids.length; i++) {
    const [start, end] = [offsets[2 * i], offsets[2 * i + 1]];
    if (start !== at || end < start) problems.push(`piece ${i} covers [${start}, ${end}) after ${at}`);
    at = end;
    if (!(ids[i] >= 4 && ids[i] < tokenizer.size)) problems.push(`piece ${i} has id ${ids[i]}`);
    if (tokens[i] !== tokenizer.pieces[ids[i]]) problems.push(`piece ${i} is shown as ${tokens[i]}`);
    // a text piece is its slice of the input; a run of byte pieces is its slice's UTF-8
    if (!tokenizer.isByte(ids[i])) {
      if (tokenizer.decode([ids[i]]) !== input.slice(start, end)) problems.push(`piece ${i} is not its slice`);
    } else if (i === 0 || !tokenizer.isByte(ids[i - 1])) {
      let j = i;
      while (j + 1 < ids.length && tokenizer.isByte(ids[j + 1])) j++;
      const slice = input.slice(start, offsets[2 * j + 1]).toWellFormed();
      if (tokenizer.decode(ids.slice(i, j + 1)) !== slice) problems.push(`bytes ${i}…${j} are not their slice`);
    }
  }
  if (at !== input.length) problems.push(`pieces end at ${at} of ${input.length}`);
  // lone surrogates are written as U+FFFD (documented); all else comes back as it was
  if (tokenizer.decode(ids) !== input.toWellFormed()) problems.push('decode(tokenize(x)) is not x');
  return problems;
}

describe('reader tokenizer', () => {
  it('has the specials first, the 256 byte pieces next, and no unknown piece', () => {
    expect(tokenizer.pieces.slice(0, 4)).toEqual(['<pad>', '<bos>', '<eos>', '<mask>']);
    expect(tokenizer.pieces[4]).toBe('<0x00>');
    expect(tokenizer.pieces[4 + 0xe2]).toBe('<0xE2>');
    expect(tokenizer.isByte(4 + BYTE_PIECES - 1) && !tokenizer.isByte(4 + BYTE_PIECES)).toBe(true);
    expect(tokenizer.size).toBe(4096);
    expect(tokenizer.pieces.some((p) => /unk/i.test(p))).toBe(false);
  });

  it('round-trips any text, with offsets that cover it in order and pieces equal to their slices', () => {
    fc.assert(fc.property(text, (input) => broken(input).length === 0), RUNS);
    for (const input of PALETTE) expect(broken(input), JSON.stringify(input)).toEqual([]);
    expect(broken(fixture.en + fixture.zh)).toEqual([]);
  });

  it('writes a character it lacks as its UTF-8 bytes and a lone surrogate as U+FFFD', () => {
    const { tokens, offsets } = tokenizer.tokenize('a😀');
    expect(tokens).toEqual(['a', '<0xF0>', '<0x9F>', '<0x98>', '<0x80>']);
    expect(Array.from(offsets)).toEqual([0, 1, 1, 3, 3, 3, 3, 3, 3, 3]);
    expect(tokenizer.tokenize('\ud800').tokens).toEqual(['<0xEF>', '<0xBF>', '<0xBD>']);
    expect(tokenizer.decode(tokenizer.tokenize('x\udc00y').ids)).toBe('x\ufffdy');
  });

  it('reads the example sentences without falling back to bytes', () => {
    const en = tokenizer.tokenize("The animal didn't cross the street because it was too tired");
    expect(en.ids.some((id) => tokenizer.isByte(id))).toBe(false);
    // one piece per word: the vocabulary was trained with the generated sentences (train-tokenizer.mjs)
    expect(en.tokens).toEqual(['The', '▁animal', '▁didn', "'t", '▁cross', '▁the', '▁street', '▁because', '▁it', '▁was', '▁too', '▁tired']);
    const zh = tokenizer.tokenize('动物没有过马路，因为它太累了');
    expect(zh.tokens).toEqual(Array.from('动物没有过马路，因为它太累了')); // one piece per character
  });

  it('keeps at most maxLength pieces, never half a character, and says how much it read', () => {
    const long = (fixture.en + fixture.zh).repeat(2).slice(0, 10_000);
    const whole = tokenizer.tokenize(long);
    expect(whole.truncated).toBeUndefined();
    const cut = tokenizer.tokenize(long, { maxLength: 512 });
    expect(cut.ids.length).toBe(512);
    expect(Array.from(cut.ids)).toEqual(Array.from(whole.ids.slice(0, 512)));
    expect(cut.truncated).toEqual({ total: whole.ids.length, read: cut.offsets[2 * 512 - 1] });
    expect(tokenizer.tokenize(long, { maxLength: whole.ids.length }).truncated).toBeUndefined();
    // four bytes per emoji: 6 pieces would end inside the second one, so 4 are kept
    const emoji = tokenizer.tokenize('😀😀😀', { maxLength: 6 });
    expect(emoji.ids.length).toBe(4);
    expect(emoji.truncated).toEqual({ total: 12, read: 2 });
    expect(tokenizer.decode(emoji.ids)).toBe('😀');
  });

  it('tokenizes 10,000 characters, prose or one word with no space, into pieces that give the text back', () => {
    const texts = { prose: (fixture.en + fixture.zh).repeat(2).slice(0, 10_000), 'one word': 'abcdefghij'.repeat(1000) };
    for (const [name, long] of Object.entries(texts)) {
      const { ids, offsets } = createTokenizer(vocabulary).tokenize(long); // a fresh cache: the first call's work
      expect(tokenizer.decode(ids), name).toBe(long);
      expect(offsets[offsets.length - 1], name).toBe(long.length);
    }
  });

  it('rejects ids outside the vocabulary and decodes specials only when asked', () => {
    expect(() => tokenizer.decode([4096])).toThrow(/outside the vocabulary/);
    expect(() => tokenizer.decode([1.5])).toThrow(/outside the vocabulary/);
    const ids = [1, ...tokenizer.tokenize('hi').ids, 2];
    expect(tokenizer.decode(ids)).toBe('hi');
    expect(tokenizer.decode(ids, { specials: true })).toBe('<bos>hi<eos>');
  });
});

describe('reader tokenizer training', () => {
  const options = { size: 900, hanPieces: 300, minCount: 2 };

  it('gives the same vocabulary twice, and for the texts in the other order', () => {
    const once = serialise(trainTokenizer([fixture.en, fixture.zh], options));
    expect(serialise(trainTokenizer([fixture.en, fixture.zh], options))).toBe(once);
    // equal counts are broken by the pieces' bytes, not by which pair was seen first
    const lines = (fixture.en + fixture.zh).split('\n').reverse();
    expect(serialise(trainTokenizer([lines.join('\n')], options))).toBe(once);
  });

  it('makes a vocabulary of the size asked whose merges are BPE on the fixture', () => {
    const trained = trainTokenizer([fixture.en, fixture.zh], options);
    const small = createTokenizer(trained);
    expect(small.size).toBe(900);
    expect(broken(fixture.en + fixture.zh, small)).toEqual([]);
    // the first merge is the most frequent pair of characters in the fixture's English units
    const first = small.decode([trained.merges[0], trained.merges[1]]);
    expect(first).toBe(' t');
    // a word seen often becomes one piece
    expect(small.tokenize(' the').tokens).toEqual(['▁the']);
    expect(small.tokenize('the').tokens).not.toEqual(['▁the']);
  });

  it("shipped a vocabulary made with the training script's settings (run it again after changing them)", () => {
    expect(vocabulary.specials).toEqual(SPECIALS);
    expect(tokenizer.size).toBe(SIZE);
    expect(Array.from(vocabulary.chars).filter((c) => /\p{Script=Han}/u.test(c))).toHaveLength(HAN_PIECES);
  });
});

describe('reader corpus extraction', () => {
  it('drops the transcripts stage notes and keeps editorial words', () => {
    expect(dropStageNotes('Thank you. (Applause.) We can [Laughter] do it [applause]. plenty-[laughter]-from [the] States [p.3]'))
      .toBe('Thank you. We can do it. plenty—from [the] States');
  });

  it('joins hard-wrapped lines into paragraphs', () => {
    expect(paragraphs('Call me\nIshmael.  Some\r\nyears ago.\n\n\nThere now\nis your city.\n')).toEqual(['Call me Ishmael. Some years ago.', 'There now is your city.']);
  });

  it('puts a document in the same split whatever else is extracted, about 90 / 5 / 5', () => {
    expect(splitOf('en/moby-dick/chapter_1.txt')).toBe(splitOf('en/moby-dick/chapter_1.txt'));
    const counts = { train: 0, validation: 0, test: 0 };
    for (let i = 0; i < 20_000; i++) counts[splitOf(`zh/doc#${i}`)]++;
    expect(counts.train / 20_000).toBeCloseTo(0.9, 1);
    expect(counts.validation / 20_000).toBeCloseTo(0.05, 1);
    expect(counts.test / 20_000).toBeCloseTo(0.05, 1);
  });
});
