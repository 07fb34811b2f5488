// lab.tasks.reverse and lab.tasks.repeat: the target is the reverse (the copy) computed here, the
// lengths and symbols are in range, and repeat scores only the copied half (and the eos after it).
import { describe, expect, it } from 'vitest';

import { TASKS } from '../../bindings/tasks/index.js';

const { reverse, repeat } = TASKS;
const rowOf = (a, r, length) => Array.from(a.subarray(r * length, (r + 1) * length));

describe('tasks.reverse', () => {
  it('targets are the sources reversed, 3…10 of 10 symbols, all lengths drawn', () => {
    const b = reverse.batch({ seed: 6, size: 2000 });
    const lengths = new Set();
    for (const { source, target } of b.examples) {
      expect(source).toMatch(/^[a-j]{3,10}$/);
      expect(target).toBe([...source].reverse().join(''));
      expect(reverse.check(source, target)).toBe(true);
      lengths.add(source.length);
    }
    expect([...lengths].sort((x, y) => x - y)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(reverse.symbols.join('')).toBe('abcdefghij');
    expect(reverse.vocabulary.length).toBe(14);
    expect([reverse.maxSourceLength, reverse.maxLength]).toEqual([10, 11]);
    expect(reverse.check('abc', 'abc')).toBe(false);
  });

  it('splits by the sequence', () => {
    const b = reverse.batch({ seed: 2, size: 3000, split: 'validation' });
    for (const e of b.examples) expect(reverse.splitOf(e.source)).toBe('validation');
    for (const e of reverse.batch({ seed: 2, size: 3000 }).examples) expect(reverse.splitOf(e.source)).toBe('train');
  });
});

describe('tasks.repeat', () => {
  it('rows are bos, a sequence, |, its copy; only the copy and its eos are counted', () => {
    const b = repeat.batch({ seed: 12, size: 1000 });
    const lengths = new Set();
    b.examples.forEach(({ source, target }, r) => {
      const n = target.length;
      lengths.add(n);
      expect(source).toBe(`${target}|`);
      expect(target).toMatch(/^[a-p]{4,12}$/);
      const input = rowOf(b.input, r, b.length);
      const labels = repeat.tokens(input.slice(0, 2 * n + 2));
      expect(labels.join('')).toBe(`<bos>${target}|${target}`);
      const t = rowOf(b.target, r, b.length);
      // positions 0…n (bos and the first half) predict random symbols and the separator: not counted
      expect(t.slice(0, n + 1).every((id) => id === repeat.pad)).toBe(true);
      // positions n+1 … 2n predict the copy, 2n+1 predicts eos
      expect(repeat.tokens(t.slice(n + 1, 2 * n + 1)).join('')).toBe(target);
      expect(t[2 * n + 1]).toBe(repeat.eos);
      expect(t.slice(2 * n + 2).every((id) => id === repeat.pad)).toBe(true);
      expect(repeat.check(source, target)).toBe(true);
    });
    expect([...lengths].sort((x, y) => x - y)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(repeat.maxLength).toBe(26);
    expect(repeat.vocabulary.length).toBe(4 + 16 + 1);
    expect(repeat.check('abcd|', 'abce')).toBe(false);
  });
});
