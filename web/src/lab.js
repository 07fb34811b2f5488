// One shared library instance per page. The .wasm files are resolved next to
// the module that was loaded (dist/components.js, or the site's app.js).
import { load } from '../../dist/load.js';

let pending = null;

/** Load attention-lab once; later calls share the same instance. */
export function getLab() {
  if (!pending) {
    const base = import.meta.url;
    pending = load({ locateFile: (path) => new URL(path, base).href }, null);
  }
  return pending;
}
