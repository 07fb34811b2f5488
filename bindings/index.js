// attention-lab for browsers, workers and bundlers. The .wasm sits next to
// this file; `new URL(…, import.meta.url)` lets bundlers find and copy it.
import { INFERENCE } from './builds.js';
import { load } from './load.js';

export { AttentionError, AttentionRangeError } from './errors.js';

const WASM_URLS = {
  simd: () => new URL('./attention-lab-simd.wasm', import.meta.url).href,
  scalar: () => new URL('./attention-lab-scalar.wasm', import.meta.url).href,
};

/**
 * Load attention-lab. Picks the SIMD build where the engine supports it.
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd) => {
      const url = WASM_URLS[simd ? 'simd' : 'scalar']();
      return { locateFile: () => url };
    },
    INFERENCE,
  );
}
