// The long-sequences panel's measuring harness (web/src/components/cost/measure.js) in Node, apart from
// the panel: the fitted exponent on data of known growth, the rows it is fitted over, the
// stored-pattern sizes, Linformer's projections, and a real (small) run against the library
// from dist/, including a run abandoned half way. perCall runs on a stand-in clock; the real
// runs assert no timing.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { FIT_FROM, METHOD_KEYS, SIZES, exponents, fittedRows, growthExponent, measureAll, perCall, projections, shownTimes, sizesUpTo, storedKiB } from '../../web/src/components/cost/measure.js';
import { randomMatrix } from '../../web/src/random.js';
import { loadLab } from './helpers.js';

const xs = [64, 128, 256, 512, 1024];

describe('growthExponent', () => {
  it('is the power of exact power laws, whatever the constant factor', () => {
    expect(growthExponent(xs, xs.map((n) => n * n))).toBeCloseTo(2, 12);
    expect(growthExponent(xs, xs.map((n) => 3e-6 * n))).toBeCloseTo(1, 12);
    expect(growthExponent(xs, xs.map((n) => 0.5 * n ** 3))).toBeCloseTo(3, 12);
    expect(growthExponent(xs, xs.map(() => 7))).toBeCloseTo(0, 12);
    expect(growthExponent(xs, xs.map((n) => n ** -0.5))).toBeCloseTo(-0.5, 12);
  });

  it('is the least-squares slope on the log-log points', () => {
    // log2 y = 0, 3, 4 at log2 x = 0, 1, 2: slope 2 (ordinary least squares), not the end-to-end 2 by chance.
    expect(growthExponent([1, 2, 4], [1, 8, 16])).toBeCloseTo(2, 12);
    // log2 y = 0, 1, 4 at log2 x = 0, 1, 2: slope (−1·−5/3 + 1·7/3) / 2 = 2.
    expect(growthExponent([1, 2, 4], [1, 2, 16])).toBeCloseTo(2, 12);
    expect(growthExponent([1, 2, 4], [1, 1, 4])).toBeCloseTo(1, 12);
  });

  it('drops points whose logarithm is not finite, and is NaN with fewer than two x values', () => {
    expect(growthExponent([64, 128, 256], [0, 128 * 128, 256 * 256])).toBeCloseTo(2, 12);
    expect(growthExponent([64, 128, 256], [Infinity, 128, 256])).toBeCloseTo(1, 12);
    expect(growthExponent([64], [1])).toBeNaN();
    expect(growthExponent([], [])).toBeNaN();
    expect(growthExponent([64, 64, 64], [1, 2, 3])).toBeNaN();
    expect(growthExponent([64, 128], [0, -1])).toBeNaN();
  });
});

describe('the rows fitted, the sizes, the stored bytes', () => {
  const row = (n) => ({ n, full: n * n, local: 5 * n, linear: 2 * n, linformer: n * 1.5 });

  it('fits over n ≥ FIT_FROM when two such rows exist, else over the last three', () => {
    const rows = SIZES.map(row);
    expect(fittedRows(rows).map((r) => r.n)).toEqual(SIZES.filter((n) => n >= FIT_FROM));
    expect(fittedRows(rows.slice(0, 5)).map((r) => r.n)).toEqual([512, 1024]);
    expect(fittedRows(rows.slice(0, 4)).map((r) => r.n)).toEqual([128, 256, 512]);
    expect(fittedRows(rows.slice(0, 2)).map((r) => r.n)).toEqual([64, 128]);
    expect(fittedRows([])).toEqual([]);
  });

  it('gives each variant its exponent over the fitted rows', () => {
    const rows = SIZES.map(row);
    // Below FIT_FROM full attention grows more slowly: only the fitted rows count.
    rows[0].full = 1;
    const e = exponents(rows);
    expect(Object.keys(e)).toEqual(METHOD_KEYS);
    expect(e.full).toBeCloseTo(2, 12);
    for (const key of ['local', 'linear', 'linformer']) expect(e[key]).toBeCloseTo(1, 12);
    expect(exponents([row(64)]).full).toBeNaN();
  });

  it('measures the sizes up to max-n', () => {
    expect(sizesUpTo(4096)).toEqual([64, 128, 256, 512, 1024, 2048, 4096]);
    expect(sizesUpTo(256)).toEqual([64, 128, 256]);
    expect(sizesUpTo(64)).toEqual([64]);
  });

  it('stores 4 bytes per attended pair: n², n(2w − 1), n·k', () => {
    expect(storedKiB(1024, { w: 2, k: 3 })).toEqual({ full: 4096, local: 12, linformer: 12 });
    expect(storedKiB(4096, { w: 32, k: 32 })).toEqual({ full: 65536, local: 1008, linformer: 512 });
  });
});

describe('projections', () => {
  it('are k×n, seeded like the panel says (seed·7 + 21, + 22), with entries of standard deviation 1/√n', () => {
    const { E, F } = projections(32, 1024, 5);
    expect([E.rows, E.cols, F.rows, F.cols]).toEqual([32, 1024, 32, 1024]);
    const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
    expect(same(E.data, randomMatrix(32, 1024, 5 * 7 + 21, 1 / 32).data)).toBe(true);
    expect(same(F.data, randomMatrix(32, 1024, 5 * 7 + 22, 1 / 32).data)).toBe(true);
    expect(same(E.data, F.data)).toBe(false);
    const sd = Math.sqrt(E.data.reduce((s, v) => s + v * v, 0) / E.data.length);
    expect(Math.abs(sd * 32 - 1)).toBeLessThan(0.03);
    expect(same(projections(32, 1024, 5).E.data, E.data)).toBe(true);
  });
});

describe('perCall (on a clock each call moves by a known amount)', () => {
  let clock = 0;
  beforeEach(() => {
    clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
  });
  afterEach(() => vi.restoreAllMocks());

  it('times a call too short for the timer in batches, growing fourfold until one lasts 1.5 ms', () => {
    let calls = 0;
    const per = perCall(() => {
      calls++;
      clock += 0.001;
    }, false);
    expect(per).toBeCloseTo(0.001, 9);
    // Batches of 1, 4, …, 1024 are too short; 4096 calls take 4.096 ms, and three such batches pass 4·MIN_MS.
    expect(calls).toBe(1 + 4 + 16 + 64 + 256 + 1024 + 3 * 4096);
  });

  it('counts five batches of a slow call, plus one untimed call when warming up', () => {
    let calls = 0;
    const slow = () => {
      calls++;
      clock += 0.4;
    };
    expect(perCall(slow, true)).toBeCloseTo(0.4, 9);
    // Warm-up 1, a batch of 1 (0.4 ms, too short), then five batches of 4 (1.6 ms each).
    expect(calls).toBe(1 + 1 + 5 * 4);
  });

  it('keeps the fastest batch, so a moment when the machine was busy does not count', () => {
    let calls = 0;
    const per = perCall(() => {
      calls++;
      // The first timed batch (calls 2–5) is slowed by 2 ms of other work: 0.9 ms a call.
      clock += calls === 3 ? 2.4 : 0.4;
    }, false);
    expect(per).toBeCloseTo(0.4, 9);
  });
});

describe('shownTimes: a time is shown only where its empty call takes under a tenth of it', () => {
  const row = (call, empty) => ({ n: 64, call: Object.fromEntries(METHOD_KEYS.map((k) => [k, call])), empty: Object.fromEntries(METHOD_KEYS.map((k) => [k, empty])) });
  it('shows a call ten times its empty call or more, hides the rest', () => {
    expect(shownTimes(row(1, 0.099))).toEqual({ full: true, local: true, linear: true, linformer: true });
    expect(shownTimes(row(1, 0.1))).toEqual({ full: false, local: false, linear: false, linformer: false });
    expect(shownTimes({ ...row(1, 0.05), empty: { ...row(1, 0.05).empty, linformer: 0.5 } })).toEqual({ full: true, local: true, linear: true, linformer: false });
  });
  it('shows nothing for a row measured without its empty calls', () => {
    expect(Object.values(shownTimes({ n: 64, full: 1, local: 1, linear: 1, linformer: 1 }))).toEqual([false, false, false, false]);
  });
});

describe('measureAll against the library', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });
  const settings = { w: 2, k: 3, d: 8, seed: 4, maxN: 128 };

  it('times every variant at each size up to max-n, telling its progress', async () => {
    const progress = [];
    let asked = 0;
    const result = await measureAll(lab, settings, {
      stillWanted: () => ++asked > 0,
      onProgress: (p) => progress.push([p.current, p.rows.length]),
    });
    expect(result.rows.map((r) => r.n)).toEqual([64, 128]);
    for (const r of result.rows) for (const key of METHOD_KEYS) expect(r[key], `${key} at ${r.n}`).toBeGreaterThan(0);
    // Each timed call and each variant's empty 1×1 call, for the rule of what is shown.
    for (const r of result.rows) for (const key of METHOD_KEYS) expect([r.call[key] > 0, r.empty[key] > 0], `${key} at ${r.n}`).toEqual([true, true]);
    for (const r of result.rows) for (const key of METHOD_KEYS) expect(Number.isFinite(r[key]), `${key} at ${r.n}`).toBe(true);
    // A size is announced before it is timed, and again once its row is in.
    expect(progress).toEqual([
      [64, 0],
      [64, 1],
      [128, 1],
      [128, 2],
    ]);
    // It paused (and asked) between chunks: warm-up 8, then per size 1 + 4 inputs + 18 variant calls + full's blocks.
    expect(asked).toBeGreaterThan(8 + 2 * 23);
    expect(result.ms).toBeGreaterThan(0);
    expect(result.longestChunk).toBeGreaterThan(0);
    expect(result.longestChunk).toBeLessThanOrEqual(result.ms);
  });

  it('stops at the first pause after it is no longer wanted, calling the library no more', async () => {
    let calls = 0;
    const counted = new Proxy(lab, {
      get: (target, name) => (typeof target[name] === 'function' ? (...args) => (calls++, target[name](...args)) : target[name]),
    });
    let asked = 0;
    const progress = [];
    let callsWhenStopped = -1;
    const result = await measureAll(counted, settings, {
      stillWanted: () => {
        if (++asked < 12) return true;
        callsWhenStopped = calls;
        return false;
      },
      onProgress: (p) => progress.push(p.current),
    });
    expect(result).toBeNull();
    expect(callsWhenStopped).toBeGreaterThan(0);
    expect(calls).toBe(callsWhenStopped);
    expect(asked).toBe(12);
    expect(progress).toEqual([64]);
  });

  it('rejects with the library error when a call fails', async () => {
    const M = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });
    const broken = {
      scaledDotProductAttention: (...args) => lab.scaledDotProductAttention(...args),
      localAttention: (...args) => lab.localAttention(...args),
      // Q 2×2 against K 3×3: the library refuses the shapes.
      linearAttention: () => lab.linearAttention(M(2, 2), M(3, 3), M(3, 1)),
      linformerAttention: (...args) => lab.linformerAttention(...args),
    };
    await expect(measureAll(broken, settings)).rejects.toThrow(/linearAttention/);
  });
});
