// npm run soak [-- --calls=100000 --every=10000 --scalar --seed=1]
//
// A long run of mixed calls through the public API: every function, with
// valid arguments and with failing ones (bad shapes, NaN inputs, bad masks,
// overflowing inputs, a disposed layer, requests too large for the module's
// memory that throw RangeError). Every `every` calls it prints the WASM memory
// size and process.memoryUsage(). Exits non-zero if the WASM memory grows
// after warm-up, or if any call fails in a way it should not (a wrong error
// type or code, a success that should have failed, a malformed result).
//
// The WASM memory is read from the module's exported WebAssembly.Memory,
// caught when init() instantiates it (the public API does not expose it).
//
// Also imported by tests/js/soak.test.js, which runs a short version.
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

import { AttentionError, AttentionRangeError, init } from '../dist/node.js';
import { mulberry32 as rng, uniformMatrix, uniformVector } from './random.mjs';

/** Loads the library and the module's WebAssembly.Memory. */
async function loadWithMemory(simd) {
  const instantiate = WebAssembly.instantiate;
  let memory = null;
  WebAssembly.instantiate = async function (...args) {
    const result = await instantiate.apply(this, args);
    const instance = result.instance ?? result;
    memory = Object.values(instance.exports).find((x) => x instanceof WebAssembly.Memory) ?? memory;
    return result;
  };
  try {
    const lab = await init({ simd });
    // Prefer a public accessor should the API grow one.
    const heapBytes = () => (typeof lab.heapBytes === 'function' ? lab.heapBytes() : typeof lab.heapBytes === 'number' ? lab.heapBytes : memory.buffer.byteLength);
    if (!memory && typeof lab.heapBytes === 'undefined') throw new Error('soak: could not find the module memory');
    return { lab, heapBytes };
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}

// A forced GC before each sample, so the process figures show retained memory, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
v8.setFlagsFromString('--no-expose-gc');

// The largest size any random call uses; warm-up runs every kind of call at it.
const MAX_DIM = 16;

/**
 * The call mix. Each entry builds one call from the RNG and says what must
 * happen: `ok` with a check of the result, or `throws` with the error class
 * and code.
 */
function makeCalls(lab) {
  const mat = (rand, rows, cols, scale = 1) => uniformMatrix(rand, rows, cols, -scale, scale);
  const vec = uniformVector;
  const dim = (rand, max = MAX_DIM) => 1 + Math.floor(rand() * max);
  const pick = (rand, list) => list[Math.floor(rand() * list.length)];
  const mask = (rand, n, m) => {
    const r = rand();
    if (r < 0.3) return undefined;
    if (r < 0.5 && n === m) return 'causal';
    if (r < 0.7) return { validLens: Array.from({ length: n }, () => Math.floor(rand() * (m + 1))) };
    return Array.from({ length: n }, () => Array.from({ length: m }, () => (rand() < 0.6 ? 1 : 0)));
  };
  const withNaN = (m, rand) => {
    const data = m.data.slice();
    if (data.length) data[Math.floor(rand() * data.length)] = pick(rand, [NaN, Infinity, -Infinity]);
    return { ...m, data };
  };
  const shapeOf = (m, rows, cols) => m && m.rows === rows && m.cols === cols && m.data.length === rows * cols && m.data.every(Number.isFinite);
  const huge = { rows: 20000, cols: 1, data: new Float32Array(20000) }; // 20000² floats = 1.6 GB
  const hugeRow = { rows: 1, cols: 20000, data: new Float32Array(20000) };
  const layerWeights = (rand, dModel, heads, dk, dv, dOut) => ({
    heads,
    Wq: mat(rand, dModel, heads * dk),
    Wk: mat(rand, dModel, heads * dk),
    Wv: mat(rand, dModel, heads * dv),
    Wo: mat(rand, heads * dv, dOut),
  });
  const err = (code) => ({ throws: code === 'OUT_OF_MEMORY' ? AttentionRangeError : AttentionError, code });

  return [
    // ---- valid calls
    ['matmul', (rand, big) => {
      const [n, k, m] = big ? [MAX_DIM, MAX_DIM, MAX_DIM] : [dim(rand), dim(rand), dim(rand)];
      return { ok: () => lab.matmul(mat(rand, n, k), mat(rand, k, m)), check: (r) => shapeOf(r, n, m) };
    }],
    ['softmax', (rand, big) => {
      const [n, m] = big ? [MAX_DIM, MAX_DIM] : [dim(rand), dim(rand)];
      return { ok: () => lab.softmax(mat(rand, n, m, 10), { mask: mask(rand, n, m) }), check: (r) => shapeOf(r, n, m) };
    }],
    ['scaledDotProductAttention', (rand, big) => {
      const [n, m, d, dv] = big ? [MAX_DIM, MAX_DIM, MAX_DIM, MAX_DIM] : [dim(rand), dim(rand), dim(rand), dim(rand)];
      const trace = rand() < 0.3;
      const weights = !trace && rand() < 0.3 ? false : undefined;
      const options = { mask: mask(rand, n, m), trace, ...(weights === false ? { weights } : {}) };
      return { ok: () => lab.scaledDotProductAttention(mat(rand, n, d), mat(rand, m, d), mat(rand, m, dv), options), check: (r) => shapeOf(r.output, n, dv) };
    }],
    ['additiveAttention', (rand, big) => {
      const [n, m, dq, dk, dv, h] = big ? Array(6).fill(MAX_DIM) : [dim(rand), dim(rand), dim(rand), dim(rand), dim(rand), dim(rand)];
      const options = { Wq: mat(rand, dq, h), Wk: mat(rand, dk, h), wv: vec(rand, h), mask: mask(rand, n, m), trace: rand() < 0.3 };
      return { ok: () => lab.additiveAttention(mat(rand, n, dq), mat(rand, m, dk), mat(rand, m, dv), options), check: (r) => shapeOf(r.output, n, dv) && shapeOf(r.weights, n, m) };
    }],
    ['selfAttention', (rand, big) => {
      const [n, dModel, dk, dv] = big ? Array(4).fill(MAX_DIM) : [dim(rand), dim(rand), dim(rand), dim(rand)];
      const options = { Wq: mat(rand, dModel, dk), Wk: mat(rand, dModel, dk), Wv: mat(rand, dModel, dv), mask: mask(rand, n, n), trace: rand() < 0.3 };
      return { ok: () => lab.selfAttention(mat(rand, n, dModel), options), check: (r) => shapeOf(r.output, n, dv) };
    }],
    ['multiHeadAttention', (rand, big) => {
      const [n, dModel, heads, dk, dv, dOut] = big ? [MAX_DIM, MAX_DIM, 4, 4, 4, MAX_DIM] : [dim(rand), dim(rand), dim(rand, 4), dim(rand, 4), dim(rand, 4), dim(rand)];
      const options = { ...layerWeights(rand, dModel, heads, dk, dv, dOut), mask: mask(rand, n, n), trace: rand() < 0.3 };
      return { ok: () => lab.multiHeadAttention(mat(rand, n, dModel), options), check: (r) => shapeOf(r.output, n, dOut) && r.heads.length === heads };
    }],
    ['createMultiHeadAttention', (rand, big) => {
      const [n, dModel, heads, dk, dv, dOut] = big ? [MAX_DIM, MAX_DIM, 4, 4, 4, MAX_DIM] : [dim(rand), dim(rand), dim(rand, 4), dim(rand, 4), dim(rand, 4), dim(rand)];
      const x = mat(rand, n, dModel);
      const m = mask(rand, n, n);
      const trace = rand() < 0.2;
      const weights = layerWeights(rand, dModel, heads, dk, dv, dOut);
      return {
        ok: () => {
          const layer = lab.createMultiHeadAttention(weights);
          try {
            return layer.forward(x, { mask: m, trace });
          } finally {
            layer.dispose();
          }
        },
        check: (r) => shapeOf(r.output, n, dOut) && shapeOf(r.concat, n, heads * dv),
      };
    }],
    ['localAttention', (rand, big) => {
      const [n, d, dv] = big ? [MAX_DIM, MAX_DIM, MAX_DIM] : [dim(rand), dim(rand), dim(rand)];
      const options = { window: dim(rand, n), causal: rand() < 0.5, trace: rand() < 0.3 };
      return { ok: () => lab.localAttention(mat(rand, n, d), mat(rand, n, d), mat(rand, n, dv), options), check: (r) => shapeOf(r.output, n, dv) };
    }],
    ['linearAttention', (rand, big) => {
      const [n, d, dv] = big ? [MAX_DIM, MAX_DIM, MAX_DIM] : [dim(rand), dim(rand), dim(rand)];
      const options = { causal: rand() < 0.5, trace: rand() < 0.3 };
      return { ok: () => lab.linearAttention(mat(rand, n, d), mat(rand, n, d), mat(rand, n, dv), options), check: (r) => shapeOf(r.output, n, dv) };
    }],
    ['linformerAttention', (rand, big) => {
      const [n, m, d, dv, p] = big ? Array(5).fill(MAX_DIM) : [dim(rand), dim(rand), dim(rand), dim(rand), dim(rand)];
      const options = { E: mat(rand, p, m), F: mat(rand, p, m), trace: rand() < 0.3 };
      return { ok: () => lab.linformerAttention(mat(rand, n, d), mat(rand, m, d), mat(rand, m, dv), options), check: (r) => shapeOf(r.output, n, dv) };
    }],
    ['nadarayaWatson', (rand, big) => {
      const [m, n] = big ? [MAX_DIM, MAX_DIM] : [dim(rand), dim(rand)];
      const options = { kernel: pick(rand, ['gaussian', 'boxcar', 'epanechnikov', 'constant']), bandwidth: 0.1 + rand() * 3 };
      return { ok: () => lab.nadarayaWatson(vec(rand, m, -5, 5), vec(rand, m), vec(rand, n, -5, 5), options), check: (r) => r.predictions.length === n && shapeOf(r.weights, n, m) };
    }],

    // ---- failing calls
    ['matmul: shape mismatch', (rand) => ({ ...err('SHAPE_MISMATCH'), call: () => lab.matmul(mat(rand, 3, 4), mat(rand, 5, 2)) })],
    ['softmax: NaN', (rand) => ({ ...err('NON_FINITE'), call: () => lab.softmax(withNaN(mat(rand, dim(rand), dim(rand)), rand)) })],
    ['scaledDotProductAttention: Q.cols ≠ K.cols', (rand) => ({ ...err('SHAPE_MISMATCH'), call: () => lab.scaledDotProductAttention(mat(rand, 3, 4), mat(rand, 5, 3), mat(rand, 5, 2)) })],
    ['scaledDotProductAttention: NaN in V', (rand) => ({ ...err('NON_FINITE'), call: () => lab.scaledDotProductAttention(mat(rand, 3, 4), mat(rand, 5, 4), withNaN(mat(rand, 5, 2), rand)) })],
    ['scaledDotProductAttention: validLens out of range', (rand) => ({ ...err('INVALID_MASK'), call: () => lab.scaledDotProductAttention(mat(rand, 2, 4), mat(rand, 3, 4), mat(rand, 3, 2), { mask: { validLens: [1, 4] } }) })],
    ['scaledDotProductAttention: mask value 2', (rand) => ({ ...err('INVALID_MASK'), call: () => lab.scaledDotProductAttention(mat(rand, 2, 4), mat(rand, 2, 4), mat(rand, 2, 2), { mask: [[1, 2], [1, 1]] }) })],
    ['scaledDotProductAttention: overflowing scores', (rand) => ({ ...err('OVERFLOW'), call: () => lab.scaledDotProductAttention(mat(rand, 2, 2, 1e38), mat(rand, 2, 2, 1e38), mat(rand, 2, 2)) })],
    ['scaledDotProductAttention: too large', () => ({ ...err('OUT_OF_MEMORY'), call: () => lab.scaledDotProductAttention(huge, huge, huge) })],
    ['matmul: too large', () => ({ ...err('OUT_OF_MEMORY'), call: () => lab.matmul(huge, hugeRow) })],
    ['additiveAttention: wv of the wrong length', (rand) => ({ ...err('SHAPE_MISMATCH'), call: () => lab.additiveAttention(mat(rand, 2, 3), mat(rand, 4, 3), mat(rand, 4, 2), { Wq: mat(rand, 3, 5), Wk: mat(rand, 3, 5), wv: vec(rand, 4) }) })],
    ['selfAttention: NaN in Wq', (rand) => ({ ...err('NON_FINITE'), call: () => lab.selfAttention(mat(rand, 3, 4), { Wq: withNaN(mat(rand, 4, 2), rand), Wk: mat(rand, 4, 2), Wv: mat(rand, 4, 2) }) })],
    ['multiHeadAttention: heads do not divide', (rand) => ({ ...err('SHAPE_MISMATCH'), call: () => lab.multiHeadAttention(mat(rand, 3, 4), { heads: 3, Wq: mat(rand, 4, 4), Wk: mat(rand, 4, 4), Wv: mat(rand, 4, 4), Wo: mat(rand, 4, 4) }) })],
    ['multiHeadAttention: heads = -1', (rand) => ({ ...err('INVALID_ARGUMENT'), call: () => lab.multiHeadAttention(mat(rand, 3, 4), { heads: -1, Wq: mat(rand, 4, 4), Wk: mat(rand, 4, 4), Wv: mat(rand, 4, 4), Wo: mat(rand, 4, 4) }) })],
    ['multiHeadAttention: too large', () => ({ ...err('OUT_OF_MEMORY'), call: () => lab.multiHeadAttention(huge, { heads: 1, Wq: [[1]], Wk: [[1]], Wv: [[1]], Wo: [[1]] }) })],
    ['createMultiHeadAttention: forward after dispose', (rand) => ({
      ...err('DISPOSED'),
      call: () => {
        const layer = lab.createMultiHeadAttention(layerWeights(rand, 4, 2, 2, 2, 3));
        layer.dispose();
        return layer.forward(mat(rand, 3, 4));
      },
    })],
    ['createMultiHeadAttention: forward with the wrong width', (rand) => ({
      ...err('SHAPE_MISMATCH'),
      call: () => {
        const layer = lab.createMultiHeadAttention(layerWeights(rand, 4, 2, 2, 2, 3));
        try {
          return layer.forward(mat(rand, 3, 5));
        } finally {
          layer.dispose();
        }
      },
    })],
    ['localAttention: window 0', (rand) => ({ ...err('INVALID_ARGUMENT'), call: () => lab.localAttention(mat(rand, 3, 2), mat(rand, 3, 2), mat(rand, 3, 2), { window: 0 }) })],
    ['linearAttention: NaN in K', (rand) => ({ ...err('NON_FINITE'), call: () => lab.linearAttention(mat(rand, 3, 2), withNaN(mat(rand, 3, 2), rand), mat(rand, 3, 2)) })],
    ['linformerAttention: E of the wrong width', (rand) => ({ ...err('SHAPE_MISMATCH'), call: () => lab.linformerAttention(mat(rand, 3, 2), mat(rand, 4, 2), mat(rand, 4, 2), { E: mat(rand, 2, 3), F: mat(rand, 2, 4) }) })],
    ['nadarayaWatson: bandwidth NaN', (rand) => ({ ...err('NON_FINITE'), call: () => lab.nadarayaWatson(vec(rand, 3), vec(rand, 3), vec(rand, 2), { bandwidth: NaN }) })],
    ['nadarayaWatson: bandwidth 0', (rand) => ({ ...err('INVALID_ARGUMENT'), call: () => lab.nadarayaWatson(vec(rand, 3), vec(rand, 3), vec(rand, 2), { bandwidth: 0 }) })],
  ];
}

/**
 * Runs `calls` mixed calls and samples memory every `every` calls.
 * @returns {{ samples: object[], counts: Record<string, number>, problems: string[], grew: boolean, simd: boolean }}
 */
export async function soak({ calls = 100_000, every = 10_000, simd = true, seed = 1, log = () => {} } = {}) {
  const { lab, heapBytes } = await loadWithMemory(simd);
  const kinds = makeCalls(lab);
  const rand = rng(seed);
  const counts = {};
  const problems = [];
  const note = (name, outcome) => {
    const key = `${name} → ${outcome}`;
    counts[key] = (counts[key] ?? 0) + 1;
  };

  function runOne(name, build, big) {
    const spec = build(rand, big);
    try {
      const result = spec.ok ? spec.ok() : spec.call();
      if (!spec.ok) {
        problems.push(`${name}: expected ${spec.throws.name} ${spec.code} but the call succeeded`);
        return;
      }
      if (!spec.check(result)) problems.push(`${name}: malformed result`);
      note(name, 'ok');
    } catch (error) {
      if (spec.ok) {
        problems.push(`${name}: unexpected ${error?.name} ${error?.code ?? ''}: ${error?.message}`);
        return;
      }
      if (!(error instanceof spec.throws) || error.code !== spec.code) {
        problems.push(`${name}: expected ${spec.throws.name} ${spec.code}, got ${error?.name} ${error?.code ?? ''}: ${error?.message}`);
        return;
      }
      note(name, error.code);
    }
  }

  // Warm-up: every kind once at the largest size, so the workspace reaches its final size.
  for (const [name, build] of kinds) runOne(name, build, true);

  const samples = [];
  const sample = (done) => {
    gc();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const s = { calls: done, wasmBytes: heapBytes(), rss, heapUsed, external, arrayBuffers };
    samples.push(s);
    log(s);
  };
  sample(0);
  for (let done = 1; done <= calls; done++) {
    const [name, build] = kinds[Math.floor(rand() * kinds.length)];
    runOne(name, build, false);
    if (done % every === 0 || done === calls) sample(done);
  }
  const grew = samples.some((s) => s.wasmBytes > samples[0].wasmBytes);
  return { samples, counts, problems, grew, simd: lab.simd };
}

const MiB = 1024 * 1024;
const fmt = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;

async function main() {
  const args = Object.fromEntries(
    process.argv.slice(2).map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k, v ?? 'true'];
    }),
  );
  const calls = Number(args.calls ?? 100_000);
  const every = Number(args.every ?? Math.max(1, Math.min(10_000, Math.ceil(calls / 10))));
  if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(every) || every < 1) {
    console.error('usage: node scripts/soak.mjs [--calls=N] [--every=N] [--scalar] [--seed=N]');
    process.exit(2);
  }
  const simd = args.scalar !== 'true';
  const started = Date.now();
  console.log(`soak: ${calls} mixed calls on the ${simd ? 'SIMD' : 'scalar'} build, memory every ${every} calls (after a warm-up call of each kind)`);
  console.log('     calls   WASM memory        rss   JS heapUsed     external  arrayBuffers');
  const result = await soak({
    calls,
    every,
    simd,
    seed: Number(args.seed ?? 1),
    log: (s) =>
      console.log(
        `${String(s.calls).padStart(10)} ${fmt(s.wasmBytes).padStart(13)} ${fmt(s.rss).padStart(10)} ${fmt(s.heapUsed).padStart(13)} ${fmt(s.external).padStart(12)} ${fmt(s.arrayBuffers).padStart(13)}`,
      ),
  });
  const outcomes = Object.entries(result.counts).sort();
  console.log(`\n${outcomes.length} kinds of outcome:`);
  for (const [key, count] of outcomes) console.log(`  ${String(count).padStart(7)}  ${key}`);
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s`);
  let failed = false;
  if (result.problems.length) {
    failed = true;
    console.error(`\nsoak: ${result.problems.length} call(s) misbehaved; the first ones:`);
    for (const p of result.problems.slice(0, 20)) console.error(`  ${p}`);
  }
  const first = result.samples[0].wasmBytes;
  const last = result.samples.at(-1).wasmBytes;
  if (result.grew) {
    failed = true;
    console.error(`\nsoak: the WASM memory grew after warm-up: ${first} → ${Math.max(...result.samples.map((s) => s.wasmBytes))} bytes`);
  } else {
    console.log(`soak: WASM memory flat after warm-up at ${first} bytes (${fmt(last)})`);
  }
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
