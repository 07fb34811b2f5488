// Types of ops/kv-cache.js: a decoder's KV cache and the memory of one for a model's shape.
import type { Tensor, TensorInput } from './batched.js';

/** Options of {@link KVCacheOps.createKVCache}: the cache's shape and score rules, fixed for its life. */
export interface KVCacheOptions {
  /** Query heads (a multiple of kvHeads). */
  heads: number;
  /** Key/value heads: heads (MHA), a divisor (GQA) or 1 (MQA); query head h reads ⌊h·kvHeads/heads⌋. */
  kvHeads: number;
  /** Width of queries and keys. */
  dK: number;
  /** Width of values. */
  dV: number;
  /** Most tokens the cache holds; its memory is allocated for all of them when it is created. */
  capacity: number;
  /** Sequences decoded side by side. Default 1. */
  batch?: number;
  /** Multiplier of q·k. Default 1/√dK. */
  scale?: number;
  /** c > 0: scores become c·tanh(s/c) before the causal rule (Gemma 2). Default 0 (none). */
  softcap?: number;
  /** A sliding window: each token sees at most the last `window` tokens, itself included. Default none. */
  window?: number;
}

/** Options of a prefill or step call. */
export interface KVCacheCallOptions {
  /** `false`: the fused path (online softmax), no `weights` returned. Default true. */
  weights?: boolean;
}

/**
 * The attention work of one call, in multiply-adds: (dK + dV) per key a query sees (q·k and the weighted
 * sum of v), for every batch entry and query head. A token at position t sees t + 1 keys (min(t + 1, window)).
 * Projections, exponentials and the model's other layers are not counted.
 */
export interface KVCacheWork {
  /** This call's tokens against the cache: the sum over their positions past … past + n − 1. */
  withCache: number;
  /** The same outputs without a cache: causal attention recomputed over all past + n tokens (positions 0 … past + n − 1). */
  withoutCache: number;
}

export interface KVCacheResult {
  /** [batch, heads, n, dV] (3-D inputs: [batch, n, heads·dV]): the new tokens' attention outputs. */
  output: Tensor;
  /** [batch, heads, n, length]: each new query's weights over every cached token (not with `weights: false`). */
  weights?: Tensor;
  work: KVCacheWork;
}

/** A KV cache made by {@link KVCacheOps.createKVCache}. Its memory is its own: `lab.releaseMemory()` leaves it alone. */
export interface KVCache {
  readonly batch: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly dK: number;
  readonly dV: number;
  /** Most tokens it holds. */
  readonly capacity: number;
  /** The scale in use (float32). */
  readonly scale: number;
  /** The soft cap (0: none). */
  readonly softcap: number;
  /** The sliding window, or null. */
  readonly window: number | null;
  /** Tokens cached so far. */
  readonly length: number;
  /** Bytes of its memory, allocated for the whole capacity: batch·kvHeads·capacity·(dK + dV)·4. */
  readonly bytes: number;
  /**
   * Appends n tokens and attends their queries to every cached token, causal bottom-right: new token i is at
   * position length + i and sees tokens 0 … length + i. Q [batch, heads, n, dK], K [batch, kvHeads, n, dK],
   * V [batch, kvHeads, n, dV]; or all three 3-D, [batch, n, heads·dK], [batch, n, kvHeads·dK],
   * [batch, n, kvHeads·dV] (batchedAttention's 3-D layout), and then the output is [batch, n, heads·dV].
   * Throws when length + n exceeds the capacity (nothing is appended on any error).
   */
  prefill(Q: TensorInput, K: TensorInput, V: TensorInput, options: KVCacheCallOptions & { weights: false }): Omit<KVCacheResult, 'weights'>;
  prefill(Q: TensorInput, K: TensorInput, V: TensorInput, options?: KVCacheCallOptions): KVCacheResult & { weights: Tensor };
  /** One decode step: {@link prefill} with n = 1 (throws for any other n). */
  step(q: TensorInput, k: TensorInput, v: TensorInput, options: KVCacheCallOptions & { weights: false }): Omit<KVCacheResult, 'weights'>;
  step(q: TensorInput, k: TensorInput, v: TensorInput, options?: KVCacheCallOptions): KVCacheResult & { weights: Tensor };
  /** A copy of the cached keys, [batch, kvHeads, length, dK]. */
  keys(): Tensor;
  /** A copy of the cached values, [batch, kvHeads, length, dV]. */
  values(): Tensor;
  /** Empties the cache (length 0); its memory stays allocated. */
  reset(): void;
  /**
   * Keeps the first `length` tokens (0 … its length) and drops the rest, e.g. a rejected speculative draft;
   * throws INVALID_ARGUMENT for a length beyond the tokens cached. Its memory stays allocated.
   */
  truncate(length: number): void;
  /** Frees its memory; every other method then throws an AttentionError with code DISPOSED. Safe to call twice. */
  release(): void;
}

/** Options of {@link KVCacheOps.kvCacheBytes}: a model's shape. Give `headDim`, or `dK` and `dV`. */
export interface KVCacheBytesOptions {
  layers: number;
  /** Default 1. */
  batch?: number;
  kvHeads: number;
  /** Width of keys and values alike. */
  headDim?: number;
  dK?: number;
  dV?: number;
  /** Tokens cached (0 or more). */
  tokens: number;
  /** 4 float32 (default), 2 float16/bfloat16, 1 int8, 0.5 a 4-bit format. */
  bytesPerValue?: number;
}

export interface KVCacheOps {
  /** A KV cache for decoding one token at a time: prefill, then one step per generated token. */
  createKVCache(options: KVCacheOptions): KVCache;
  /** layers · batch · kvHeads · tokens · (dK + dV) · bytesPerValue: the keys and values a model caches. */
  kvCacheBytes(options: KVCacheBytesOptions): number;
}
