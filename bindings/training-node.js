// attention-lab's training build for Node.js (see training.js): the .wasm read from disk.
import { readFile } from 'node:fs/promises';

import { load } from './load.js';
import { TRAINING, trainingWasmFileName } from './train/builds.js';

export { AttentionError, AttentionRangeError } from './errors.js';

/**
 * Load the training build. Picks the SIMD build where the engine supports it.
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd) => ({ wasmBinary: await readFile(new URL(`./${trainingWasmFileName(simd)}`, import.meta.url)) }),
    TRAINING,
  );
}
