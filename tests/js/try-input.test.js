// What the train panel's try box and the trained views read: the reader's text with a model's
// vocabulary, without regard to case, every piece outside it named (Chinese ones too), and each
// task's longest input (web/src/tokenize.js, web/src/components/train/try-input.js).
import { describe, expect, it } from 'vitest';

import { readInput } from '../../web/src/components/train/try-input.js';
import { foldCharacters, unknownPieces, vocabularyPieces } from '../../web/src/tokenize.js';
import { loadTrainingLab } from './helpers.js';

const lab = await loadTrainingLab(true);
const words = (name) => lab.tasks[name].vocabulary.slice(lab.tasks[name].unk + 1);

describe('vocabularyPieces: a word-level model’s split, without regard to case', () => {
  it('"The Cat" and "the cat" read the same words, as the task’s own tokenizer reads them', () => {
    const g = lab.tasks.grammar;
    const read = (s) => Array.from(g.encode(vocabularyPieces(s, words('grammar')).map((p) => p.word ?? p.text).join(' ')));
    expect(read('The Cat')).toEqual(read('the cat'));
    expect(read('the cat')).toEqual(Array.from(g.encode('the cat')));
    for (const s of g.examples) expect(read(s)).toEqual(Array.from(g.encode(s)));
  });

  it('names every unknown piece: English words and each Chinese character', () => {
    const en = vocabularyPieces('The animal did not cross the street because it was too tired', words('grammar'));
    expect(unknownPieces(en)).toEqual(['animal', 'did', 'not', 'cross', 'street', 'because', 'was', 'too']);
    expect(en[0]).toEqual({ text: 'The', word: 'the' });
    expect(unknownPieces(vocabularyPieces('我爱自然语言处理', words('grammar')))).toEqual(Array.from('我爱自然语言处理'));
    expect(unknownPieces(vocabularyPieces('那只狗追的那些猫', words('grammar')))).toEqual([]);
  });

  it('foldCharacters reads a letter in its other case where only that is known', () => {
    expect(foldCharacters('ABC', words('reverse'))).toEqual({ text: 'abc', unknown: [] });
    expect(foldCharacters('我爱你', words('dates')).unknown).toEqual(['我', '爱', '你']);
    // A word in capitals: read in the first of its forms whose letters the model knows all.
    expect(foldCharacters('DECEMBER 1, 2026', words('dates'))).toEqual({ text: 'December 1, 2026', unknown: [] });
  });
});

describe('readInput: every task says what lies outside it and how long it may be', () => {
  const model = (name) => ({ dates: 41, reverse: 11, grammar: lab.tasks.grammar.maxLength, repeat: lab.tasks.repeat.maxLength })[name];
  it.each(['dates', 'reverse', 'grammar', 'repeat'])('%s', (name) => {
    const task = lab.tasks[name];
    const max = model(name);
    expect(readInput(task, task.examples[0], max)).toMatchObject({ problem: null, unknown: [] });
    expect(readInput(task, '我爱你', max).unknown).toEqual(name === 'grammar' ? ['我', '爱', '你'] : ['我', '爱', '你']);
    expect(readInput(task, 'xyz', max).unknown.length).toBeGreaterThan(0);
    expect(readInput(task, '', max).problem).toBe('empty');
    const long = readInput(task, Array(60).fill('a').join(name === 'grammar' ? ' ' : ''), max);
    expect(long).toMatchObject({ problem: 'long', count: 60 });
  });

  it('the longest inputs: reverse 10 characters, repeat 12 letters and its separator', () => {
    expect(readInput(lab.tasks.reverse, 'abcdefghijab', 11)).toMatchObject({ problem: 'long', count: 12, max: 10 });
    expect(readInput(lab.tasks.reverse, 'abcdefghij', 11).problem).toBeNull();
    expect(readInput(lab.tasks.repeat, 'abcdefghijkl|', 26).problem).toBeNull();
    expect(readInput(lab.tasks.repeat, 'abcdefghijklm|', 26)).toMatchObject({ problem: 'long', max: 13 });
  });
});
