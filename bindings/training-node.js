// attention-lab's training build for Node.js (see training.js): the .wasm read from disk.
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { AttentionError } from './errors.js';
import { load } from './load.js';
import { readerFamily } from './reader/reader.js';
import { TRAINING, trainingWasmFileName } from './train/builds.js';
import { fetchCheckpoint, MAX_CHECKPOINT_BYTES, trainedFamily } from './train/trained.js';

export { AttentionError, AttentionRangeError } from './errors.js';

/**
 * Load the training build. Picks the SIMD build where the engine supports it.
 * @param {import('./index.js').InitOptions} [options]
 */
export function init(options) {
  return load(
    options,
    async (simd) => ({ wasmBinary: await readFile(new URL(`./${trainingWasmFileName(simd)}`, import.meta.url)) }),
    { ...TRAINING, families: [...TRAINING.families, trainedFamily(readCheckpoint), readerFamily(readCheckpoint)] },
  );
}

// A checkpoint's bytes: a file: URL (the shipped ones, beside this module) from disk, others fetched.
async function readCheckpoint(fn, url) {
  if (url.protocol !== 'file:') return fetchCheckpoint(fn, url);
  const bad = (message, cause) => Object.assign(new AttentionError(AttentionError.codes.INVALID_ARGUMENT, `${fn}: ${message}`), { cause });
  let path;
  try {
    path = fileURLToPath(url);
    const info = await stat(path);
    if (!info.isFile()) throw bad(`${path} is not a file`);
    if (info.size > MAX_CHECKPOINT_BYTES) throw bad(`${path} holds ${info.size} bytes, more than a checkpoint (at most ${MAX_CHECKPOINT_BYTES})`);
    return new Uint8Array(await readFile(path));
  } catch (error) {
    if (error instanceof AttentionError) throw error;
    throw bad(`cannot read ${path ?? url.href}: ${error.message}`, error);
  }
}
