// Types of ops/attention.js: matmul, softmax, scaled dot-product, additive and self-attention.
import type { AttentionLab } from '../index.js';
import type { Mask, Matrix, MatrixInput, Step, VectorInput } from './shared.js';

/** The result of an attention call. */
export interface AttentionResult {
  /** n×d_v: row i is the weighted mix of the values for query i. */
  output: Matrix;
  /** n×m attention weights: each row sums to 1 over the visible keys (all 0 for a fully masked row). */
  weights: Matrix;
  /** The intermediates, in order, when `trace: true` was passed. */
  steps?: Step[];
}

/** An attention result asked for with `trace: true`: its steps are there. */
export type TracedAttentionResult = AttentionResult & { steps: Step[] };

/** Options of {@link AttentionLab.scaledDotProductAttention}. */
export interface ScaledDotProductOptions {
  /** Which keys each query may attend to. Default: none. */
  mask?: Mask;
  /** Multiplier of QKᵀ. Default 1/√d_k; `scale: 1` is plain (unscaled) dot-product attention. */
  scale?: number;
  /** Record the intermediates (`scores`, `scaled`, `masked` when masked, `weights`, `output`). Default false. */
  trace?: boolean;
  /**
   * `false` skips the weights: the fast fused path (FlashAttention-style online softmax, block by block)
   * returns only `{ output }` and never stores the n×m matrix, so long sequences fit in memory.
   * Cannot be combined with `trace: true`. Default true.
   */
  weights?: boolean;
}

/** Options of {@link AttentionLab.additiveAttention}. */
export interface AdditiveOptions {
  /** d_q×d_h: projects queries into the hidden space. */
  Wq: MatrixInput;
  /** d_k×d_h: projects keys into the hidden space. */
  Wk: MatrixInput;
  /** d_h weights of the output layer (d_h hidden units). */
  wv: VectorInput;
  /** Which keys each query may attend to. Default: none. */
  mask?: Mask;
  /** Record the intermediates (`scores`, `masked` when masked, `weights`, `output`). Default false. */
  trace?: boolean;
}

/** Options of {@link AttentionLab.selfAttention}. */
export interface SelfAttentionOptions {
  /** d_model×d_k query projection. */
  Wq: MatrixInput;
  /** d_model×d_k key projection. */
  Wk: MatrixInput;
  /** d_model×d_v value projection. */
  Wv: MatrixInput;
  /** Which keys each query may attend to. Default: none. */
  mask?: Mask;
  /** Record `Q`, `K`, `V`, then the attention steps. Default false. */
  trace?: boolean;
}

/** The functions of ops/attention.js, part of {@link AttentionLab}. */
export interface AttentionOps {
  /** A·B for A of n×k and B of k×m. */
  matmul(A: MatrixInput, B: MatrixInput): Matrix;
  /** Row-wise softmax over the visible entries of S (masked entries 0, fully masked rows all 0). */
  softmax(S: MatrixInput, options?: { mask?: Mask }): Matrix;
  /** The fused fast path: output only, no n×m matrix stored (see {@link ScaledDotProductOptions.weights}). */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: ScaledDotProductOptions & { weights: false; trace?: false }): { output: Matrix };
  /** softmax(QKᵀ·scale)V for Q n×d_k, K m×d_k, V m×d_v (cross-attention when n ≠ m); with `trace: true`, its steps. */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: ScaledDotProductOptions & { trace: true }): TracedAttentionResult;
  /** softmax(QKᵀ·scale)V for Q n×d_k, K m×d_k, V m×d_v (cross-attention when n ≠ m). */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: ScaledDotProductOptions): AttentionResult;
  /** softmax(tanh(q_i W_q + k_j W_k) w_v)V (row vectors), traced: its steps. */
  additiveAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: AdditiveOptions & { trace: true }): TracedAttentionResult;
  /** softmax(tanh(q_i W_q + k_j W_k) w_v)V (row vectors); query and key widths may differ. */
  additiveAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: AdditiveOptions): AttentionResult;
  /** Self-attention of X, traced: `Q`, `K`, `V` and the attention steps. */
  selfAttention(X: MatrixInput, options: SelfAttentionOptions & { trace: true }): TracedAttentionResult;
  /** Q, K, V = XW_Q, XW_K, XW_V, then scaled dot-product attention of X with itself. */
  selfAttention(X: MatrixInput, options: SelfAttentionOptions): AttentionResult;
}
