// The inference builds (the glue of each) and their .wasm names. Shared by the inference entries,
// index.js (browsers, bundlers) and node.js. The training entries pass train/builds.js instead, so
// an app importing one entry bundles that entry's builds only: load.js names neither.
// fma: relaxed-SIMD f32x4.relaxed_madd (docs/fma-build.md), preferred where the engine validates it.
export const INFERENCE_BUILDS = {
  fma: () => import('./attention-lab-fma.js'),
  simd: () => import('./attention-lab-simd.js'),
  scalar: () => import('./attention-lab-scalar.js'),
};

/** The .wasm of a build: `build` is 'fma', 'simd' or 'scalar' (load.js passes both arguments). */
export const wasmFileName = (simd, build = simd ? 'simd' : 'scalar') => `attention-lab-${build}.wasm`;

export const INFERENCE = { builds: INFERENCE_BUILDS, wasmFileName };
