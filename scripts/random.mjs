// The seeded random numbers of the tests, the benchmarks and the soak run (tests/js/helpers.js,
// bench/lib/data.mjs, scripts/soak.mjs). The generator is the demo's own, web/src/random.js
// (mulberry32 uniforms, Box-Muller normals), which ships in the page's bundle: re-exported here so
// that everything draws the same streams from the same seeds, and a move of the page's file is one
// line to change.
export { hashString, mulberry32, normals, randomMatrix as normalMatrix } from '../web/src/random.js';

/** A Float32Array of `n` entries uniform in [lo, hi), drawn from `next` (a mulberry32 stream). */
export function uniformVector(next, n, lo = -1, hi = 1) {
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * next());
}

/** A rows×cols matrix { rows, cols, data: Float32Array } of entries uniform in [lo, hi), drawn from `next`. */
export function uniformMatrix(next, rows, cols, lo = -1, hi = 1) {
  return { rows, cols, data: uniformVector(next, rows * cols, lo, hi) };
}
