// Types of ops/multi-head.js: multi-head attention, one-shot or as a packed layer.
import type { AttentionLab } from '../index.js';
import type { Mask, Matrix, MatrixInput, Step } from './shared.js';
import type { Tensor } from './batched.js';

/** Options of {@link AttentionLab.multiHeadAttention}. */
export interface MultiHeadOptions {
  /** Number of heads h; must divide Wq.cols (h·d_k) and Wv.cols (h·d_v). */
  heads: number;
  /** d_model×(h·d_k): the query projections of all heads side by side. */
  Wq: MatrixInput;
  /** d_model×(h·d_k): the key projections of all heads. */
  Wk: MatrixInput;
  /** d_model×(h·d_v): the value projections of all heads. */
  Wv: MatrixInput;
  /** (h·d_v)×d_out: mixes the concatenated heads. */
  Wo: MatrixInput;
  /** Which keys each query may attend to (applies to every head). Default: none. */
  mask?: Mask;
  /** Record `Q`, `K`, `V`, `concat`, `output`, and each head's own steps. Default false. */
  trace?: boolean;
}

/** One head of a multi-head result. */
export interface HeadResult {
  /** n×d_v: this head's output (its block of `concat`). */
  output: Matrix;
  /** n×n: this head's attention weights. */
  weights: Matrix;
  /** This head's `Q`, `K`, `V` slices and attention steps, when traced. */
  steps?: Step[];
}

/** The result of {@link AttentionLab.multiHeadAttention}. */
export interface MultiHeadResult {
  /** n×d_out: concat · W_O. */
  output: Matrix;
  /** n×(h·d_v): the heads' outputs side by side. */
  concat: Matrix;
  /** One entry per head, in order. */
  heads: HeadResult[];
  /** `Q`, `K`, `V`, `concat`, `output`, when traced. */
  steps?: Step[];
}

/** A multi-head result asked for with `trace: true`: its steps, and each head's, are there. */
export type TracedMultiHeadResult = Omit<MultiHeadResult, 'steps' | 'heads'> & { steps: Step[]; heads: (HeadResult & { steps: Step[] })[] };

/** Options of {@link AttentionLab.createMultiHeadAttention}: the layer's weights, packed once. */
export interface MultiHeadLayerOptions {
  /** Number of heads h; must divide Wq.cols and Wv.cols. */
  heads: number;
  /** d_model×(h·d_k). */
  Wq: MatrixInput;
  /** d_model×(h·d_k). */
  Wk: MatrixInput;
  /** d_model×(h·d_v). */
  Wv: MatrixInput;
  /** (h·d_v)×d_out. */
  Wo: MatrixInput;
}

/** Options of a batch through {@link MultiHeadLayer.forward}. */
export interface MultiHeadBatchOptions {
  /** 'none' (default) or 'causal'; the padding goes in kvLengths. */
  mask?: 'none' | 'causal';
  /** The real rows of each sequence (the rest are padding): one per sequence, or one for all. Default: all n. */
  kvLengths?: number | ArrayLike<number>;
  /** The same as kvLengths (the word the matrix functions' masks use); give one of the two. */
  validLens?: number | ArrayLike<number>;
}

/** A multi-head attention layer with packed weights, from {@link AttentionLab.createMultiHeadAttention}. */
export interface MultiHeadLayer {
  /** Number of heads. */
  readonly heads: number;
  /** Width of the input rows (Wq.rows). */
  readonly dModel: number;
  /** Width of the output rows (Wo.cols). */
  readonly dOut: number;
  /**
   * Self-attention of X (n×d_model) through the layer. Untraced: the fast path, returning the output and the
   * concatenated heads (per-head weights are never formed). With `trace: true`: the full {@link MultiHeadResult}.
   * @throws AttentionError with code `DISPOSED` after {@link MultiHeadLayer.dispose}.
   */
  /**
   * A batch of padded sequences, X [batch, n, d_model] → output [batch, n, d_out] and concat [batch, n, h·d_v]:
   * each sequence as its own n×d_model call (the same numbers as a loop). `kvLengths` (alias `validLens`,
   * the matrix functions' word): one length per sequence (or one for all); the keys after it are padding,
   * hidden from every query. `mask`: 'none' or 'causal'. Not traced.
   */
  forward(X: { shape: number[]; data: Float32Array | ArrayLike<number> } | number[][][], options?: MultiHeadBatchOptions): { output: Tensor; concat: Tensor };
  forward(X: MatrixInput, options?: { mask?: Mask; trace?: false }): { output: Matrix; concat: Matrix };
  forward(X: MatrixInput, options: { mask?: Mask; trace: true }): TracedMultiHeadResult;
  /** Frees the packed weights now (otherwise they are freed when the layer is garbage-collected). Idempotent. */
  dispose(): void;
}

/** The functions of ops/multi-head.js, part of {@link AttentionLab}. */
export interface MultiHeadOps {
  /** h heads over column blocks of XW_Q, XW_K, XW_V, concatenated and mixed by W_O. */
  multiHeadAttention(X: MatrixInput, options: MultiHeadOptions & { trace: true }): TracedMultiHeadResult;
  multiHeadAttention(X: MatrixInput, options: MultiHeadOptions): MultiHeadResult;
  /** Packs a multi-head layer's weights once, for repeated fast forward passes. */
  createMultiHeadAttention(options: MultiHeadLayerOptions): MultiHeadLayer;
}
