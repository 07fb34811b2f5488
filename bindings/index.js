// attention-lab for browsers, workers and bundlers. The .wasm sits next to
// this file; `new URL(…, import.meta.url)` lets bundlers find and copy it. The FMA build's glue
// names its own .wasm that way (and is a stub naming none in a build made without clang 16,
// scripts/build.mjs), so a bundler never looks for a file that is not there.
import { INFERENCE } from './builds.js';
import { load } from './load.js';

export { AttentionError, AttentionRangeError } from './errors.js';

const WASM_URLS = {
  simd: () => new URL('./attention-lab-simd.wasm', import.meta.url).href,
  scalar: () => new URL('./attention-lab-scalar.wasm', import.meta.url).href,
};

/**
 * Load attention-lab. Picks the FMA build where the engine validates relaxed SIMD, else SIMD,
 * else scalar (see load.js).
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd, build) => {
      if (build === 'fma') return {};
      const url = WASM_URLS[build]();
      return { locateFile: () => url };
    },
    INFERENCE,
  );
}

/**
 * A pool of module Workers that spreads one large call over the cores (bindings/parallel/pool.js),
 * loaded on first use; without Workers it runs every call here and says why (pool.reason).
 * @param {import('./index.js').AttentionLab} lab  @param {import('./index.js').WorkerPoolOptions} [options]
 */
export async function createWorkerPool(lab, options) {
  const [{ createPool }, { browserWorkers }] = await Promise.all([import('./parallel/pool.js'), import('./parallel/browser-workers.js')]);
  return createPool(lab, options, browserWorkers);
}
