// Choosing and instantiating a build. Shared by the browser and Node entries;
// they differ only in how the .wasm bytes are found.
import { createApi } from './api.js';

// The smallest module using a SIMD128 opcode (from wasm-feature-detect):
// WebAssembly.validate accepts it exactly where SIMD is supported.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

// The smallest module using f32x4.relaxed_madd (relaxed SIMD, final opcode 0xfd 0x105): three
// f32x4.splat of f32.const 0, then the multiply-add. Chromium ships relaxed SIMD; Node 20 validates
// it only behind --experimental-wasm-relaxed-simd.
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 28, 1, 26, 0,
  ...[0, 1, 2].flatMap(() => [67, 0, 0, 0, 0, 253, 19]),
  253, 133, 2, 11,
]);

const validates = (bytes) => {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};

export const simdSupported = () => validates(SIMD_PROBE);
export const relaxedSimdSupported = () => validates(RELAXED_SIMD_PROBE);

const show = (value) => (typeof value === 'string' ? JSON.stringify(value) : String(value));

const KNOWN = ['simd', 'fma', 'wasmUrl', 'wasmBinary', 'locateFile'];

/**
 * Which build to load: 'fma', 'simd' or 'scalar', and whether it was asked for by name (an
 * FMA build chosen by the probe alone falls back to SIMD when its files cannot be loaded).
 * FMA is chosen by default only where nothing names one .wasm (wasmUrl, wasmBinary): those bytes
 * are the SIMD or scalar build as before unless { fma: true } says otherwise.
 */
function chooseBuild(options, hasFma) {
  if (options === null || typeof options !== 'object') throw new TypeError('init: options must be an object');
  for (const key of Object.keys(options))
    if (!KNOWN.includes(key)) throw new TypeError(`init: unknown option "${key}"; expected one of ${KNOWN.join(', ')}`);
  for (const key of ['simd', 'fma'])
    if (options[key] !== undefined && typeof options[key] !== 'boolean')
      throw new TypeError(`init: { ${key}: ${show(options[key])} } must be true, false or left out`);
  const { simd: askSimd, fma: askFma } = options;
  if (askFma === true && askSimd === false) throw new Error('init: { simd: false, fma: true } contradict each other: the FMA build is a SIMD build');
  const simd = askSimd === false ? false : simdSupported();
  if (askSimd === true && !simd) throw new Error('init: { simd: true } was asked for but this engine does not support WebAssembly SIMD');
  if (askFma === true) {
    if (!hasFma) throw new Error('init: { fma: true } was asked for but this entry has no FMA build (attention-lab/training is SIMD or scalar only)');
    if (!simd || !relaxedSimdSupported())
      throw new Error('init: { fma: true } was asked for but this engine does not support WebAssembly relaxed SIMD (Node 20: node --experimental-wasm-relaxed-simd)');
    return { build: 'fma', named: true };
  }
  const oneFile = Boolean(options.wasmBinary || options.wasmUrl);
  if (askFma === undefined && hasFma && simd && !oneFile && relaxedSimdSupported()) return { build: 'fma', named: false };
  return { build: simd ? 'simd' : 'scalar', named: true };
}

/**
 * @param {object} options   user options: simd, fma, wasmUrl, wasmBinary, locateFile
 * @param {(simd: boolean, build: string) => Promise<object>} defaults  module settings for the
 *        environment (how to find the .wasm when the user gave no option); build is 'fma', 'simd'
 *        or 'scalar'
 * @param {{ builds: object, wasmFileName: (simd: boolean, build: string) => string, training?: boolean, families?: Function[] }} flavour
 *        the glue of each build (builds.js or train/builds.js: each entry passes its own, so that a
 *        bundle of one entry holds no other build; an `fma` entry where there is one), its .wasm
 *        names, and the operation families beyond the inference ones
 */
export async function load(options = {}, defaults, flavour) {
  const { build, named } = chooseBuild(options, Boolean(flavour.builds.fma));
  if (build === 'fma' && !named) {
    try {
      return await loadBuild(build, options, defaults, flavour);
    } catch {
      // The FMA files are not there (a build made without clang 16, a folder holding the two
      // deterministic builds only): the SIMD build computes the same to float32 rounding.
      return loadBuild('simd', options, defaults, flavour);
    }
  }
  return loadBuild(build, options, defaults, flavour);
}

async function loadBuild(build, options, defaults, { builds, wasmFileName, training = false, families = [] }) {
  const simd = build !== 'scalar';
  // The glue first: a stub in place of a build not made here says so (scripts/build.mjs, fmaStubGlue).
  const { default: createModule, missing } = await builds[build]();
  if (missing) throw new Error(`init: ${missing}`);
  const settings = {};
  if (options.wasmBinary) settings.wasmBinary = options.wasmBinary;
  else if (options.wasmUrl) settings.locateFile = () => String(options.wasmUrl);
  else if (options.locateFile) settings.locateFile = options.locateFile;
  else Object.assign(settings, await readDefaults(defaults, simd, build, wasmFileName));
  const module = await instantiate(createModule, settings, options, wasmFileName(simd, build));
  return createApi(module, { simd, fma: build === 'fma', training, families });
}

// The entry's own way to the .wasm (Node reads it from disk): a failure names the file.
async function readDefaults(defaults, simd, build, wasmFileName) {
  try {
    return await defaults(simd, build);
  } catch (cause) {
    throw new Error(`init: ${wasmFileName(simd, build)} could not be read: ${String(cause?.message ?? cause)}`, { cause });
  }
}

/**
 * The module, or an Error naming the .wasm this glue needs: the usual cause of a failure here is a
 * wasmUrl, wasmBinary or locateFile that hands one build the other's .wasm (the imports do not
 * match), which the glue reports as a LinkError or "func is not a function". The glue's own
 * messages while loading are kept for the error instead of going to the console.
 */
// The glue's abort text without its wrapper and its advice to rebuild the library: "Aborted(CompileError:
// …). Build with -s ASSERTIONS=1 for more info." → "CompileError: …".
const plain = (text) => text.replace(/\s*Build with -s ASSERTIONS=1 for more info\.?\s*$/, '').replace(/^Aborted\(([^]*)\)\.?$/, '$1');

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
    const detail = plain(mismatch ?? String(cause?.message ?? cause));
    const hint = mismatch ? `; this entry needs ${expected} (is it the other build's file?)` : '';
    throw new Error(`init: ${given} could not be instantiated${hint}: ${detail}`, { cause });
  } finally {
    loading = false;
  }
}
