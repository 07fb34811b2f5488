// One shared library instance per page, loaded by the library's own init():
// its `new URL('./attention-lab-simd.wasm', import.meta.url)` stays literal in
// the bundles (see web/vite.config.mjs), so the .wasm is found next to
// dist/components.js or the site's app.js, and consumers' bundlers copy it.
import { init } from '../../dist/index.js';

let pending = null;

/** Load attention-lab once; later calls share the same instance. */
export function getLab() {
  pending ??= init();
  return pending;
}
