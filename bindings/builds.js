// The inference builds (the glue of each) and their .wasm names. Shared by the inference entries,
// index.js (browsers, bundlers) and node.js. The training entries pass train/builds.js instead, so
// an app importing one entry bundles that entry's builds only: load.js names neither.
export const INFERENCE_BUILDS = {
  simd: () => import('./attention-lab-simd.js'),
  scalar: () => import('./attention-lab-scalar.js'),
};

export const wasmFileName = (simd) => (simd ? 'attention-lab-simd.wasm' : 'attention-lab-scalar.wasm');

export const INFERENCE = { builds: INFERENCE_BUILDS, wasmFileName };
