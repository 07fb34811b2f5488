// The demo's input model (no browser): tokens, seeded matrices, URL state.
import { describe, expect, test } from 'vitest';
import { buildModel, outOfRange, parseMatrixText, tokenize } from '../../web/src/model.js';
import { mulberry32, normals } from '../../web/src/random.js';
import { decodeMatrixText, encodeMatrixText, readState, writeState } from '../../web/src/state.js';

describe('input model', () => {
  test('Latin text splits into words, Chinese into characters', () => {
    expect(tokenize('The cat, sat!')).toEqual(['The', 'cat', 'sat']);
    expect(tokenize('我爱 attention 学习')).toEqual(['我', '爱', 'attention', '学', '习']);
    expect(tokenize(Array.from({ length: 140 }, (_, i) => `w${i}`).join(' '))).toHaveLength(128);
  });

  test('seeded: same seed, same matrices; the same word gets the same embedding row', () => {
    const a = buildModel({ sentence: 'the cat the', seed: 5, dModel: 4, dK: 2, heads: 2 });
    const b = buildModel({ sentence: 'the cat the', seed: 5, dModel: 4, dK: 2, heads: 2 });
    expect(a.X.data).toEqual(b.X.data);
    expect(a.Wq.data).toEqual(b.Wq.data);
    expect([a.Wq.rows, a.Wq.cols, a.Wo.rows, a.Wo.cols]).toEqual([4, 4, 4, 4]);
    expect(Array.from(a.X.data.subarray(0, 4))).toEqual(Array.from(a.X.data.subarray(8, 12)));
    const c = buildModel({ sentence: 'the cat the', seed: 6, dModel: 4, dK: 2, heads: 2 });
    expect(c.X.data).not.toEqual(a.X.data);
  });

  test('masks and typed matrices', () => {
    expect(buildModel({ mask: 'padding', validLen: 9, sentence: 'a b c' }).mask).toEqual({ validLens: 3 });
    expect(buildModel({ mask: 'causal' }).mask).toBe('causal');
    expect(buildModel({ mask: 'none' }).mask).toBeUndefined();
    const m = parseMatrixText('1 2\n3, 4\n');
    expect(m).toEqual({ rows: 2, cols: 2, data: Float32Array.from([1, 2, 3, 4]) });
    expect(parseMatrixText('1 2\n3')).toBeNull();
    expect(parseMatrixText('1 x')).toBeNull();
    const typed = buildModel({ sentence: 'a b', dModel: 2 }, { X: m });
    expect(typed.X.data).toEqual(m.data);
  });

  test('mulberry32 and Box-Muller are deterministic and roughly standard normal', () => {
    const g = normals(mulberry32(1));
    const xs = Array.from({ length: 20000 }, g);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
    expect(normals(mulberry32(1))()).toBe(xs[0]);
  });

  test('h·d_k is at most 64: d_k is cut to 64 / h, and the note says so', () => {
    expect(buildModel({ dModel: 64, dK: 64, heads: 8 }).config.dK).toBe(8);
    expect(buildModel({ dModel: 64, dK: 64, heads: 8 }).Wq.cols).toBe(64);
    expect(outOfRange({ dK: '64', heads: '8' })).toEqual([{ name: 'd-k', given: '64', used: '8' }]);
    expect(outOfRange({ dK: '21', heads: '3' })).toEqual([]);
    expect(outOfRange({ dK: '22', heads: '3' })).toEqual([{ name: 'd-k', given: '22', used: '21' }]);
    expect(outOfRange({ dK: '64', heads: '1' })).toEqual([]);
  });

  test('typed matrices: short form for the URL and back; anything but numbers has none', () => {
    expect(encodeMatrixText(' 1 0\n\n0, -2.5 \n')).toBe('1,0;0,-2.5');
    expect(decodeMatrixText('1,0;0,-2.5')).toBe('1 0\n0 -2.5');
    expect(parseMatrixText(decodeMatrixText(encodeMatrixText('1e-3 4\n5 6')))).toEqual(parseMatrixText('1e-3 4\n5 6'));
    expect(encodeMatrixText('1 2\n3')).toBeNull();
    expect(encodeMatrixText('<img src=x onerror=alert(1)>')).toBeNull();
    expect(encodeMatrixText('1 Infinity')).toBeNull();
    const state = { wq: '1,0;0,2', x: '1,2;3,4;5,6' };
    expect(readState(writeState(state))).toEqual(state);
    expect(new URLSearchParams(writeState(state)).get('wq')).toBe('1,0;0,2');
  });

  test('URL state round-trips', () => {
    const state = { sentence: '我 爱 你', seed: '7', dModel: '8', mask: 'causal', step: 'weights', lang: 'zh-CN', panel: 'heads' };
    expect(readState(writeState(state))).toEqual(state);
  });
});
