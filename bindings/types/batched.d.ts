// Types of ops/batched.js: attention over a batch of heads, as ONNX's Attention operator defines it.

/** A float tensor: `shape` lists the sizes, `data` holds them row-major (the last size varies fastest). */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

/**
 * A tensor argument: `{ shape, data }` with data a Float32Array or numbers; `{ shape, data: Uint16Array,
 * dtype: 'float16' }` with float16 bits (converted exactly: every float16 is a float32); or nested arrays.
 */
export type TensorInput =
  | { shape: number[]; data: Float32Array | ArrayLike<number>; dtype?: 'float32' }
  | { shape: number[]; data: Uint16Array; dtype: 'float16' }
  | number[][]
  | number[][][]
  | number[][][][];

/** One intermediate of a traced call, every head's [batch, heads, n, keys] at once. */
export interface BatchedStep {
  /** `scores` (QKᵀ·scale), `capped` (only with softcap), `biased` (rules applied, hidden = −3.4e38), `weights`. */
  id: 'scores' | 'capped' | 'biased' | 'weights';
  title: string;
  /** The step as TeX. */
  formula: string;
  tensor: Tensor;
}

/** Options of {@link BatchedOps.batchedAttention}. Rules compose: a key is visible when every rule allows it. */
export interface BatchedAttentionOptions {
  /** Query heads. Required for 3-D inputs; for 4-D it must equal Q's second size if given. */
  heads?: number;
  /** Key/value heads (a divisor of heads: GQA; 1: MQA). Required for 3-D inputs. */
  kvHeads?: number;
  /** Multiplier of QKᵀ. Default 1/√d. */
  scale?: number;
  /** Soft-capping c > 0: scores become c·tanh(s/c) before the mask and bias. Default 0 (none). */
  softcap?: number;
  /** Query i sees keys j ≤ i + causalOffset. Default false. */
  causal?: boolean;
  /**
   * The causal (and window) frontier's offset: one number, or one per batch entry. Default: the past length
   * with `pastKey` (bottom-right, the KV-cache case), else 0 (top-left). Negative offsets hide whole rows.
   */
  causalOffset?: number | ArrayLike<number>;
  /** A sliding window: query i sees at most the `window` keys ending at i + causalOffset. */
  window?: number;
  /** Keys 0 … kvLengths[b] − 1 are real for batch entry b; the rest are padding (hidden). */
  kvLengths?: number | ArrayLike<number>;
  /** The same as kvLengths (the word the matrix functions' masks use); give one of the two. */
  validLens?: number | ArrayLike<number>;
  /**
   * A boolean mask (1/true = may attend) of shape [..., n, keys] broadcast against [batch, heads, n, keys]
   * (each leading size equal or 1; the last may be shorter: the missing keys are hidden).
   */
  mask?: TensorInput | { shape: number[]; data: Uint8Array | ArrayLike<number | boolean> };
  /** An additive float bias (ALiBi, relative positions, any mask) broadcast like `mask`; −Infinity hides a key. */
  bias?: TensorInput;
  /** The KV cache: [batch, kvHeads, past, d] keys of earlier steps (with pastValue; K and V are appended). */
  pastKey?: TensorInput;
  /** [batch, kvHeads, past, d_v] values of earlier steps. */
  pastValue?: TensorInput;
  /** Return the intermediates as `steps`. Default false. */
  trace?: boolean;
  /** `false`: the fused path (online softmax, no [n, keys] matrix), `{ output }` and the present cache only. Default true. */
  weights?: boolean;
}

export interface BatchedAttentionResult {
  /** [batch, heads, n, d_v] for 4-D inputs, [batch, n, heads·d_v] for 3-D. */
  output: Tensor;
  /** [batch, heads, n, keys]: every row sums to 1 over its visible keys (all 0 when none is visible). */
  weights?: Tensor;
  /** [batch, kvHeads, past + m, d]: past ++ K (only with pastKey). */
  presentKey?: Tensor;
  /** [batch, kvHeads, past + m, d_v]: past ++ V (only with pastValue). */
  presentValue?: Tensor;
  /** With `trace: true`. */
  steps?: BatchedStep[];
}

/** What a call's options make present: the cache with `pastKey` and `pastValue`. */
export type Present<O> = (O extends { pastKey: TensorInput } ? { presentKey: Tensor } : {}) & (O extends { pastValue: TensorInput } ? { presentValue: Tensor } : {});

export interface BatchedOps {
  /**
   * softmax(rules(Q·Kᵀ·scale))·V per batch entry and query head; query head h reads key/value head
   * ⌊h·kvHeads/heads⌋. Q [batch, heads, n, d], K [batch, kvHeads, m, d], V [batch, kvHeads, m, d_v], or the
   * 3-D [batch, n, heads·d] layout with `heads` and `kvHeads`.
   */
  batchedAttention<O extends BatchedAttentionOptions & { weights: false; trace?: false }>(Q: TensorInput, K: TensorInput, V: TensorInput, options: O): Omit<BatchedAttentionResult, 'weights' | 'steps'> & Present<O>;
  batchedAttention<O extends BatchedAttentionOptions = {}>(Q: TensorInput, K: TensorInput, V: TensorInput, options?: O): BatchedAttentionResult & { weights: Tensor } & Present<O> & (O extends { trace: true } ? { steps: BatchedStep[] } : {});
}
