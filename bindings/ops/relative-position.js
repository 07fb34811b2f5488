// The relative-position family: position schemes under which an attention
// score depends on the distance i − j between query and key. Rotary position
// embedding (RoPE) turns pairs of a query's or key's coordinates by angles
// proportional to its position; ALiBi adds a per-head penalty proportional to
// the distance. Raw calls in ops/relative-position.cpp.
import { AttentionError, fail } from '../errors.js';
import { shapeText, toTensor } from '../tensors.js';
import { checkOptions, toBoolean, toCount, toMatrix, toNumber, toPositiveSize } from '../validate.js';

const { INVALID_ARGUMENT, INVALID_MATRIX, SHAPE_MISMATCH } = AttentionError.codes;

/** @param {{ frame: (fn: string) => import('../frame.js').Frame }} context */
export function relativePositionOps(context) {
  return {
    rotaryEmbedding: (X, options) => rotaryEmbedding(context, X, options),
    rotaryAngles: (n, d, options) => rotaryAngles(context, n, d, options),
    alibiSlopes: (heads) => alibiSlopes(context, heads),
    alibiBias: (options) => alibiBias(context, options),
  };
}

// θ_i = base^(−2i/d) needs a positive finite base; positions start at `offset`.
function rotaryRule(fn, o) {
  const base = toNumber(fn, 'base', o.base, 10000);
  if (!(base > 0)) fail(INVALID_ARGUMENT, `${fn}: base must be a positive number (θ_i = base^(−2i/d)), got ${base}`);
  return { base, offset: o.offset === undefined ? 0 : toCount(fn, 'offset', o.offset) };
}

// A { shape, data } tensor, or nested arrays three or four deep (two deep is a matrix).
const isTensorLike = (X) =>
  (X !== null && typeof X === 'object' && !Array.isArray(X) && 'shape' in X) ||
  (Array.isArray(X) && Array.isArray(X[0]) && (Array.isArray(X[0][0]) || ArrayBuffer.isView(X[0][0])));

// X as the core sees it: layout (0 [batch, heads, n, d], 1 [batch, n, heads·d]), sizes and data,
// and how to hand the result back (a matrix for a matrix, a tensor of the same shape for a tensor).
function rotaryInput(fn, X, o) {
  if (X === null || typeof X !== 'object')
    fail(INVALID_MATRIX, `${fn}: X must be a matrix { rows, cols, data }, a tensor { shape, data } or nested arrays, got ${X === null ? 'null' : typeof X}`);
  const given = o.heads === undefined ? undefined : toPositiveSize(fn, 'heads', o.heads);
  if (!isTensorLike(X)) {
    const m = toMatrix(fn, 'X', X);
    const heads = given ?? 1;  // n × (heads·d): the heads side by side, as multiHeadAttention lays them out
    if (m.cols % heads !== 0) fail(SHAPE_MISMATCH, `${fn}: X is ${m.rows}×${m.cols}; its width ${m.cols} is not a multiple of ${heads} heads`);
    return { layout: 1, batch: 1, heads, n: m.rows, d: m.cols / heads, data: m.data, matrix: [m.rows, m.cols], what: `X is ${m.rows}×${m.cols}` };
  }
  const t = toTensor(fn, 'X', X, { ranks: [3, 4] });
  const what = `X has shape ${shapeText(t.shape)}`;
  if (t.shape.length === 4) {
    const [batch, heads, n, d] = t.shape;
    if (given !== undefined && given !== heads) fail(SHAPE_MISMATCH, `${fn}: options.heads is ${given} but ${what} [batch, heads, n, d]`);
    return { layout: 0, batch, heads, n, d, data: t.data, shape: t.shape, what };
  }
  if (given === undefined) fail(INVALID_ARGUMENT, `${fn}: ${what}; a 3-D input [batch, n, heads·d] needs options.heads`);
  const [batch, n, width] = t.shape;
  if (width % given !== 0) fail(SHAPE_MISMATCH, `${fn}: ${what}; its last size ${width} is not a multiple of ${given} heads`);
  return { layout: 1, batch, heads: given, n, d: width / given, data: t.data, shape: t.shape, what };
}

function evenWidth(fn, d, what) {
  if (d % 2 !== 0) fail(INVALID_ARGUMENT, `${fn}: ${what}, so each head has width d = ${d}; RoPE turns coordinates in pairs, so d must be even`);
}

function rotaryEmbedding({ frame }, X, options) {
  const fn = 'rotaryEmbedding';
  const o = checkOptions(fn, options, ['base', 'offset', 'interleaved', 'heads']);
  const rule = rotaryRule(fn, o);
  const interleaved = toBoolean(fn, 'interleaved', o.interleaved);
  const x = rotaryInput(fn, X, o);
  evenWidth(fn, x.d, x.what);
  const f = frame(fn);
  const output = f.output(x.data.length);
  // A rotation keeps each pair's length, but an entry can still grow by up to √2 past float32's
  // range for inputs near it: the frame's scan of the result reports that as OVERFLOW.
  f.call('rotaryEmbedding', {
    X: f.input(x.data), layout: x.layout, batch: x.batch, heads: x.heads, n: x.n, d: x.d, ...rule, interleaved: interleaved ? 1 : 0, output,
  });
  if (x.matrix) return f.matrix(output, ...x.matrix);
  return { shape: [...x.shape], data: f.matrix(output, 1, x.data.length).data };
}

function rotaryAngles({ frame }, n, d, options) {
  const fn = 'rotaryAngles';
  const [rows, width] = [toCount(fn, 'n', n), toCount(fn, 'd', d)];
  const rule = rotaryRule(fn, checkOptions(fn, options, ['base', 'offset']));
  if (width % 2 !== 0) fail(INVALID_ARGUMENT, `${fn}: d is ${width}; RoPE turns coordinates in pairs, so d must be even`);
  const f = frame(fn);
  const angles = f.output(rows * (width / 2));
  f.call('rotaryAngles', { n: rows, d: width, ...rule, angles });
  return f.matrix(angles, rows, width / 2);
}

function alibiSlopes({ frame }, heads) {
  const fn = 'alibiSlopes';
  const h = toPositiveSize(fn, 'heads', heads);
  const f = frame(fn);
  const slopes = f.output(h);
  f.call('alibiSlopes', { heads: h, slopes });
  return f.matrix(slopes, 1, h).data;
}

function alibiBias({ frame }, options) {
  const fn = 'alibiBias';
  if (options === undefined) fail(INVALID_ARGUMENT, `${fn}: options { heads, queries, keys?, offset?, symmetric? } are required`);
  const o = checkOptions(fn, options, ['heads', 'queries', 'keys', 'offset', 'symmetric']);
  for (const name of ['heads', 'queries'])
    if (o[name] === undefined) fail(INVALID_ARGUMENT, `${fn}: options.${name} is required`);
  const heads = toPositiveSize(fn, 'heads', o.heads);
  const queries = toCount(fn, 'queries', o.queries);
  const keys = o.keys === undefined ? queries : toCount(fn, 'keys', o.keys);
  const offset = toNumber(fn, 'offset', o.offset, 0);
  if (!Number.isInteger(offset) || Math.abs(offset) > 0x7fffffff)
    fail(INVALID_ARGUMENT, `${fn}: offset must be an integer from −2147483647 to 2147483647, got ${offset}`);
  const symmetric = toBoolean(fn, 'symmetric', o.symmetric);
  const f = frame(fn);
  const count = heads * queries * keys;
  const bias = f.output(count);
  f.call('alibiBias', { heads, queries, keys, offset, symmetric: symmetric ? 1 : 0, bias });
  // Read without the finite-result scan: the hidden future keys are −Infinity on purpose.
  return { shape: [1, heads, queries, keys], data: f.workspace.readMatrix(f.addr(bias), 1, count).data };
}
