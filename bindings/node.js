// attention-lab for Node.js: the same API, the .wasm read from disk next to
// this file (the Emscripten glue is built for web and worker only).
import { readFile } from 'node:fs/promises';

import { INFERENCE, wasmFileName } from './builds.js';
import { load } from './load.js';

export { AttentionError, AttentionRangeError } from './errors.js';

/**
 * Load attention-lab. Picks the FMA build where the engine validates relaxed SIMD (Node 20: only
 * behind --experimental-wasm-relaxed-simd), else SIMD, else scalar; see load.js.
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd, build) => ({ wasmBinary: await readFile(new URL(`./${wasmFileName(simd, build)}`, import.meta.url)) }),
    INFERENCE,
  );
}
