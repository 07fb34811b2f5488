// A training batch, checked against a model and flattened for the core:
// int32 rows of `length` tokens (source rows of `sourceLength`), padded with
// the pad id. Accepted as a task's batch ({ size, length, input, target,
// sourceLength, source } with flat typed arrays) or as nested arrays of rows
// ({ source: [[…]], input: [[…]], target: [[…]] }, shorter rows padded).
// Every token id is checked here, so the core never sees one it would refuse.
import { AttentionError, AttentionRangeError, fail } from '../errors.js';
import { describe } from '../validate.js';

const { INTERNAL, INVALID_ARGUMENT, SHAPE_MISMATCH } = AttentionError.codes;
const BAD_ARGUMENT = 2; // attn::Status::bad_argument
const BATCH_FIELDS = ['size', 'length', 'input', 'target', 'sourceLength', 'source', 'examples'];

const isFlat = (x) => ArrayBuffer.isView(x) || (Array.isArray(x) && (x.length === 0 || typeof x[0] === 'number'));

// Nested rows → one flat Int32Array padded to the longest row (or `width`).
function fromRows(fn, name, rows, pad, width) {
  if (!Array.isArray(rows) || rows.length === 0) fail(INVALID_ARGUMENT, `${fn}: batch.${name} must be a non-empty array of rows (arrays of token ids)`);
  rows.forEach((row, i) => {
    if (!Array.isArray(row) && !ArrayBuffer.isView(row)) fail(INVALID_ARGUMENT, `${fn}: batch.${name} row ${i} is not an array of token ids`);
  });
  // A loop, not Math.max(...rows): a spread of 125,000 rows overflows the call stack.
  let length = width ?? 0;
  if (width === undefined) for (const row of rows) length = Math.max(length, row.length);
  const data = new Int32Array(rows.length * length).fill(pad);
  rows.forEach((row, i) => {
    if (row.length > length) fail(SHAPE_MISMATCH, `${fn}: batch.${name} row ${i} has ${row.length} tokens but batch.input's rows have ${length}`);
    for (let j = 0; j < row.length; j++) data[i * length + j] = tokenId(fn, name, row[j], i, j);
  });
  return { data, size: rows.length, length };
}

// A flat array of size × length ids (a task's batch).
function fromFlat(fn, name, values, size, length) {
  if (values.length !== size * length)
    fail(SHAPE_MISMATCH, `${fn}: batch.${name} has ${values.length} ids but size ${size} × length ${length} needs ${size * length}`);
  if (values instanceof Int32Array) return { data: values, size, length };
  const data = new Int32Array(values.length);
  for (let k = 0; k < values.length; k++) data[k] = tokenId(fn, name, values[k], Math.floor(k / length), k % length);
  return { data, size, length };
}

const quoted = (value) => (typeof value === 'number' ? String(value) : describe(value));

function tokenId(fn, name, value, row, column) {
  if (!Number.isInteger(value)) fail(INVALID_ARGUMENT, `${fn}: batch.${name} row ${row}, column ${column} is ${quoted(value)}; a token id must be an integer`);
  return value;
}

// Every id in [0, vocabSize): the first one outside named by row and column.
function checkIds(fn, name, { data, length }, vocabSize) {
  for (let k = 0; k < data.length; k++) {
    const id = data[k];
    if (id < 0 || id >= vocabSize)
      fail(INVALID_ARGUMENT, `${fn}: batch.${name} row ${Math.floor(k / length)}, column ${k % length} is token id ${id}, outside the vocabulary (0 … ${vocabSize - 1})`);
  }
}

function dimension(fn, name, value) {
  if (!Number.isInteger(value) || value <= 0) fail(INVALID_ARGUMENT, `${fn}: batch.${name} must be a positive integer, got ${String(value)}`);
  return value;
}

// One of input, target, source in either form.
function rowsOf(fn, batch, name, pad, sizeName, lengthName, width) {
  const value = batch[name];
  if (!isFlat(value)) return fromRows(fn, name, value, pad, width);
  if (batch.size === undefined || batch[lengthName] === undefined)
    fail(INVALID_ARGUMENT, `${fn}: batch.${name} is flat, so the batch needs size and ${lengthName} (or give nested rows)`);
  return fromFlat(fn, name, value, dimension(fn, sizeName, batch.size), dimension(fn, lengthName, batch[lengthName]));
}

function checkLength(fn, name, length, config) {
  if (length > config.maxLength)
    fail(INVALID_ARGUMENT, `${fn}: batch.${name} rows have ${length} tokens but this model takes at most maxLength = ${config.maxLength}`);
}

/**
 * batch → { size, length, input, target, sourceLength, source } with flat Int32Arrays (source null for
 * a decoder-only or encoder-only model), every id inside the vocabulary, lengths within the model's maxLength.
 */
export function toBatch(fn, batch, config, pad = 0) {
  if (batch === null || typeof batch !== 'object' || Array.isArray(batch))
    fail(INVALID_ARGUMENT, `${fn}: batch must be an object { input, target, source? } (a task's batch or nested rows of token ids)`);
  const unknown = Object.keys(batch).find((key) => !BATCH_FIELDS.includes(key));
  if (unknown !== undefined) fail(INVALID_ARGUMENT, `${fn}: batch has an unknown field ${unknown}; its fields are ${BATCH_FIELDS.join(', ')}`);
  for (const name of ['input', 'target']) if (batch[name] === undefined) fail(INVALID_ARGUMENT, `${fn}: batch.${name} is missing`);
  const input = rowsOf(fn, batch, 'input', pad, 'size', 'length');
  const target = rowsOf(fn, batch, 'target', pad, 'size', 'length', input.length);
  if (target.size !== input.size) fail(SHAPE_MISMATCH, `${fn}: batch.input has ${input.size} rows but batch.target has ${target.size}`);
  checkLength(fn, 'input', input.length, config);
  checkIds(fn, 'input', input, config.vocabSize);
  checkIds(fn, 'target', target, config.vocabSize);
  if (!target.data.some((id) => id !== pad))
    fail(INVALID_ARGUMENT, `${fn}: batch.target counts no position (every entry is the pad id ${pad}); the loss would be 0/0`);
  const source = sourceOf(fn, batch, config, pad, input.size);
  return { size: input.size, length: input.length, input: input.data, target: target.data, sourceLength: source?.length ?? 0, source: source?.data ?? null };
}

function sourceOf(fn, batch, config, pad, size) {
  const given = batch.source !== undefined && batch.source !== null;
  if (config.kind === 'lm') {
    if (given) fail(INVALID_ARGUMENT, `${fn}: this is a decoder-only ('lm') model, which reads no source; leave batch.source out`);
    return null;
  }
  if (config.kind === 'mlm') {
    if (given) fail(INVALID_ARGUMENT, `${fn}: this is an encoder-only ('mlm') model, which reads no source: its masked ids are batch.input (mlmBatch makes them); leave batch.source out`);
    return null;
  }
  if (!given) fail(SHAPE_MISMATCH, `${fn}: this encoder–decoder ('seq2seq') model needs batch.source, the rows its encoder reads`);
  const source = rowsOf(fn, batch, 'source', pad, 'size', 'sourceLength');
  if (source.size !== size) fail(SHAPE_MISMATCH, `${fn}: batch.source has ${source.size} rows but batch.input has ${size}`);
  checkLength(fn, 'source', source.length, config);
  checkIds(fn, 'source', source, config.vocabSize);
  return source;
}

/** A sequence of token ids (array or typed array) → Int32Array, each id in the vocabulary. */
export function toIds(fn, name, ids, vocabSize) {
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) fail(INVALID_ARGUMENT, `${fn}: ${name} must be an array of token ids (e.g. task.encode(text)), got ${ids === null ? 'null' : typeof ids}`);
  const data = new Int32Array(ids.length);
  for (let j = 0; j < ids.length; j++) {
    const id = ids[j];
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      fail(INVALID_ARGUMENT, `${fn}: ${name}[${j}] is ${quoted(id)}, not a token id of this model (0 … ${vocabSize - 1})`);
    data[j] = id;
  }
  return data;
}

/**
 * The core's status of a batch call (an int32 result slot). Every id and length was checked here
 * first, so a refusal means the batch's activations would pass the core's workspace limit
 * (2^26 floats, 256 MiB: model_state.h); anything else is a bug.
 */
export function checkCoreStatus(fn, status, what) {
  if (status === 0) return;
  if (status === BAD_ARGUMENT)
    throw new AttentionRangeError(`${fn}: ${what} needs more than the 256 MiB of activations the model may hold; use fewer or shorter rows`);
  fail(INTERNAL, `${fn}: the core rejected arguments the JS layer accepted (status ${status}); please report this`);
}
