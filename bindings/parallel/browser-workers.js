// How the pool starts its workers in browsers: module Workers running worker-browser.js (found
// next to this file, the `new Worker(new URL(…), { type: 'module' })` form bundlers recognise), and
// the .wasm bytes fetched once here (the page's init() already did, so usually from the HTTP cache;
// no worker fetches them).
//
// Each .wasm is named by a literal `new URL('…', import.meta.url)`: a template with a variable part
// makes bundlers (Vite) copy every file it could match, the training build among them.
const WASM_URLS = {
  fma: () => new URL('../attention-lab-fma.wasm', import.meta.url),
  simd: () => new URL('../attention-lab-simd.wasm', import.meta.url),
  scalar: () => new URL('../attention-lab-scalar.wasm', import.meta.url),
};

export const browserWorkers = {
  cores: () => globalThis.navigator?.hardwareConcurrency ?? 1,
  async wasmBytes(build) {
    const url = WASM_URLS[build]();
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  },
  spawn() {
    if (typeof Worker !== 'function') throw new Error('this environment has no Worker');
    const worker = new Worker(new URL('./worker-browser.js', import.meta.url), { type: 'module' });
    return {
      busy: () => {},
      post: (message, transfer = []) => worker.postMessage(message, transfer),
      onMessage: (listen) => worker.addEventListener('message', (event) => listen(event.data)),
      // A script that fails to load (blocked by a Content-Security-Policy, missing) or throws.
      onFailure: (listen) => {
        worker.addEventListener('error', (event) => listen(event.message || 'the worker script failed to load or threw'));
        worker.addEventListener('messageerror', () => listen('a message could not be read'));
      },
      terminate: () => worker.terminate(),
    };
  },
};
