// Choosing and instantiating a build. Shared by the browser and Node entries;
// they differ only in how the .wasm bytes are found.
import { createApi } from './api.js';

// The smallest module using a SIMD128 opcode (from wasm-feature-detect):
// WebAssembly.validate accepts it exactly where SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * @param {object} options   user options: simd, wasmUrl, wasmBinary, locateFile
 * @param {(simd: boolean) => Promise<object>} defaults  module settings for the
 *        environment (how to find the .wasm when the user gave no option)
 * @param {{ builds: object, wasmFileName: (simd: boolean) => string, training?: boolean, families?: Function[] }} flavour
 *        the glue of each build (builds.js or train/builds.js: each entry passes its own, so that a
 *        bundle of one entry holds no other build), its .wasm names, and the operation families
 *        beyond the inference ones
 */
export async function load(options = {}, defaults, { builds, wasmFileName, training = false, families = [] }) {
  if (options === null || typeof options !== 'object') throw new TypeError('init: options must be an object');
  const known = ['simd', 'wasmUrl', 'wasmBinary', 'locateFile'];
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw new TypeError(`init: unknown option "${key}"; expected one of ${known.join(', ')}`);
  const simd = options.simd === false ? false : simdSupported();
  if (options.simd === true && !simd) throw new Error('init: { simd: true } was asked for but this engine does not support WebAssembly SIMD');
  const settings = {};
  if (options.wasmBinary) settings.wasmBinary = options.wasmBinary;
  else if (options.wasmUrl) settings.locateFile = () => String(options.wasmUrl);
  else if (options.locateFile) settings.locateFile = options.locateFile;
  else Object.assign(settings, await defaults(simd));
  const { default: createModule } = await builds[simd ? 'simd' : 'scalar']();
  const module = await instantiate(createModule, settings, options, wasmFileName(simd));
  return createApi(module, { simd, training, families });
}

/**
 * The module, or an Error naming the .wasm this glue needs: the usual cause of a failure here is a
 * wasmUrl, wasmBinary or locateFile that hands one build the other's .wasm (the imports do not
 * match), which the glue reports as a LinkError or "func is not a function". The glue's own
 * messages while loading are kept for the error instead of going to the console.
 */
async function instantiate(createModule, settings, options, expected) {
  const messages = [];
  let loading = true;
  const printErr = (text) => (loading ? messages.push(String(text)) : console.warn(text));
  try {
    const module = await createModule({ ...settings, printErr });
    return module;
  } catch (cause) {
    const given = options.wasmBinary ? 'the wasmBinary given' : options.wasmUrl ? `wasmUrl ${options.wasmUrl}` : options.locateFile ? 'the .wasm locateFile named' : `${expected}`;
    const mismatch = [...messages, String(cause?.message ?? cause)].find((m) => /LinkError|not a function/.test(m));
    const detail = mismatch ?? String(cause?.message ?? cause);
    const hint = mismatch ? `; this entry needs ${expected} (is it the other build's file?)` : '';
    throw new Error(`init: ${given} could not be instantiated${hint}: ${detail}`, { cause });
  } finally {
    loading = false;
  }
}
