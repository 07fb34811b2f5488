// dist/attention-lab.min.js: the browser entry (dist/index.js) bundled into one minified ES module,
// for pages that load the library without a bundler (from a CDN, say): one request for the API
// instead of 25, 21 KB less to fetch gzipped with the FMA build (bench/init.mjs measures both). What stays beside it,
// imported by its usual name, so that every .wasm and worker is found next to the file that names
// it: the glue of each build (attention-lab-<build>.js, one fetched at run time) and the pool's
// browser workers (parallel/browser-workers.js). The pool's own code is inside (3.7 KB gzipped): a
// chunk of its own would have split a second chunk off the entry too, two requests for init().
// Usage: node scripts/bundle-min.mjs  (scripts/build.mjs runs it after copying dist/)
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIN_ENTRY = 'attention-lab.min.js';

// Imports left as they are: resolved next to the bundle, as next to dist/index.js.
const BESIDE = [/[\\/]attention-lab-(fma|simd|scalar)\.js$/, /[\\/]parallel[\\/]browser-workers\.js$/];

export async function bundleMin(dist) {
  const { rolldown } = await import('rolldown');
  const bundle = await rolldown({
    input: join(dist, 'index.js'),
    platform: 'browser',
    external: (id, importer) => Boolean(importer) && BESIDE.some((re) => re.test(id)),
    logLevel: 'warn',
  });
  try {
    await bundle.write({
      dir: dist,
      format: 'esm',
      minify: true,
      entryFileNames: MIN_ENTRY,
      codeSplitting: false,
    });
  } finally {
    await bundle.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleMin(fileURLToPath(new URL('../dist', import.meta.url)));
