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
 * @param {{ builds: object, training?: boolean, families?: Function[] }} flavour  the glue of each
 *        build (builds.js or train/builds.js: each entry passes its own, so that a bundle of one
 *        entry holds no other build) and the operation families beyond the inference ones
 */
export async function load(options = {}, defaults, { builds, training = false, families = [] }) {
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
  const module = await createModule(settings);
  return createApi(module, { simd, training, families });
}
