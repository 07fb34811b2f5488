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

/**
 * A pool of worker_threads that spreads one large call over the cores (bindings/parallel/pool.js),
 * loaded on first use.
 * @param {import('./index.js').AttentionLab} lab  @param {import('./index.js').WorkerPoolOptions} [options]
 */
export async function createWorkerPool(lab, options) {
  const [{ createPool }, { nodeWorkers }] = await Promise.all([import('./parallel/pool.js'), import('./parallel/node-workers.js')]);
  return createPool(lab, options, nodeWorkers);
}
