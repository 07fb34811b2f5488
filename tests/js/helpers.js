// Shared test helpers: loading the builds, the fixed-seed RNG and random inputs,
// and the atol + rtol·|ref| comparison against the float64 reference.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { expect } from 'vitest';

import { init } from '../../dist/node.js';
import { init as initTraining } from '../../dist/training-node.js';
import { fromMatrix } from './reference.js';

/** The deterministic builds (bit-identical on every engine); the training entry has only these. */
export const DETERMINISTIC_BUILDS = [
  { name: 'SIMD', simd: true },
  { name: 'scalar', simd: false },
];

// The FMA build where scripts/build.mjs made it (dist/attention-lab-fma.wasm holds relaxed-SIMD
// code; without clang 16 its glue is a stub and there is no .wasm). Node 20 runs it only behind
// --experimental-wasm-relaxed-simd, switched on for the test file's process when it is first loaded.
const fmaWasm = new URL('../../dist/attention-lab-fma.wasm', import.meta.url);
export const FMA_BUILT = existsSync(fmaWasm);
const relaxedSimdOn = () => setFlagsFromString('--experimental-wasm-relaxed-simd');

/**
 * The WebAssembly builds of the inference entry; every suite runs once per entry (describe.each).
 * `simd` is what loadLab() takes: true, false, or 'fma' for the FMA build (relaxed SIMD, which is
 * a SIMD build too: `lab.simd` is true there).
 */
export const BUILDS = [...DETERMINISTIC_BUILDS, ...(FMA_BUILT ? [{ name: 'FMA', simd: 'fma' }] : [])];

/** init() options of a BUILDS entry's `simd`: the FMA build by name, the others with FMA off. */
export function buildOptions(simd) {
  if (simd !== 'fma') return { simd, fma: false };
  relaxedSimdOn();
  return { fma: true };
}

/** Sizes below, equal to, above and multiples of the 4-lane vector width. */
export const SIZES = [1, 3, 4, 5, 8, 17, 64, 65];

/** Default tolerance for float32 results against the float64 reference. */
export const TOL = { atol: 2e-5, rtol: 2e-4 };

const labs = new Map();
/** The library with the given build, loaded once per test file. */
export function loadLab(simd) {
  if (!labs.has(simd)) labs.set(simd, init(buildOptions(simd)));
  return labs.get(simd);
}

const trainingLabs = new Map();
/** The training build ('attention-lab/training') with the given SIMD choice, loaded once per test file. */
export function loadTrainingLab(simd) {
  if (simd === 'fma') throw new Error('loadTrainingLab: the training entry has no FMA build; describe.each(DETERMINISTIC_BUILDS)');
  if (!trainingLabs.has(simd)) trainingLabs.set(simd, initTraining({ simd }));
  return trainingLabs.get(simd);
}

/**
 * A fresh instance of the library and its WebAssembly.Memory, caught as the
 * module is instantiated (WebAssembly.instantiate is patched for that call only).
 */
export async function initWithMemory(simd) {
  const instantiate = WebAssembly.instantiate;
  let memory = null;
  WebAssembly.instantiate = async function (...args) {
    const result = await instantiate.apply(this, args);
    const instance = result.instance ?? result;
    memory = Object.values(instance.exports).find((x) => x instanceof WebAssembly.Memory) ?? memory;
    return result;
  };
  try {
    const lab = await init(buildOptions(simd));
    return { lab, memory };
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}

// The fixed-seed generator and uniform inputs of scripts/random.mjs (the page's mulberry32):
// rng(seed) is a stream of floats in [0, 1); randomMatrix(rand, rows, cols, lo = -1, hi = 1) and
// randomVector(rand, n, lo, hi) draw from it.
export { mulberry32 as rng, uniformMatrix as randomMatrix, uniformVector as randomVector } from '../../scripts/random.mjs';

/** A random 0/1 n×m mask as nested arrays (about `p` of the entries visible). */
export function randomBits(rand, n, m, p = 0.6) {
  return Array.from({ length: n }, () => Array.from({ length: m }, () => (rand() < p ? 1 : 0)));
}

/** Nested arrays (number[][]) with the same entries as a matrix. */
export const toNested = (m) => fromMatrix(m);

/** The float64 view of a library matrix, for the reference functions. */
export const ref = (m) => fromMatrix(m);

/**
 * Asserts a library matrix (or Float32Array / number[]) matches the reference
 * (number[][] or number[]) within atol + rtol·|ref|, and that the shapes agree.
 * ±Infinity in the reference must be matched by `infinityAs` (or ±Infinity) exactly.
 * `rowScale`: atol is scaled by max(1, the largest |ref| of the entry's row), for the output of a
 * matrix product, whose rounding error follows the size of the terms summed, not of the entry
 * (an entry near 0 in a row of 45s); needed where a·b + c is rounded once (the FMA build) or twice.
 */
export function expectClose(actual, expected, { atol = TOL.atol, rtol = TOL.rtol, label = 'matrix', infinityAs, rowScale = false } = {}) {
  let flatActual;
  let flatExpected;
  let rowAtol = () => atol;
  if (Array.isArray(expected) && (expected.length === 0 || Array.isArray(expected[0]))) {
    const rows = expected.length;
    const cols = rows > 0 ? expected[0].length : 0;
    expect({ rows: actual.rows, cols: actual.cols }, `${label}: shape`).toEqual({ rows, cols });
    flatActual = actual.data;
    flatExpected = expected.flat();
    if (rowScale) {
      const scale = expected.map((row) => Math.max(1, ...row.filter(Number.isFinite).map(Math.abs)));
      rowAtol = (i) => atol * scale[Math.floor(i / cols)];
    }
  } else {
    flatActual = actual;
    flatExpected = Array.from(expected);
  }
  expect(flatActual.length, `${label}: length`).toBe(flatExpected.length);
  let worst = { excess: 0, index: -1 };
  for (let i = 0; i < flatExpected.length; i++) {
    const e = flatExpected[i];
    const a = flatActual[i];
    if (!Number.isFinite(e)) {
      const want = infinityAs !== undefined && e === -Infinity ? infinityAs : e;
      if (a !== want) return expect(a, `${label}[${i}] should be ${want}`).toBe(want);
      continue;
    }
    const excess = Math.abs(a - e) - (rowAtol(i) + rtol * Math.abs(e));
    if (!(excess <= worst.excess) || Number.isNaN(a)) worst = { excess: Number.isNaN(a) ? Infinity : excess, index: i };
  }
  if (worst.index >= 0) {
    const i = worst.index;
    expect.fail(`${label}: entry ${i} is ${flatActual[i]} but the reference is ${flatExpected[i]} (|diff| ${Math.abs(flatActual[i] - flatExpected[i])} > ${rowAtol(i)} + ${rtol}·|ref|)`);
  }
}

/** Asserts two library matrices are bit-for-bit identical (shape and every entry). */
export function expectIdentical(a, b, label = 'matrix') {
  expect({ rows: a.rows, cols: a.cols }, `${label}: shape`).toEqual({ rows: b.rows, cols: b.cols });
  expect(a.data.length, `${label}: length`).toBe(b.data.length);
  for (let i = 0; i < a.data.length; i++) if (!Object.is(a.data[i], b.data[i])) expect.fail(`${label}: entry ${i} is ${a.data[i]} vs ${b.data[i]}`);
}

/** Runs `fn` and returns what it threw (failing the test when it does not throw). */
export function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return expect.fail('expected the call to throw');
}
