// The shipped checkpoints, loaded on demand: lab.loadTrained('dates') → a model of lab.tasks.dates
// trained by its recipe (checkpoint-recipes.js). The images are dist/checkpoints/<task>.bin, beside
// this folder; an entry passes the reader that fetches them (training.js: fetch; training-node.js:
// the file system for file: URLs). Nothing is read until a program asks, so init() does not grow.
import { AttentionError, fail } from '../errors.js';
import { TASKS } from '../tasks/index.js';
import { checkOptions, nearestName } from '../validate.js';
import { CHECKPOINT_RECIPES } from './checkpoint-recipes.js';
import { trainingOps } from './training.js';

const { INVALID_ARGUMENT, UNAVAILABLE } = AttentionError.codes;
const FN = 'loadTrained';
/** A checkpoint is tens of kilobytes; a response beyond this is not one. */
export const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;

// One static URL per checkpoint (a bundler sees each and ships the file).
const CHECKPOINT_URLS = {
  dates: () => new URL('../checkpoints/dates.bin', import.meta.url),
  reverse: () => new URL('../checkpoints/reverse.bin', import.meta.url),
  grammar: () => new URL('../checkpoints/grammar.bin', import.meta.url),
  repeat: () => new URL('../checkpoints/repeat.bin', import.meta.url),
};

/** The checkpoint's URL beside the package, as a string (what loadTrained fetches when given no url). */
export const checkpointUrl = (name) => CHECKPOINT_URLS[name]().href;

function taskName(fn, name) {
  if (typeof name !== 'string' || !Object.hasOwn(CHECKPOINT_RECIPES, name)) {
    const near = typeof name === 'string' ? nearestName(name, Object.keys(CHECKPOINT_RECIPES)) : undefined;
    fail(INVALID_ARGUMENT, `${fn}: no checkpoint named ${typeof name === 'string' ? JSON.stringify(name) : String(name)}${near ? ` (did you mean ${near}?)` : ''}; the checkpoints are ${Object.keys(CHECKPOINT_RECIPES).join(', ')}`);
  }
  return name;
}

/** A checked URL (http(s), file, blob or data), relative to the page where there is one. */
export function toUrl(fn, url) {
  if (!(url instanceof URL) && typeof url !== 'string') fail(INVALID_ARGUMENT, `${fn}: url must be a string or a URL, got ${url === null ? 'null' : typeof url}`);
  let parsed;
  try {
    parsed = new URL(url, globalThis.location?.href);
  } catch {
    fail(INVALID_ARGUMENT, `${fn}: url ${JSON.stringify(String(url))} is not a URL`);
  }
  if (!['http:', 'https:', 'file:', 'blob:', 'data:'].includes(parsed.protocol))
    fail(INVALID_ARGUMENT, `${fn}: url ${JSON.stringify(String(url))} has the scheme ${parsed.protocol}; give an http(s), file, blob or data URL`);
  return parsed;
}

/** Bytes of a fetch Response, refused when it failed or is too large to be a checkpoint. */
export async function responseBytes(fn, url, response) {
  if (!response.ok) fail(INVALID_ARGUMENT, `${fn}: fetching ${url} answered ${response.status} ${response.statusText}`.trimEnd());
  const declared = Number(response.headers?.get?.('content-length'));
  if (declared > MAX_CHECKPOINT_BYTES) fail(INVALID_ARGUMENT, `${fn}: ${url} holds ${declared} bytes, more than a checkpoint (at most ${MAX_CHECKPOINT_BYTES})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_CHECKPOINT_BYTES) fail(INVALID_ARGUMENT, `${fn}: ${url} holds ${bytes.length} bytes, more than a checkpoint (at most ${MAX_CHECKPOINT_BYTES})`);
  return bytes;
}

/** A server that has not sent the whole checkpoint by then is given up on. */
export const FETCH_TIMEOUT_MS = 60_000;

/** The reader of the browser entry: fetch, given up after timeoutMs (headers and body). */
export async function fetchCheckpoint(fn, url, timeoutMs = FETCH_TIMEOUT_MS) {
  if (typeof fetch !== 'function') fail(UNAVAILABLE, `${fn}: this engine has no fetch; read the file yourself and pass { bytes }`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const failed = (cause) => {
    const why = controller.signal.aborted ? `: no answer within ${timeoutMs / 1000} s` : ` failed: ${cause?.message ?? cause}`;
    return Object.assign(new AttentionError(INVALID_ARGUMENT, `${fn}: fetching ${url}${why}`), { cause });
  };
  try {
    const response = await fetch(url, { signal: controller.signal }).catch((cause) => {
      throw failed(cause);
    });
    return await responseBytes(fn, url, response).catch((cause) => {
      throw cause instanceof AttentionError ? cause : failed(cause);
    });
  } finally {
    clearTimeout(timer);
  }
}

async function readBytes(fn, name, options, read) {
  const { bytes, url } = checkOptions(fn, options, ['bytes', 'url']);
  if (bytes !== undefined && url !== undefined) fail(INVALID_ARGUMENT, `${fn}: give bytes or url, not both`);
  if (bytes !== undefined) {
    if (!(bytes instanceof Uint8Array)) fail(INVALID_ARGUMENT, `${fn}: bytes must be a Uint8Array (the contents of ${name}.bin), got ${bytes === null ? 'null' : typeof bytes === 'object' ? bytes.constructor?.name ?? 'an object' : typeof bytes}`);
    // Before anything is copied into the heap (600 MB once were, and stayed).
    if (bytes.length > MAX_CHECKPOINT_BYTES) fail(INVALID_ARGUMENT, `${fn}: bytes holds ${bytes.length} bytes, more than a checkpoint (at most ${MAX_CHECKPOINT_BYTES})`);
    return bytes;
  }
  return read(fn, url === undefined ? CHECKPOINT_URLS[name]() : toUrl(fn, url));
}

/** The model of an image, refused (disposed) unless it is a model of that task. */
function adoptImage(fn, loadTransformer, name, bytes) {
  const task = TASKS[name];
  let model;
  try {
    model = loadTransformer(bytes, { task });
  } catch (error) {
    if (error instanceof AttentionError) throw Object.assign(new AttentionError(error.code, `${fn}: ${error.message}`), { cause: error });
    throw error;
  }
  if (model.config.kind !== task.kind || model.config.maxLength !== Math.max(task.maxLength, task.maxSourceLength)) {
    const { kind, maxLength } = model.config;
    model.dispose();
    fail(INVALID_ARGUMENT, `${fn}: these bytes are a ${kind} model of length ${maxLength}, not one of the ${name} task (${task.kind}, length ${Math.max(task.maxLength, task.maxSourceLength)})`);
  }
  return model;
}

/**
 * The family of an entry: read(fn, url) → Promise<Uint8Array> fetches a checkpoint's bytes.
 * @param {(fn: string, url: URL) => Promise<Uint8Array>} read
 */
export const trainedFamily = (read) => (context) => {
  const { loadTransformer } = trainingOps(context);
  return {
    checkpoints: CHECKPOINT_RECIPES,
    async loadTrained(name, options) {
      const fn = `${FN}(${typeof name === 'string' ? JSON.stringify(name) : '…'})`;
      taskName(FN, name);
      const bytes = await readBytes(fn, name, options, read);
      return adoptImage(fn, loadTransformer, name, bytes);
    },
  };
};
