// Memory stays flat over thousands of calls, successful and failing, on both
// builds: the WASM memory does not grow after warm-up, process memory
// (after a forced GC) stays within a generous bound, and repeated identical
// calls give identical results.
import v8 from 'node:v8';
import vm from 'node:vm';

import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError, AttentionRangeError } from '../../dist/node.js';
import { BUILDS, expectIdentical, randomMatrix, randomVector, rng, initWithMemory } from './helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');


const MiB = 1024 * 1024;
const ITERATIONS = 1000;

function usage() {
  gc();
  gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}

describe.each(BUILDS)('memory ($name build)', ({ simd }) => {
  let lab;
  let memory;
  beforeAll(async () => {
    ({ lab, memory } = await initWithMemory(simd));
    expect(memory).toBeInstanceOf(WebAssembly.Memory);
  });

  const rand = rng(4242);
  const X = randomMatrix(rand, 17, 8);
  const [Q, K, V] = [randomMatrix(rand, 17, 8), randomMatrix(rand, 23, 8), randomMatrix(rand, 23, 5)];
  const mh = { heads: 2, Wq: randomMatrix(rand, 8, 8), Wk: randomMatrix(rand, 8, 8), Wv: randomMatrix(rand, 8, 6), Wo: randomMatrix(rand, 6, 4) };
  const addW = { Wq: randomMatrix(rand, 8, 5), Wk: randomMatrix(rand, 8, 5), wv: randomVector(rand, 5) };
  const xTrain = randomVector(rand, 40, 0, 5);
  const yTrain = randomVector(rand, 40);
  const [E, F] = [randomMatrix(rand, 4, 23), randomMatrix(rand, 4, 23)];
  const tall = { rows: 20000, cols: 1, data: new Float32Array(20000) };

  const good = [
    () => lab.matmul(Q, { rows: 8, cols: 23, data: K.data }),
    () => lab.softmax(X, { mask: 'causal' }),
    () => lab.scaledDotProductAttention(Q, K, V, { mask: { validLens: 11 }, trace: true }),
    () => lab.additiveAttention(Q, K, V, { ...addW, mask: 'causal', trace: true }),
    () => lab.selfAttention(X, { Wq: mh.Wq, Wk: mh.Wk, Wv: mh.Wv, trace: true }),
    () => lab.multiHeadAttention(X, { ...mh, mask: 'causal', trace: true }),
    () => lab.nadarayaWatson(xTrain, yTrain, xTrain, { kernel: 'epanechnikov', bandwidth: 0.5 }),
    () => lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', weights: false }),
    () => lab.localAttention(X, X, X, { window: 3, causal: true }),
    () => lab.linearAttention(Q, K, V),
    () => lab.linformerAttention(Q, K, V, { E, F }),
  ];
  const bad = [
    () => lab.matmul(Q, V),
    () => lab.scaledDotProductAttention(Q, K, X),
    () => lab.multiHeadAttention(X, { ...mh, heads: 3 }),
    () => lab.softmax(X, { mask: { validLens: [1, 2] } }),
    () => lab.nadarayaWatson(xTrain, yTrain, xTrain, { bandwidth: -1 }),
    () => lab.selfAttention(X, { Wq: mh.Wq, Wk: mh.Wk, Wv: mh.Wv, mask: 'upper' }),
    () => lab.additiveAttention(Q, K, V, { ...addW, wv: [1] }),
    () => lab.scaledDotProductAttention(tall, tall, tall), // AttentionRangeError
    () => lab.localAttention(X, X, X, { window: 0 }),
    () => lab.linformerAttention(Q, K, V, { E: F, F: E.data }),
  ];

  function round(check) {
    const results = good.map((call) => call());
    for (const call of bad) {
      try {
        call();
        expect.fail('expected an error');
      } catch (error) {
        if (!(error instanceof AttentionError) && !(error instanceof AttentionRangeError)) throw error;
      }
    }
    if (check) check(results);
    return results;
  }

  it(`stays flat over ${ITERATIONS} rounds of ${good.length + bad.length} calls (${good.length} good, ${bad.length} failing), with identical results`, () => {
    const first = round();
    for (let i = 0; i < 50; i++) round(); // warm-up: the workspace reaches its final size
    const wasmBefore = memory.buffer.byteLength;
    const before = usage();
    let mismatches = 0;
    for (let i = 0; i < ITERATIONS; i++)
      round((results) => {
        // identical results every time (compared in full every 100th round, by output otherwise)
        results.forEach((r, j) => {
          const a = r.output ?? r.weights ?? r;
          const b = first[j].output ?? first[j].weights ?? first[j];
          if (i % 100 === 0) expect(r).toStrictEqual(first[j]);
          else if (a.data.length !== b.data.length || a.data.some((x, k) => !Object.is(x, b.data[k]))) mismatches++;
        });
      });
    const after = usage();
    expect(mismatches).toBe(0);
    expect(memory.buffer.byteLength, 'WASM memory grew').toBe(wasmBefore);
    const delta = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / MiB]));
    // generous bounds: tens of thousands of calls leaking even 1 KiB each would exceed them
    expect(delta.heapUsed, JSON.stringify(delta)).toBeLessThan(16);
    expect(delta.arrayBuffers, JSON.stringify(delta)).toBeLessThan(16);
    expect(delta.external, JSON.stringify(delta)).toBeLessThan(16);
    expect(delta.rss, JSON.stringify(delta)).toBeLessThan(96);
  }, 180_000);

  it('releaseMemory() between calls neither leaks nor changes results', () => {
    const first = good.map((call) => call());
    for (let i = 0; i < 20; i++) {
      good.forEach((call) => call());
      lab.releaseMemory();
    }
    const wasmBefore = memory.buffer.byteLength;
    for (let i = 0; i < 300; i++) {
      const results = good.map((call) => call());
      lab.releaseMemory();
      if (i % 50 === 0) results.forEach((r, j) => expect(r).toStrictEqual(first[j]));
    }
    expect(memory.buffer.byteLength).toBe(wasmBefore);
  });

  it('a large call followed by thousands of small ones does not keep growing; heapBytes reports the WASM memory', () => {
    expect(lab.heapBytes).toBe(memory.buffer.byteLength);
    const big = randomMatrix(rng(5), 1200, 64);
    const heapBefore = lab.heapBytes;
    lab.scaledDotProductAttention(big, big, big, { trace: true }); // three 1200×1200 buffers of 5.5 MiB: beyond the initial 16 MiB
    expect(lab.heapBytes).toBe(memory.buffer.byteLength);
    expect(lab.heapBytes).toBeGreaterThan(heapBefore);
    const wasmBefore = memory.buffer.byteLength;
    const small = randomMatrix(rng(6), 3, 4);
    const ref0 = lab.scaledDotProductAttention(small, small, small, { mask: 'causal' });
    for (let i = 0; i < 3000; i++) {
      const r = lab.scaledDotProductAttention(small, small, small, { mask: 'causal' });
      if (i % 500 === 0) expectIdentical(r.output, ref0.output);
    }
    expect(memory.buffer.byteLength).toBe(wasmBefore);
    expect(lab.heapBytes).toBe(wasmBefore);
  });
});
