// The KV-cache family: createKVCache, a decoder's cache of keys and values in
// a heap block of its own (prefill, then one step per generated token), and
// kvCacheBytes, the memory such a cache takes for a model's shape. The cache
// attends with the batched family's kernels (src/kv_cache.h); raw calls in
// ops/kv-cache.cpp, the work and memory formulas in src/kv_cache_cost.h.
import { AttentionError, fail } from '../errors.js';
import { checkScoreBound, maxRowNorm } from '../overflow.js';
import { defaultScale } from '../shapes.js';
import { shapeText, toTensor } from '../tensors.js';
import { checkOptions, toBoolean, toCount, toNumber, toPositiveInteger, toPositiveSize } from '../validate.js';

const { DISPOSED, INVALID_ARGUMENT, SHAPE_MISMATCH } = AttentionError.codes;
const CREATE = ['heads', 'kvHeads', 'dK', 'dV', 'capacity', 'batch', 'scale', 'softcap', 'window'];
const BYTES = ['layers', 'batch', 'kvHeads', 'headDim', 'dK', 'dV', 'tokens', 'bytesPerValue'];

/** @param {{ module: object, workspace: import('../workspace.js').Workspace, frame: (fn: string) => import('../frame.js').Frame }} context */
export function kvCacheOps(context) {
  // A cache not released frees its block when garbage-collected.
  const own = { ...context, caches: new FinalizationRegistry((address) => context.module._free(address)) };
  return {
    createKVCache: (options) => createKVCache(own, options),
    kvCacheBytes: (options) => kvCacheBytes(context, options),
  };
}

// The cache's fixed shape and rules, checked.
function cacheShape(fn, options) {
  const o = checkOptions(fn, options, CREATE);
  for (const name of ['heads', 'kvHeads', 'dK', 'dV', 'capacity'])
    if (o[name] === undefined) fail(INVALID_ARGUMENT, `${fn}: options.${name} is required`);
  const [heads, kvHeads, dK, dV] = ['heads', 'kvHeads', 'dK', 'dV'].map((name) => toPositiveSize(fn, name, o[name]));
  const capacity = toPositiveInteger(fn, 'capacity', o.capacity);
  const batch = o.batch === undefined ? 1 : toPositiveInteger(fn, 'batch', o.batch);
  if (heads % kvHeads !== 0) fail(SHAPE_MISMATCH, `${fn}: ${heads} query heads cannot share ${kvHeads} key/value heads; heads must be a multiple of kvHeads`);
  if (capacity > 0x7fffffff) fail(INVALID_ARGUMENT, `${fn}: capacity ${capacity} is above 2147483647 tokens`);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(dK)));
  if (!Number.isFinite(scale)) fail(INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
  const softcap = Math.fround(toNumber(fn, 'softcap', o.softcap, 0));
  if (!(softcap >= 0) || !Number.isFinite(softcap)) fail(INVALID_ARGUMENT, `${fn}: softcap is ${o.softcap}; it must be positive (or 0 for none)`);
  const window = o.window === undefined ? 0 : toPositiveInteger(fn, 'window', o.window);
  if (window > 0xffffffff) fail(INVALID_ARGUMENT, `${fn}: window ${window} is above 4294967295`);
  return { batch, heads, kvHeads, dK, dV, capacity, scale, softcap, window };
}

function createKVCache(context, options) {
  const fn = 'createKVCache';
  const s = cacheShape(fn, options);
  const bytes = memoryBytes(context, fn, { layers: 1, batch: s.batch, kvHeads: s.kvHeads, dK: s.dK, dV: s.dV, tokens: s.capacity, bytesPerValue: 4 });
  // the fused path's scratch depends on dV alone: asked once, not on every step
  const scratchFloats = context.frame(fn).query('batchedScratchFloats', { dv: s.dV });
  const keys = context.workspace.allocateBlock(fn, bytes);
  const state = { keys, values: keys + s.batch * s.kvHeads * s.capacity * s.dK * 4, length: 0, keyNorm: 0, scratchFloats, released: false };
  const cache = {
    batch: s.batch, heads: s.heads, kvHeads: s.kvHeads, dK: s.dK, dV: s.dV, capacity: s.capacity,
    scale: s.scale, softcap: s.softcap, window: s.window || null, bytes,
    /** Tokens cached now (0 once released). */
    get length() {
      return state.released ? 0 : state.length;
    },
    prefill: (Q, K, V, callOptions) => forward(context, 'KVCache.prefill', s, state, [Q, K, V], callOptions),
    step: (q, k, v, callOptions) => forward(context, 'KVCache.step', s, state, [q, k, v], callOptions),
    keys: () => cached(context, 'KVCache.keys', s, state, state.keys, s.dK),
    values: () => cached(context, 'KVCache.values', s, state, state.values, s.dV),
    reset() {
      alive('KVCache.reset', state);
      state.length = 0;
      state.keyNorm = 0;
    },
    truncate: (length) => truncate(context, s, state, length),
    release() {
      if (state.released) return;
      state.released = true;
      context.caches.unregister(cache);
      context.module._free(keys);
    },
  };
  context.caches.register(cache, keys, cache);
  return cache;
}

function alive(fn, state) {
  if (state.released) fail(DISPOSED, `${fn}: this KV cache was released; create a new one with createKVCache`);
}

// Keeps the first `length` tokens (a rejected draft of speculative decoding, a beam that backs
// up). The running key norm is that of the keys kept: a key cut away no longer bounds a score.
function truncate(context, s, state, length) {
  const fn = 'KVCache.truncate';
  alive(fn, state);
  const keep = toCount(fn, 'length', length);
  if (keep > state.length) fail(INVALID_ARGUMENT, `${fn}: length ${keep} is beyond the ${state.length} token${state.length === 1 ? '' : 's'} cached; truncate keeps tokens, it cannot add them`);
  if (keep === state.length) return;
  state.length = keep;
  const { data } = cached(context, fn, s, state, state.keys, s.dK);
  state.keyNorm = maxRowNorm({ rows: data.length / s.dK, cols: s.dK, data });
}

// Q [batch, heads, n, dK], K [batch, kvHeads, n, dK], V [batch, kvHeads, n, dV], each against the
// cache's shape; or all three 3-D, [batch, n, heads·dK], [batch, n, kvHeads·dK], [batch, n, kvHeads·dV]
// (the layout of batchedAttention's 3-D form and rotaryEmbedding), turned head-major here.
function newTokens(fn, s, inputs) {
  const [q, k, v] = ['Q', 'K', 'V'].map((name, i) => toTensor(fn, name, inputs[i], { ranks: [3, 4] }));
  const rank = q.shape.length;
  for (const [name, t] of [['K', k], ['V', v]])
    if (t.shape.length !== rank) fail(SHAPE_MISMATCH, `${fn}: Q has shape ${shapeText(q.shape)} but ${name} has ${shapeText(t.shape)}; Q, K and V must all be 3-D or all 4-D`);
  const n = rank === 4 ? q.shape[2] : q.shape[1];
  const heads = { Q: s.heads, K: s.kvHeads, V: s.kvHeads };
  const width = { Q: s.dK, K: s.dK, V: s.dV };
  const tensors = { Q: q, K: k, V: v };
  for (const name of ['Q', 'K', 'V']) {
    const t = tensors[name];
    const want = rank === 4 ? [s.batch, heads[name], n, width[name]] : [s.batch, n, heads[name] * width[name]];
    const what = rank === 4 ? `[batch, ${name === 'Q' ? 'heads' : 'kvHeads'}, n, ${name === 'V' ? 'dV' : 'dK'}]` : `[batch, n, ${name === 'Q' ? 'heads' : 'kvHeads'}·${name === 'V' ? 'dV' : 'dK'}]`;
    if (t.shape.some((x, i) => x !== want[i]))
      fail(SHAPE_MISMATCH, `${fn}: ${name} has shape ${shapeText(t.shape)} but this cache (batch ${s.batch}, heads ${s.heads}, kvHeads ${s.kvHeads}, dK ${s.dK}, dV ${s.dV}) needs ${shapeText(want)} ${what} for n = ${n}`);
  }
  if (rank === 4) return { q, k, v, n, flat: false };
  return { q: headMajor(q, s.heads), k: headMajor(k, s.kvHeads), v: headMajor(v, s.kvHeads), n, flat: true };
}

// The two middle sizes of [batch, a, b, width] swapped: a copy [batch, b, a, width] (token-major
// [batch, n, heads·width] read as [batch, n, heads, width] ⇄ head-major [batch, heads, n, width]).
function swapMiddle(data, batch, a, b, width) {
  const out = new Float32Array(data.length);
  for (let x = 0; x < batch; x++)
    for (let i = 0; i < a; i++)
      for (let j = 0; j < b; j++) {
        const from = ((x * a + i) * b + j) * width;
        out.set(data.subarray(from, from + width), ((x * b + j) * a + i) * width);
      }
  return out;
}

// [batch, n, heads·width] → [batch, heads, n, width].
function headMajor(t, heads) {
  const [batch, n, all] = t.shape;
  return { shape: [batch, heads, n, all / heads], data: swapMiddle(t.data, batch, n, heads, all / heads) };
}

// [batch, heads, n, width] → [batch, n, heads·width].
function tokenMajor(t) {
  const [batch, heads, n, width] = t.shape;
  return { shape: [batch, n, heads * width], data: swapMiddle(t.data, batch, heads, n, width) };
}

function forward(context, fn, s, state, inputs, callOptions) {
  alive(fn, state);
  const o = checkOptions(fn, callOptions, ['weights']);
  const keepWeights = toBoolean(fn, 'weights', o.weights ?? true);
  const { q, k, v, n, flat } = newTokens(fn, s, inputs);
  if (n === 0) fail(INVALID_ARGUMENT, `${fn}: Q, K and V hold no token (n = 0); give at least one`);
  if (fn === 'KVCache.step' && n !== 1) fail(SHAPE_MISMATCH, `${fn}: a step appends one token but Q has n = ${n}; use prefill for several`);
  if (state.length + n > s.capacity)
    fail(INVALID_ARGUMENT, `${fn}: appending n = ${n} token${n === 1 ? "" : "s"} to a cache of length ${state.length} needs ${state.length + n} rows but its capacity is ${s.capacity}; reset() it or create a larger cache`);
  const rows = (t, width) => ({ rows: t.data.length / width, cols: width, data: t.data });
  const keyNorm = Math.max(state.keyNorm, maxRowNorm(rows(k, s.dK)));
  const qNorm = maxRowNorm(rows(q, s.dK));
  checkScoreBound(fn, qNorm * keyNorm * Math.max(1, Math.abs(s.scale)), () => `queries of norm up to ${qNorm.toExponential(2)} and cached keys up to ${keyNorm.toExponential(2)}`);
  const total = state.length + n;
  const f = context.frame(fn);
  const work = callWork(f, s, state.length, n);
  const output = f.output(s.batch * s.heads * n * s.dV);
  const weights = f.output(s.batch * s.heads * n * total, keepWeights);
  const scratch = f.output(state.scratchFloats, !keepWeights);
  f.call('kvCacheForward', {
    keys: state.keys, values: state.values, batch: s.batch, heads: s.heads, kvHeads: s.kvHeads, dK: s.dK, dV: s.dV,
    capacity: s.capacity, length: state.length, n, Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data),
    scale: s.scale, softcap: s.softcap, window: s.window, output, weights, scratch,
  });
  const tensor = (slot, shape) => ({ shape, data: f.matrix(slot, 1, shape.reduce((a, b) => a * b, 1)).data });
  // The output in the layout of the input: 3-D in, [batch, n, heads·dV] out.
  const out = tensor(output, [s.batch, s.heads, n, s.dV]);
  const result = { output: flat ? tokenMajor(out) : out };
  if (weights) result.weights = tensor(weights, [s.batch, s.heads, n, total]);
  result.work = work;
  // Only a call that succeeded (results read and finite) advances the cache.
  state.length = total;
  state.keyNorm = keyNorm;
  return result;
}

// The multiply-adds of this call with the cache and of recomputing the prefix without one (kv_cache_cost.h).
function callWork(f, s, past, n) {
  const block = { batch: s.batch, heads: s.heads, dK: s.dK, dV: s.dV, window: s.window, past, n };
  return { withCache: f.query('kvCacheWork', { ...block, withCache: 1 }), withoutCache: f.query('kvCacheWork', { ...block, withCache: 0 }) };
}

// A copy of the cached rows of one plane as [batch, kvHeads, length, width].
function cached(context, fn, s, state, address, width) {
  alive(fn, state);
  const { length } = state;
  const data = new Float32Array(s.batch * s.kvHeads * length * width);
  const heap = context.module.HEAPF32;
  for (let head = 0; head < s.batch * s.kvHeads; head++) {
    const start = (address >> 2) + head * s.capacity * width;
    data.set(heap.subarray(start, start + length * width), head * length * width);
  }
  return { shape: [s.batch, s.kvHeads, length, width], data };
}

function memoryBytes(context, fn, block) {
  const bytes = context.frame(fn).query('kvCacheBytes', block);
  if (!(bytes <= Number.MAX_SAFE_INTEGER)) fail(INVALID_ARGUMENT, `${fn}: ${bytes} bytes is beyond what a number counts exactly (2^53); use smaller sizes`);
  return bytes;
}

function kvCacheBytes(context, options) {
  const fn = 'kvCacheBytes';
  const o = checkOptions(fn, options, BYTES);
  for (const name of ['layers', 'kvHeads', 'tokens'])
    if (o[name] === undefined) fail(INVALID_ARGUMENT, `${fn}: options.${name} is required`);
  if (o.headDim !== undefined && (o.dK !== undefined || o.dV !== undefined))
    fail(INVALID_ARGUMENT, `${fn}: give headDim (keys and values of one width) or dK and dV, not both`);
  if (o.headDim === undefined && (o.dK === undefined || o.dV === undefined))
    fail(INVALID_ARGUMENT, `${fn}: give headDim, or both dK and dV`);
  const [dK, dV] = o.headDim === undefined ? [toPositiveInteger(fn, 'dK', o.dK), toPositiveInteger(fn, 'dV', o.dV)]
    : [toPositiveInteger(fn, 'headDim', o.headDim), o.headDim];
  const bytesPerValue = toNumber(fn, 'bytesPerValue', o.bytesPerValue, 4);
  if (!(bytesPerValue > 0)) fail(INVALID_ARGUMENT, `${fn}: bytesPerValue must be positive (4 for float32, 2 for float16, 1 for int8), got ${bytesPerValue}`);
  return memoryBytes(context, fn, {
    layers: toPositiveInteger(fn, 'layers', o.layers), batch: o.batch === undefined ? 1 : toPositiveInteger(fn, 'batch', o.batch),
    kvHeads: toPositiveInteger(fn, 'kvHeads', o.kvHeads), dK, dV, tokens: toCount(fn, 'tokens', o.tokens), bytesPerValue,
  });
}
