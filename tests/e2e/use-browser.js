// The set-up every browser test file shares, registered once per file:
//
//   const { launched: b, served: s } = useBrowser({ serve: 'site' });  // b.browser, s.url
//   const lab = await loadLab();                                       // the Node library, to compare with
//
// The handles are empty objects until the file's first test starts (a beforeAll fills them) and are
// closed after its last one, so they are read inside tests and helpers, never at the top level.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll } from 'vitest';
import { ensureBuilt, launch, root, server } from './browser.js';

/**
 * Opens a resource before the file's tests and closes it after them. `open` resolves to an object
 * with a `close()`; its fields are copied onto the returned handle once it is open.
 */
export function useForFile(open) {
  const handle = {};
  beforeAll(async () => Object.assign(handle, await open()));
  afterAll(async () => handle.close?.());
  return handle;
}

/**
 * Builds what is stale, launches Chromium (`launched.browser`) and, unless `serve` is null, serves
 * `serve` (a folder of the repo: the root by default, 'site' for the built demo) on 127.0.0.1
 * (`served.url`).
 */
export function useBrowser({ serve = '.' } = {}) {
  const launched = useForFile(() => {
    ensureBuilt();
    return launch();
  });
  const served = serve === null ? null : useForFile(() => server(resolve(root, serve)));
  return { launched, served };
}

/**
 * The library in Node (dist/node.js, built first when stale), for the numbers a page should show:
 * the build the page's init() loads in Chromium, so the two compute bit for bit the same (the same
 * .wasm on the same CPU). That is the FMA build wherever it was made (Chromium ships relaxed SIMD;
 * Node 20 validates it only behind --experimental-wasm-relaxed-simd, switched on here for this
 * file's process), else the SIMD build.
 */
export async function loadLab() {
  ensureBuilt();
  const { init } = await import('../../dist/node.js');
  if (!existsSync(resolve(root, 'dist', 'attention-lab-fma.wasm'))) return init({ fma: false });
  setFlagsFromString('--experimental-wasm-relaxed-simd');
  return init({ fma: true });
}
