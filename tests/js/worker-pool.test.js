// createWorkerPool in Node.js (worker_threads): every split call bit-identical to the one-thread
// call of the same build (odd n, n below the worker count, causal, valid lengths, 0/1 masks, weights
// kept and fused, the packed multi-head layer), the same AttentionError for bad input, close(), a
// worker killed mid-call (the call rejects, the pool restarts it), and the silent fall-back.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { wasmFileName } from '../../dist/builds.js';
import { createWorkerPool } from '../../dist/node.js';
import { nodeWorkers } from '../../dist/parallel/node-workers.js';
import { createPool } from '../../dist/parallel/pool.js';
import { BUILDS, expectIdentical, loadLab, randomBits, randomMatrix, rng, thrown } from './helpers.js';

// smallCall: 0 sends even a 1-row call to the workers, so the split itself is what is tested.
const SPLIT_ALL = { workers: 2, smallCall: 0 };

// n === 0 rows would be an empty nested array, which the mask reads as 0×0: the matrix form keeps n×m.
const bits = (rand, n, m) => ({ rows: n, cols: m, data: Float32Array.from(randomBits(rand, n, m).flat()) });

/** nodeWorkers, keeping every handle it spawns (to kill one) and counting the tasks posted. */
function spyingWorkers(handles, posted = { tasks: 0 }) {
  const spawn = () => {
    const handle = nodeWorkers.spawn();
    const post = handle.post;
    handle.post = (message, transfer) => {
      if (message.type !== 'init') posted.tasks++;
      post(message, transfer);
    };
    handles.push(handle);
    return handle;
  };
  return { ...nodeWorkers, spawn };
}

describe.each(BUILDS)('worker pool, $name build', ({ simd }) => {
  let lab;
  let pool;
  beforeAll(async () => {
    lab = await loadLab(simd);
    pool = await createWorkerPool(lab, SPLIT_ALL);
  });
  afterAll(() => pool?.close());

  test('starts two workers of the same build', () => {
    expect(pool.workers).toBe(2);
    expect(pool.reason).toBe(null);
    expect(pool.build).toBe(lab.build);
  });

  const cases = [
    [1, 1], [2, 5], [3, 3], [5, 7], [17, 17], [64, 33], [65, 65], [130, 200],
  ];
  test.each(cases)('scaledDotProductAttention n = %i, m = %i: bit-identical for every mask, weights kept and fused', async (n, m) => {
    const rand = rng(n * 1000 + m);
    const [Q, K, V] = [randomMatrix(rand, n, 12), randomMatrix(rand, m, 12), randomMatrix(rand, m, 5)];
    const lens = Array.from({ length: n }, (_, i) => (i * 7) % (m + 1));
    for (const mask of [undefined, 'causal', { validLens: lens }, bits(rand, n, m)])
      for (const weights of [true, false]) {
        const one = lab.scaledDotProductAttention(Q, K, V, { mask, weights });
        const split = await pool.scaledDotProductAttention(Q, K, V, { mask, weights });
        const label = `n ${n} m ${m} mask ${typeof mask === 'string' ? mask : mask ? Object.keys(mask)[0] : 'none'} weights ${weights}`;
        expectIdentical(split.output, one.output, `${label}: output`);
        if (weights) expectIdentical(split.weights, one.weights, `${label}: weights`);
        else expect(split.weights).toBeUndefined();
      }
  });

  test('a custom scale and nested-array inputs give the same bits', async () => {
    const rand = rng(5);
    const [Q, K, V] = [randomMatrix(rand, 9, 4), randomMatrix(rand, 11, 4), randomMatrix(rand, 11, 3)];
    const nested = (a) => Array.from({ length: a.rows }, (_, i) => Array.from(a.data.subarray(i * a.cols, (i + 1) * a.cols)));
    const one = lab.scaledDotProductAttention(Q, K, V, { scale: 0.3 });
    const split = await pool.scaledDotProductAttention(nested(Q), nested(K), nested(V), { scale: 0.3 });
    expectIdentical(split.output, one.output, 'output');
    expectIdentical(split.weights, one.weights, 'weights');
  });

  test.each([[1], [5], [33], [64]])('the packed multi-head layer at n = %i: bit-identical output and concat', async (n) => {
    const rand = rng(n + 3);
    // d_out 30: not a whole number of vectors, so the padded W_O is exercised.
    const options = { heads: 4, Wq: randomMatrix(rand, 24, 16), Wk: randomMatrix(rand, 24, 16), Wv: randomMatrix(rand, 24, 20), Wo: randomMatrix(rand, 20, 30) };
    const [one, split] = [lab.createMultiHeadAttention(options), await pool.createMultiHeadAttention(options)];
    const X = randomMatrix(rand, n, 24);
    for (const mask of [undefined, 'causal', bits(rand, n, n)]) {
      const [a, b] = [one.forward(X, { mask }), await split.forward(X, { mask })];
      expectIdentical(b.output, a.output, `n ${n} output`);
      expectIdentical(b.concat, a.concat, `n ${n} concat`);
    }
    expect([split.heads, split.dModel, split.dOut]).toEqual([4, 24, 30]);
    one.dispose();
    split.dispose();
    await expect(split.forward(X)).rejects.toMatchObject({ code: 'DISPOSED' });
  });

  test('one head over two workers (a worker with no head still mixes rows)', async () => {
    const rand = rng(11);
    const options = { heads: 1, Wq: randomMatrix(rand, 8, 8), Wk: randomMatrix(rand, 8, 8), Wv: randomMatrix(rand, 8, 8), Wo: randomMatrix(rand, 8, 8) };
    const X = randomMatrix(rand, 13, 8);
    const split = await pool.createMultiHeadAttention(options);
    expectIdentical((await split.forward(X)).output, lab.createMultiHeadAttention(options).forward(X).output, 'output');
    split.dispose();
  });
});

describe('worker pool: errors, close, a killed worker, fall-back', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });
  const rand = rng(99);
  const M = (r, c) => randomMatrix(rand, r, c);

  test('bad input rejects with the same AttentionError as the one-thread call', async () => {
    const pool = await createWorkerPool(lab, SPLIT_ALL);
    const calls = [
      [[M(3, 4), M(5, 3), M(5, 2)], {}],
      [[M(3, 4), M(5, 4), M(4, 2)], {}],
      [[M(3, 4), M(5, 4), M(5, 2)], { mask: { validLens: [1, 2, 9] } }],
      [[M(3, 4), M(5, 4), M(5, 2)], { mask: 'upper' }],
      [[M(3, 4), M(5, 4), M(5, 2)], { weights: false, trace: true }],
      [[M(3, 4), M(5, 4), M(5, 2)], { scale: 1e39 }],
      [[M(3, 4), M(5, 4), M(5, 2)], { typo: 1 }],
    ];
    for (const [args, options] of calls) {
      const expected = thrown(() => lab.scaledDotProductAttention(...args, options));
      await expect(pool.scaledDotProductAttention(...args, options)).rejects.toMatchObject({ name: 'AttentionError', code: expected.code, message: expected.message });
    }
    const layerOptions = { heads: 3, Wq: M(6, 4), Wk: M(6, 4), Wv: M(6, 6), Wo: M(6, 5) };
    const expected = thrown(() => lab.createMultiHeadAttention(layerOptions));
    await expect(pool.createMultiHeadAttention(layerOptions)).rejects.toMatchObject({ code: expected.code, message: expected.message });
    const layer = await pool.createMultiHeadAttention({ ...layerOptions, heads: 2 });
    await expect(layer.forward(M(4, 5))).rejects.toMatchObject({ code: 'SHAPE_MISMATCH', message: expect.stringContaining('4×5') });
    pool.close();
  });

  test('after close() every call rejects, naming the pool; close() twice is fine', async () => {
    const pool = await createWorkerPool(lab, SPLIT_ALL);
    const layer = await pool.createMultiHeadAttention({ heads: 1, Wq: M(4, 4), Wk: M(4, 4), Wv: M(4, 4), Wo: M(4, 4) });
    pool.close();
    pool.close();
    expect(pool.workers).toBe(0);
    await expect(pool.scaledDotProductAttention(M(2, 3), M(2, 3), M(2, 3))).rejects.toMatchObject({ code: 'DISPOSED', message: expect.stringMatching(/worker pool was closed/) });
    await expect(layer.forward(M(2, 4))).rejects.toMatchObject({ code: 'DISPOSED' });
  });

  test('a worker killed mid-call rejects that call with a clear Error, then the pool restarts it', async () => {
    const handles = [];
    const pool = await createPool(lab, SPLIT_ALL, spyingWorkers(handles));
    const [Q, K, V] = [M(600, 64), M(600, 64), M(600, 64)];
    const call = pool.scaledDotProductAttention(Q, K, V);
    handles[1].terminate();
    await expect(call).rejects.toThrow(/scaledDotProductAttention: a worker of the pool stopped before it answered \(it exited with code 1\)/);
    const again = await pool.scaledDotProductAttention(Q, K, V);
    expectIdentical(again.output, lab.scaledDotProductAttention(Q, K, V).output, 'after the restart');
    expect(handles.length).toBe(3);
    expect(pool.workers).toBe(2);
    pool.close();
  });

  test('every packed layer is packed again in a restarted worker', async () => {
    const handles = [];
    const pool = await createPool(lab, SPLIT_ALL, spyingWorkers(handles));
    const options = { heads: 2, Wq: M(8, 8), Wk: M(8, 8), Wv: M(8, 8), Wo: M(8, 8) };
    const other = { heads: 4, Wq: M(8, 8), Wk: M(8, 8), Wv: M(8, 8), Wo: M(8, 6) };
    const [layer, second] = [await pool.createMultiHeadAttention(options), await pool.createMultiHeadAttention(other)];
    handles[0].terminate();
    const X = M(9, 8);
    let result = null;
    for (let attempt = 0; attempt < 5 && !result; attempt++) result = await layer.forward(X).catch(() => null);
    expectIdentical(result.output, lab.createMultiHeadAttention(options).forward(X).output, 'after the restart');
    expectIdentical((await second.forward(X)).output, lab.createMultiHeadAttention(other).forward(X).output, 'the second layer after the restart');
    pool.close();
  });

  test.each([
    ['no Worker at all', { spawn: () => { throw new Error('this environment has no Worker'); } }, /no Worker/],
    ['a build that fails to load', { wasmBytes: async () => new Uint8Array([0, 97, 115, 109]) }, /could not load the simd build/],
    ['bytes that cannot be read', { wasmBytes: async () => { throw new Error('blocked'); } }, /blocked/],
  ])('%s: the pool runs on this thread and says why', async (_, change, reason) => {
    const pool = await createPool(lab, SPLIT_ALL, { ...nodeWorkers, ...change });
    expect(pool.workers).toBe(0);
    expect(pool.reason).toMatch(reason);
    const [Q, K, V] = [M(7, 4), M(7, 4), M(7, 3)];
    expectIdentical((await pool.scaledDotProductAttention(Q, K, V, { mask: 'causal' })).output, lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' }).output, 'fall-back');
    const options = { heads: 2, Wq: M(4, 4), Wk: M(4, 4), Wv: M(4, 4), Wo: M(4, 4) };
    const X = M(5, 4);
    expectIdentical((await (await pool.createMultiHeadAttention(options)).forward(X)).output, lab.createMultiHeadAttention(options).forward(X).output, 'fall-back layer');
    pool.close();
  });

  describe('the wasm option: the bytes or URL of a .wasm init() loaded from elsewhere', () => {
    // An adapter that cannot find the .wasm next to the entry, as on a page served from a CDN.
    const nowhere = { ...nodeWorkers, wasmBytes: async () => { throw new Error('no .wasm next to the entry'); } };
    const own = () => new Uint8Array(readFileSync(new URL(`../../dist/${wasmFileName(lab.build !== 'scalar', lab.build)}`, import.meta.url)));
    const check = async (pool) => {
      expect([pool.workers, pool.reason]).toEqual([2, null]);
      const [Q, K, V] = [M(9, 8), M(11, 8), M(11, 5)];
      expectIdentical((await pool.scaledDotProductAttention(Q, K, V, { mask: 'causal' })).output, lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' }).output, 'given wasm');
      pool.close();
    };

    test('bytes (Uint8Array or ArrayBuffer) start the workers; they are copied, not detached', async () => {
      const bytes = own();
      await check(await createPool(lab, { ...SPLIT_ALL, wasm: bytes }, nowhere));
      expect(bytes.byteLength).toBeGreaterThan(1000);
      const buffer = own().buffer;
      await check(await createPool(lab, { ...SPLIT_ALL, wasm: buffer }, nowhere));
      expect(buffer.byteLength).toBeGreaterThan(1000);
    });

    test('a URL is fetched (a data: URL here); one that fails leaves the pool on this thread with the reason', async () => {
      const url = `data:application/wasm;base64,${Buffer.from(own()).toString('base64')}`;
      await check(await createPool(lab, { ...SPLIT_ALL, wasm: url }, nowhere));
      await check(await createPool(lab, { ...SPLIT_ALL, wasm: new URL(url) }, nowhere));
      const failed = await createPool(lab, { ...SPLIT_ALL, wasm: 'file:///nowhere/attention-lab.wasm' }, nowhere);
      expect(failed.workers).toBe(0);
      expect(failed.reason).toMatch(/no worker could start: .*fetch/i);
      const notWasm = await createPool(lab, { ...SPLIT_ALL, wasm: new Uint8Array([1, 2, 3]) }, nowhere);
      expect([notWasm.workers, notWasm.reason]).toEqual([0, expect.stringMatching(/could not load the \w+ build/)]);
      expect((await notWasm.scaledDotProductAttention(M(3, 4), M(3, 4), M(3, 2))).output.rows).toBe(3);
    });

    test.each([[42, 'number'], [null, 'null'], [{ url: 'x' }, 'Object'], [[0, 97], 'Array']])('wasm: %j is refused, naming what it got', async (wasm, got) => {
      await expect(createWorkerPool(lab, { wasm })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: `createWorkerPool: wasm is ${got}; it must be the bytes of lab.build's .wasm (Uint8Array or ArrayBuffer) or its URL (string or URL)` });
    });
  });

  test('workers: 0 is one thread by choice; a bad workers option throws', async () => {
    const pool = await createWorkerPool(lab, { workers: 0 });
    expect([pool.workers, pool.reason]).toEqual([0, 'workers: 0 was asked for']);
    await expect(createWorkerPool(lab, { workers: 1.5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('workers is 1.5') });
    await expect(createWorkerPool(lab, { threads: 2 })).rejects.toThrow(/threads/);
    await expect(createWorkerPool(lab, { smallCall: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('smallCall is -1') });
    await expect(createWorkerPool({}, {})).rejects.toThrow(/a lab from init/);
  });

  test('idle workers do not keep a Node.js process alive: a script that never calls close() ends', () => {
    const script = `import { createWorkerPool, init } from ${JSON.stringify(new URL('../../dist/node.js', import.meta.url).href)};
      const lab = await init({ fma: false });
      const pool = await createWorkerPool(lab, { workers: 2, smallCall: 0 });
      const Q = [[1, 0], [0, 1], [1, 1]];
      const { output } = await pool.scaledDotProductAttention(Q, Q, Q, { mask: 'causal' });
      console.log(pool.workers, output.rows, output.cols);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.error).toBeUndefined();
    expect([run.status, run.stdout.trim(), run.stderr]).toEqual([0, '2 3 2', '']);
  });

  test('a small call runs on this thread by default; a trace always does', async () => {
    const posted = { tasks: 0 };
    const pool = await createPool(lab, { workers: 2 }, spyingWorkers([], posted));
    const [Q, K, V] = [M(4, 4), M(4, 4), M(4, 4)];
    expectIdentical((await pool.scaledDotProductAttention(Q, K, V)).output, lab.scaledDotProductAttention(Q, K, V).output, 'small');
    const [bigQ, bigK, bigV] = [M(300, 64), M(300, 64), M(300, 64)];
    const traced = await pool.scaledDotProductAttention(bigQ, bigK, bigV, { trace: true });
    expect(traced.steps.map((s) => s.id)).toContain('weights');
    expect(posted.tasks).toBe(0);
    await pool.scaledDotProductAttention(bigQ, bigK, bigV);
    expect(posted.tasks).toBe(2);
    pool.close();
  });
});
