// The two WebAssembly builds: init() chooses and reports the build, the
// options are checked, and the SIMD and scalar builds agree with each other
// on every function (within float32 rounding of a different summation order).
import { readFile } from 'node:fs/promises';

import { beforeAll, describe, expect, it } from 'vitest';

import { init } from '../../dist/node.js';
import { init as initTraining } from '../../dist/training-node.js';
import { SIZES, expectClose, loadLab, randomBits, randomMatrix, randomVector, rng } from './helpers.js';
import * as R from './reference.js';

const close = (a, b, label) => expectClose(a, R.fromMatrix(b), { atol: 1e-5, rtol: 1e-4, label });

describe('init', () => {
  it('loads the SIMD build by default on Node (which supports SIMD128)', async () => {
    const lab = await init();
    expect(lab.simd).toBe(true);
    expect(lab.memoryLimit).toBeGreaterThan(0);
  });

  it('{ simd: false } forces the scalar build, { simd: true } the SIMD one', async () => {
    expect((await init({ simd: false })).simd).toBe(false);
    expect((await init({ simd: true })).simd).toBe(true);
  });

  it('accepts the .wasm bytes through wasmBinary', async () => {
    const bytes = await readFile(new URL('../../dist/attention-lab-scalar.wasm', import.meta.url));
    const lab = await init({ simd: false, wasmBinary: bytes });
    expect(lab.simd).toBe(false);
    expect(Array.from(lab.matmul([[1, 2]], [[3], [4]]).data)).toEqual([11]);
  });

  it("one build given the other's .wasm fails with an Error naming the file it needs, and the next init works", async () => {
    const wasm = (name) => readFile(new URL(`../../dist/${name}`, import.meta.url));
    const warn = console.warn;
    const printed = [];
    console.warn = (...a) => printed.push(a.join(' '));
    try {
      await expect(initTraining({ simd: true, wasmBinary: await wasm('attention-lab-simd.wasm') })).rejects.toThrow(
        /^init: the wasmBinary given could not be instantiated; this entry needs attention-lab-training-simd\.wasm \(is it the other build's file\?\): /,
      );
      await expect(init({ simd: false, wasmBinary: await wasm('attention-lab-training-scalar.wasm') })).rejects.toThrow(
        /^init: the wasmBinary given could not be instantiated; this entry needs attention-lab-scalar\.wasm .*LinkError/,
      );
      await expect(init({ wasmUrl: 'file:///nowhere/attention-lab-simd.wasm' })).rejects.toThrow(/^init: wasmUrl file:\/\/\/nowhere\/attention-lab-simd\.wasm could not be instantiated: \S/);
      // Bytes that are no .wasm at all: the engine's reason, without the glue's advice to rebuild with ASSERTIONS.
      const junk = await init({ wasmBinary: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) }).catch((e) => e);
      expect(junk.message).toMatch(/^init: the wasmBinary given could not be instantiated: CompileError: .*magic word/);
      expect(junk.message).not.toMatch(/ASSERTIONS|Aborted/);
    } finally {
      console.warn = warn;
    }
    expect(printed).toEqual([]); // the glue's own messages went into the errors, not the console
    expect(Array.from((await init()).matmul([[1, 2]], [[3], [4]]).data)).toEqual([11]);
  });

  it('rejects unknown options and non-object options', async () => {
    await expect(init({ smid: false })).rejects.toThrow(/init: unknown option "smid"/);
    await expect(init('simd')).rejects.toThrow(/init: options must be an object/);
  });

  it('falls back to the scalar build where WebAssembly.validate rejects SIMD, and { simd: true } then fails clearly', async () => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = () => false;
    try {
      const lab = await init();
      expect(lab.simd).toBe(false);
      expect(Array.from(lab.matmul([[1, 2]], [[3], [4]]).data)).toEqual([11]);
      await expect(init({ simd: true })).rejects.toThrow(/init: .*simd.*not support/i);
    } finally {
      WebAssembly.validate = validate;
    }
  });

  it('two instances of the same build give bit-identical results', async () => {
    const [a, b] = [await init({ simd: true }), await init({ simd: true })];
    const rand = rng(12);
    const [Q, K, V] = [randomMatrix(rand, 33, 16), randomMatrix(rand, 47, 16), randomMatrix(rand, 47, 9)];
    const [ra, rb] = [a.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: true }), b.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: true })];
    expect(ra).toStrictEqual(rb);
  });

  it('gives independent instances: releasing one does not affect another', async () => {
    const [a, b] = [await init({ simd: false }), await init({ simd: false })];
    const S = [[1, 2, 3]];
    const before = b.softmax(S);
    a.releaseMemory();
    expect(Array.from(b.softmax(S).data)).toEqual(Array.from(before.data));
    expect(Array.from(a.softmax(S).data)).toEqual(Array.from(before.data));
  });
});

describe('the SIMD and scalar builds agree', () => {
  let simd;
  let scalar;
  beforeAll(async () => {
    [simd, scalar] = [await loadLab(true), await loadLab(false)];
    expect([simd.simd, scalar.simd]).toEqual([true, false]);
  });

  it.each(SIZES)('matmul and softmax at %i', (s) => {
    const rand = rng(s + 900);
    const [A, B] = [randomMatrix(rand, s, s + 3), randomMatrix(rand, s + 3, s)];
    close(simd.matmul(A, B), scalar.matmul(A, B), 'matmul');
    const S = randomMatrix(rand, s, s, -5, 5);
    close(simd.softmax(S), scalar.softmax(S), 'softmax');
    close(simd.softmax(S, { mask: 'causal' }), scalar.softmax(S, { mask: 'causal' }), 'masked softmax');
  });

  it.each(SIZES)('every attention function at %i, traced, with and without a mask', (s) => {
    const rand = rng(s + 901);
    const X = randomMatrix(rand, s, 8);
    const [Q, K, V] = [randomMatrix(rand, s, s), randomMatrix(rand, s + 1, s), randomMatrix(rand, s + 1, 5)];
    const bits = randomBits(rand, s, s + 1);
    const addW = { Wq: randomMatrix(rand, s, 6), Wk: randomMatrix(rand, s, 6), wv: randomVector(rand, 6) };
    const mh = { heads: 2, Wq: randomMatrix(rand, 8, 8), Wk: randomMatrix(rand, 8, 8), Wv: randomMatrix(rand, 8, 6), Wo: randomMatrix(rand, 6, 8) };
    const pairs = [
      ['scaledDotProductAttention', (lab) => lab.scaledDotProductAttention(Q, K, V, { trace: true })],
      ['scaledDotProductAttention masked', (lab) => lab.scaledDotProductAttention(Q, K, V, { mask: bits, trace: true })],
      ['additiveAttention', (lab) => lab.additiveAttention(Q, K, V, { ...addW, mask: { validLens: 1 }, trace: true })],
      ['selfAttention', (lab) => lab.selfAttention(X, { Wq: mh.Wq, Wk: mh.Wk, Wv: mh.Wv, mask: 'causal', trace: true })],
    ];
    for (const [label, call] of pairs) {
      const [a, b] = [call(simd), call(scalar)];
      close(a.output, b.output, `${label} output`);
      close(a.weights, b.weights, `${label} weights`);
      expect(a.steps.map((x) => x.id)).toEqual(b.steps.map((x) => x.id));
      a.steps.forEach((step, i) => {
        if (step.id === 'masked') expect(Array.from(step.mask)).toEqual(Array.from(b.steps[i].mask));
        else close(step.matrix, b.steps[i].matrix, `${label} step ${step.id}`);
      });
    }
    const [a, b] = [simd.multiHeadAttention(X, { ...mh, trace: true }), scalar.multiHeadAttention(X, { ...mh, trace: true })];
    close(a.output, b.output, 'multiHead output');
    close(a.concat, b.concat, 'multiHead concat');
    a.heads.forEach((head, h) => close(head.weights, b.heads[h].weights, `head ${h} weights`));
  });

  it.each(['gaussian', 'boxcar', 'epanechnikov', 'constant'])('nadarayaWatson with the %s kernel', (kernel) => {
    const rand = rng(kernel.length + 902);
    const xTrain = randomVector(rand, 65, 0, 5);
    const yTrain = randomVector(rand, 65);
    const xQuery = randomVector(rand, 17, 0, 5);
    const [a, b] = [simd.nadarayaWatson(xTrain, yTrain, xQuery, { kernel }), scalar.nadarayaWatson(xTrain, yTrain, xQuery, { kernel })];
    expectClose(a.predictions, Array.from(b.predictions), { atol: 1e-5, rtol: 1e-4 });
    close(a.weights, b.weights, 'weights');
  });
});
