// Turning user input into checked, flat float32 matrices, with messages that
// name the function, the argument and the sizes. Nothing here touches WASM.
import { AttentionError, fail } from './errors.js';

const { SHAPE_MISMATCH, INVALID_MATRIX, INVALID_ARGUMENT, INVALID_MASK, NON_FINITE } = AttentionError.codes;

export const shape = (m) => `${m.rows}×${m.cols}`;

const isDimension = (x) => Number.isInteger(x) && x >= 0;

/** A value as an error message quotes it: a number as written, anything else with its type (the string "5"). */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return typeof value === 'object' ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})` : `${typeof value} ${String(value)}`;
}

function tooLarge(fn, where, x) {
  fail(NON_FINITE, `${fn}: ${where} is ${x}, beyond float32's range (±3.4e38)`);
}

// One pass over a matrix: the largest row norm (in double, kept for the
// overflow guard) and, through it, the finiteness check: a NaN or an infinity
// makes its row's sum of squares non-finite, and only then is the entry found.
function scanRows(fn, name, data, rows, cols) {
  let best = 0;
  for (let i = 0, k = 0; i < rows; i++) {
    let sum = 0;
    for (const end = k + cols; k < end; k++) sum += data[k] * data[k];
    if (!(sum < Infinity)) checkFinite(fn, name, data.subarray(i * cols, (i + 1) * cols), cols, i);
    if (sum > best) best = sum;
  }
  return Math.sqrt(best);
}

function checkFinite(fn, name, data, cols, firstRow = 0) {
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      const where = cols > 0 ? `[${firstRow + Math.floor(i / cols)}][${i % cols}]` : `[${i}]`;
      fail(NON_FINITE, `${fn}: ${name}${where} is ${data[i]}; every entry must be a finite number`);
    }
  }
}

function fromNested(fn, name, rowsArray) {
  const rows = rowsArray.length;
  const first = rowsArray[0];
  if (rows > 0 && !Array.isArray(first) && !ArrayBuffer.isView(first))
    fail(INVALID_MATRIX, `${fn}: ${name} must be a matrix { rows, cols, data } or an array of rows; row 0 is ${describe(first)}`);
  const cols = rows > 0 ? first.length : 0;
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = rowsArray[i];
    if (!row || row.length !== cols)
      fail(INVALID_MATRIX, `${fn}: ${name} is ragged: row 0 has ${cols} entries but row ${i} has ${row ? row.length : describe(row)}`);
    for (let j = 0; j < cols; j++) {
      const x = row[j];
      if (typeof x !== 'number') fail(INVALID_MATRIX, `${fn}: ${name}[${i}][${j}] is ${describe(x)}, not a number`);
      data[i * cols + j] = x;
      if (Number.isFinite(x) && !Number.isFinite(data[i * cols + j])) tooLarge(fn, `${name}[${i}][${j}]`, x);
    }
  }
  return { rows, cols, data };
}

/**
 * A checked dense matrix { rows, cols, data: Float32Array } from a matrix
 * object or nested arrays. The data is not copied when it already is a
 * Float32Array of the right length (it is only read).
 */
export function toMatrix(fn, name, value) {
  if (value === undefined) fail(INVALID_MATRIX, `${fn}: ${name} is missing`);
  if (Array.isArray(value)) {
    const m = fromNested(fn, name, value);
    m.maxRowNorm = scanRows(fn, name, m.data, m.rows, m.cols);
    return m;
  }
  if (value === null || typeof value !== 'object')
    fail(INVALID_MATRIX, `${fn}: ${name} must be a matrix { rows, cols, data } or nested arrays, got ${describe(value)}`);
  const { rows, cols } = value;
  if (rows === undefined && cols === undefined) notAMatrix(fn, name, value);
  if (!isDimension(rows) || !isDimension(cols))
    fail(INVALID_MATRIX, `${fn}: ${name} has rows = ${rows} and cols = ${cols}; both must be non-negative integers`);
  let data = value.data;
  if (!(data instanceof Float32Array)) {
    if (!ArrayBuffer.isView(data) && !Array.isArray(data))
      fail(INVALID_MATRIX, `${fn}: ${name}.data must be a Float32Array (or an array of numbers), got ${describe(data)}`);
    const source = data;
    data = Float32Array.from(source);
    for (let i = 0; i < data.length; i++)
      if (Number.isFinite(source[i]) && !Number.isFinite(data[i])) tooLarge(fn, `${name}.data[${i}]`, source[i]);
  }
  if (data.length !== rows * cols)
    fail(INVALID_MATRIX, `${fn}: ${name} is ${rows}×${cols} but its data has ${data.length} entries (expected ${rows * cols})`);
  return { rows, cols, data, maxRowNorm: scanRows(fn, name, data, rows, cols) };
}

/** The likely mistakes behind an object without rows and cols: a flat typed array, an N-d tensor. */
function notAMatrix(fn, name, value) {
  if (ArrayBuffer.isView(value))
    fail(INVALID_MATRIX, `${fn}: ${name} is a flat ${value.constructor.name} of ${value.length} numbers; a matrix needs its shape: pass { rows, cols, data } (or nested arrays, one per row)`);
  if (Array.isArray(value.shape))
    fail(INVALID_MATRIX, `${fn}: ${name} is a tensor { shape: ${JSON.stringify(value.shape)}, data }; ${fn} takes a matrix: pass { rows, cols, data }${value.shape.length === 2 ? ` (rows: ${value.shape[0]}, cols: ${value.shape[1]})` : ''} or nested arrays; batchedAttention takes { shape, data }`);
  fail(INVALID_MATRIX, `${fn}: ${name} must be a matrix { rows, cols, data } or nested arrays, got ${describe(value)} without rows and cols`);
}

/**
 * The name in `names` a typo `key` most likely meant (the same letters in another case, or an edit
 * distance of at most half the key's length, and at most 2), or undefined: a one-letter key is
 * never "meant" as some two-letter name.
 */
export function nearestName(key, names) {
  let best;
  let bestDistance = Math.min(2, Math.floor(key.length / 2)) + 1;
  for (const name of names) {
    const d = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** " (did you mean validLens?)" when `key` is close to one of `names`, else "". */
const didYouMean = (key, names) => {
  const near = nearestName(key, names);
  return near ? ` (did you mean ${near}?)` : '';
};

/** The hint for an unknown option: the nearest option, or (validLen, validLens) the mask's own key. */
function optionHint(key, value, allowed) {
  const near = didYouMean(key, allowed);
  if (near || !allowed.includes('mask') || !nearestName(key, ['validLens'])) return near;
  const given = typeof value === 'number' ? value : '…';
  return ` (did you mean validLens? it goes in the mask: { mask: { validLens: ${given} } })`;
}

/** A checked float32 vector from a Float32Array, a typed array or number[]. */
export function toVector(fn, name, value) {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value))
    fail(INVALID_ARGUMENT, `${fn}: ${name} must be a Float32Array or an array of numbers, got ${describe(value)}`);
  for (let i = 0; i < value.length; i++)
    if (typeof value[i] !== 'number' && typeof value[i] !== 'bigint') fail(INVALID_ARGUMENT, `${fn}: ${name}[${i}] is ${describe(value[i])}, not a number`);
  const data = value instanceof Float32Array ? value : Float32Array.from(value, Number);
  for (let i = 0; i < data.length; i++) if (Number.isFinite(Number(value[i])) && !Number.isFinite(data[i])) tooLarge(fn, `${name}[${i}]`, value[i]);
  checkFinite(fn, name, data, 0);
  return data;
}

/** Fails unless `actual` equals `expected`, with a message built by `explain`. */
export function expectEqual(actual, expected, explain) {
  if (actual !== expected) fail(SHAPE_MISMATCH, explain());
}

/** A finite number, or the fallback when undefined. */
export function toNumber(fn, name, value, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail(value !== value || value === Infinity || value === -Infinity ? NON_FINITE : INVALID_ARGUMENT,
      `${fn}: ${name} must be a finite number, got ${describe(value)}`);
  return value;
}

/** A positive integer, e.g. the number of heads. */
export function toPositiveInteger(fn, name, value) {
  if (!Number.isInteger(value) || value <= 0) fail(INVALID_ARGUMENT, `${fn}: ${name} must be a positive integer, got ${describe(value)}`);
  return value;
}

/** A positive integer below 2³¹: a size that travels in a 32-bit field of the argument block (a larger one would wrap). */
export function toPositiveSize(fn, name, value) {
  toPositiveInteger(fn, name, value);
  if (value > 0x7fffffff) fail(INVALID_ARGUMENT, `${fn}: ${name} must be a positive integer up to 2147483647, got ${describe(value)}`);
  return value;
}

/** A non-negative integer below 2³¹, e.g. a number of positions (0 is allowed). */
export function toCount(fn, name, value) {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff)
    fail(INVALID_ARGUMENT, `${fn}: ${name} must be an integer from 0 to 2147483647, got ${describe(value)}`);
  return value;
}

/** true or false (undefined counts as false). */
export function toBoolean(fn, name, value) {
  if (value !== undefined && typeof value !== 'boolean') fail(INVALID_ARGUMENT, `${fn}: ${name} must be true or false, got ${describe(value)}`);
  return Boolean(value);
}

/** Rejects option names that do not exist (a typo would otherwise be silently ignored). */
export function checkOptions(fn, options, allowed) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    fail(INVALID_ARGUMENT, `${fn}: options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options))
    if (!allowed.includes(key)) fail(INVALID_ARGUMENT, `${fn}: unknown option ${key}${optionHint(key, options[key], allowed)}; the options are ${allowed.join(', ')}`);
  return options;
}

// Mask kinds as the core numbers them.
export const MaskKind = Object.freeze({ none: 0, causal: 1, validLens: 2, matrix: 3 });

/**
 * A checked mask for an n×m score matrix: { kind, lens?: Int32Array, bits?: Uint8Array }.
 * Accepts undefined / 'none', 'causal', { validLens }, or a 0/1 matrix (1 = may attend).
 */
export function toMask(fn, mask, n, m) {
  if (mask === undefined || mask === null || mask === 'none') return { kind: MaskKind.none };
  if (mask === 'causal') return { kind: MaskKind.causal };
  if (typeof mask === 'string') fail(INVALID_MASK, `${fn}: unknown mask "${mask}"; expected 'none', 'causal', { validLens } or a 0/1 matrix`);
  if (typeof mask === 'object' && !Array.isArray(mask) && 'validLens' in mask) return toValidLens(fn, mask.validLens, n, m);
  if (typeof mask === 'object' && !Array.isArray(mask) && !ArrayBuffer.isView(mask) && !('rows' in mask) && !('cols' in mask)) {
    const key = Object.keys(mask)[0];
    fail(INVALID_MASK, `${fn}: mask ${key === undefined ? 'is an empty object' : `has the unknown key ${key}${didYouMean(key, ['validLens', 'rows', 'cols', 'data'])}`}; a mask is 'none', 'causal', { validLens } or a 0/1 matrix`);
  }
  if (typeof mask !== 'object')
    fail(INVALID_MASK, `${fn}: mask must be 'none', 'causal', { validLens } or a 0/1 matrix, got ${describe(mask)}`);
  const bitsMatrix = toMatrix(fn, 'mask', mask);
  if (bitsMatrix.rows !== n || bitsMatrix.cols !== m)
    fail(INVALID_MASK, `${fn}: mask is ${shape(bitsMatrix)} but the scores are ${n}×${m}`);
  const bits = new Uint8Array(n * m);
  for (let i = 0; i < bits.length; i++) {
    const b = bitsMatrix.data[i];
    if (b !== 0 && b !== 1) fail(INVALID_MASK, `${fn}: mask[${Math.floor(i / m)}][${i % m}] is ${b}; mask entries must be 0 (hidden) or 1 (visible)`);
    bits[i] = b;
  }
  return { kind: MaskKind.matrix, bits };
}

function toValidLens(fn, validLens, n, m) {
  const list = typeof validLens === 'number' ? new Array(n).fill(validLens) : validLens;
  if (!Array.isArray(list) && !ArrayBuffer.isView(list))
    fail(INVALID_MASK, `${fn}: validLens must be a number or an array with one length per query row, got ${typeof validLens}`);
  if (list.length !== n) fail(INVALID_MASK, `${fn}: validLens has ${list.length} entries but there are ${n} query rows`);
  const lens = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const len = list[i];
    if (!Number.isInteger(len) || len < 0 || len > m)
      fail(INVALID_MASK, `${fn}: validLens[${i}] is ${len}; each valid length must be an integer from 0 to ${m} (the number of keys)`);
    lens[i] = len;
  }
  return { kind: MaskKind.validLens, lens };
}

/** What a checked mask copies into the heap: the lengths, the bits, or nothing. */
export const maskData = (mask) => mask.lens ?? mask.bits ?? null;
