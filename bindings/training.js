// attention-lab's training build for browsers, workers and bundlers: everything init() of
// 'attention-lab' gives, plus the backward passes, the training tasks and trainable Transformers.
// A larger .wasm, so it is an entry of its own: a page that only runs attention never fetches it.
import { load } from './load.js';
import { readerFamily } from './reader/reader.js';
import { TRAINING } from './train/builds.js';
import { fetchCheckpoint, trainedFamily } from './train/trained.js';

export { AttentionError, AttentionRangeError } from './errors.js';

const WASM_URLS = {
  simd: () => new URL('./attention-lab-training-simd.wasm', import.meta.url).href,
  scalar: () => new URL('./attention-lab-training-scalar.wasm', import.meta.url).href,
};

/**
 * Load the training build. Picks the SIMD build where the engine supports it.
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd) => {
      const url = WASM_URLS[simd ? 'simd' : 'scalar']();
      return { locateFile: () => url };
    },
    { ...TRAINING, families: [...TRAINING.families, trainedFamily(fetchCheckpoint), readerFamily(fetchCheckpoint)] },
  );
}
