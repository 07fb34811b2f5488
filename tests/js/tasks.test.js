// The contract every task keeps (docs/api.md, "Training tasks"): the four special ids, encode/decode,
// batch shapes, padding and types, teacher forcing, determinism, the split, errors; and lab.tasks.
import { describe, expect, it } from 'vitest';

import { TASKS } from '../../bindings/tasks/index.js';
import { loadLab } from './helpers.js';

const NAMES = ['dates', 'reverse', 'grammar', 'repeat'];
const row = (a, b, length) => Array.from(a.subarray(b * length, (b + 1) * length));

describe.each(NAMES)('tasks.%s', (name) => {
  const task = TASKS[name];

  it('has the four special tokens first and a kind', () => {
    expect(task.name).toBe(name);
    expect(task.vocabulary.slice(0, 4)).toEqual(['<pad>', '<bos>', '<eos>', '<unk>']);
    expect([task.pad, task.bos, task.eos, task.unk]).toEqual([0, 1, 2, 3]);
    expect(new Set(task.vocabulary).size).toBe(task.vocabulary.length);
    expect(task.kind).toBe(name === 'dates' || name === 'reverse' ? 'seq2seq' : 'lm');
    expect(Object.isFrozen(task) && Object.isFrozen(task.vocabulary) && Object.isFrozen(task.defaults.model)).toBe(true);
  });

  it('batches are padded Int32Arrays of the stated shapes, with input = bos + target shifted right', () => {
    const b = task.batch({ seed: 5, size: 64, split: 'train' });
    expect(b.size).toBe(64);
    expect(b.input).toBeInstanceOf(Int32Array);
    expect(b.target).toBeInstanceOf(Int32Array);
    expect(b.input.length).toBe(b.size * b.length);
    expect(b.target.length).toBe(b.size * b.length);
    expect(b.length).toBeLessThanOrEqual(task.maxLength);
    expect(b.examples.length).toBe(b.size);
    let longestRow = 0;
    for (let r = 0; r < b.size; r++) {
      const input = row(b.input, r, b.length);
      const target = row(b.target, r, b.length);
      const used = input.indexOf(task.pad) === -1 ? b.length : input.indexOf(task.pad);
      longestRow = Math.max(longestRow, used);
      expect(input[0]).toBe(task.bos);
      expect(input.slice(used).every((id) => id === task.pad)).toBe(true); // padding after the row
      expect(target.slice(used).every((id) => id === task.pad)).toBe(true);
      for (let i = 0; i + 1 < used; i++) if (target[i] !== task.pad) expect(target[i]).toBe(input[i + 1]); // shifted by one
      expect(target[used - 1]).toBe(task.eos); // the row's last prediction is eos
      for (const id of [...input, ...target]) expect(id >= 0 && id < task.vocabulary.length).toBe(true);
    }
    expect(longestRow).toBe(b.length); // no all-pad column
    if (task.kind === 'seq2seq') {
      expect(b.source).toBeInstanceOf(Int32Array);
      expect(b.source.length).toBe(b.size * b.sourceLength);
      expect(b.sourceLength).toBeLessThanOrEqual(task.maxSourceLength);
      b.examples.forEach((e, r) => {
        const ids = Array.from(task.encode(e.source));
        expect(row(b.source, r, b.sourceLength)).toEqual([...ids, ...Array(b.sourceLength - ids.length).fill(task.pad)]);
        expect(row(b.target, r, b.length).filter((id) => id !== task.pad)).toEqual([...task.encode(e.target), task.eos]);
        expect(task.decode(row(b.input, r, b.length))).toBe(e.target);
      });
    } else {
      expect(b.source).toBeNull();
      expect(b.sourceLength).toBe(0);
      expect(task.maxSourceLength).toBe(0);
    }
  });

  it('is deterministic: the same seed gives the same batch, another seed or split another', () => {
    const a = task.batch({ seed: 9, size: 32, split: 'validation' });
    const again = task.batch({ seed: 9, size: 32, split: 'validation' });
    expect(Array.from(again.input)).toEqual(Array.from(a.input));
    expect(Array.from(again.target)).toEqual(Array.from(a.target));
    expect(again.examples).toEqual(a.examples);
    expect(task.batch({ seed: 10, size: 32, split: 'validation' }).examples).not.toEqual(a.examples);
    expect(task.batch({ seed: 9, size: 32, split: 'train' }).examples).not.toEqual(a.examples);
    // a smaller batch of the same seed is the first rows of the larger one
    expect(task.batch({ seed: 9, size: 8, split: 'validation' }).examples).toEqual(a.examples.slice(0, 8));
  });

  it('keeps the splits apart over thousands of examples', () => {
    const keys = (split) => new Set([1, 2, 3].flatMap((seed) => task.batch({ seed, size: 1000, split }).examples.map((e) => e.source)));
    const train = keys('train');
    const validation = keys('validation');
    expect(validation.size).toBeGreaterThan(200);
    for (const s of validation) expect(train.has(s)).toBe(false);
  });

  it('encodes and decodes: round trip, unk for unknown symbols, decode stops at eos and skips pad and bos', () => {
    const { examples } = task.batch({ seed: 2, size: 50 });
    for (const e of examples) {
      const ids = task.encode(e.source);
      expect(ids).toBeInstanceOf(Int32Array);
      expect(Array.from(ids)).not.toContain(task.unk);
      expect(task.decode(ids)).toBe(e.source);
      expect(task.decode([task.bos, ...ids, task.eos, ...task.encode(e.source)])).toBe(e.source);
      expect(task.decode(Int32Array.from([task.pad, ...ids, task.pad]))).toBe(e.source);
      expect(task.tokens(ids)).toEqual(Array.from(ids, (id) => task.vocabulary[id]));
    }
    expect(Array.from(task.encode('@'))).toEqual([task.unk]);
    expect(task.tokens([0, 1, 2, 3])).toEqual(['<pad>', '<bos>', '<eos>', '<unk>']);
    for (const text of task.examples) expect(Array.from(task.encode(text))).not.toContain(task.unk);
  });

  it('says what it starts from and what counts as learned', () => {
    const { model, training } = task.defaults;
    expect(model.dModel % model.heads).toBe(0);
    expect(model.encoderLayers > 0).toBe(task.kind === 'seq2seq');
    expect(model.decoderLayers).toBeGreaterThan(0);
    expect(training.learningRate).toBeGreaterThan(0);
    expect(training.steps * training.batchSize).toBeGreaterThan(10000);
    expect(task.goal).toMatchObject({ metric: 'exactMatch', value: 0.99 });
  });

  it('checks an answer: the right one passes, a changed one fails', () => {
    const grammarCount = name === 'grammar' ? { count: 'agreement' } : {};
    for (const e of task.batch({ seed: 4, size: 20, ...grammarCount }).examples) {
      const [prompt, answer] = task.kind === 'seq2seq' ? [e.source, e.target] : splitPrompt(name, e);
      expect(task.check(prompt, answer), `${prompt} → ${answer}`).toBe(true);
      expect(task.check(prompt, `${answer}x`)).toBe(false);
    }
  });

  it('refuses bad batch options and ids with a clear error', () => {
    const code = { code: 'INVALID_ARGUMENT', name: 'AttentionError' };
    expect(() => task.batch({ seed: 1, size: 0 })).toThrow(expect.objectContaining(code));
    expect(() => task.batch({ seed: 1, size: 0 })).toThrow(`tasks.${name}.batch: size must be an integer in 1…65536, got 0`);
    expect(() => task.batch({ seed: 1.5, size: 2 })).toThrow(/seed must be an integer in 0…4294967295, got 1.5/);
    expect(() => task.batch({ size: 2, split: 'test' })).toThrow(`split must be 'train' or 'validation', got "test"`);
    expect(() => task.batch()).toThrow(/options must be an object/);
    expect(() => task.decode([1, task.vocabulary.length])).toThrow(`tasks.${name}.decode: token id ${task.vocabulary.length} at index 1 is outside the vocabulary (0…${task.vocabulary.length - 1})`);
    expect(() => task.encode(5)).toThrow(expect.objectContaining(code));
  });
});

/** An lm example split into the prompt and the answer the task's check() expects. */
function splitPrompt(name, e) {
  if (name === 'repeat') return [e.source, e.target];
  // grammar: the sentence up to the first determined word, then the rest of it
  const words = TASKS.grammar.sentences.find((s) => s.text === e.source);
  const cut = words.determined[0];
  return [TASKS.grammar.decode(words.ids.subarray(0, cut)), TASKS.grammar.decode(words.ids.subarray(cut))];
}

describe('lab.tasks', () => {
  it('is on the object init() returns, the same tasks in every build', async () => {
    const lab = await loadLab(true);
    expect(Object.keys(lab.tasks)).toEqual(NAMES);
    // dist/tasks is a copy of bindings/tasks: the same vocabularies and batches
    for (const name of NAMES) expect(lab.tasks[name].vocabulary).toEqual(TASKS[name].vocabulary);
    expect(lab.tasks.dates.batch({ seed: 3, size: 4 }).examples).toEqual(TASKS.dates.batch({ seed: 3, size: 4 }).examples);
    const scalar = await loadLab(false);
    expect(scalar.tasks.grammar).toBe(lab.tasks.grammar);
    expect(lab.tasks.dates.encode('2026年12月1日').length).toBe(10);
  });
});
