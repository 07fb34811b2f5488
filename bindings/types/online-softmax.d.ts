// Types of ops/online-softmax.js: the fused path's online softmax, traced for one query row.
import type { AttentionLab } from '../index.js';
import type { Mask, MatrixInput } from './shared.js';

/** Options of {@link AttentionLab.onlineSoftmax}. */
export interface OnlineSoftmaxOptions {
  /** The query row traced, 0 ≤ row < n. Default 0. */
  row?: number;
  /** Keys per block (≥ 1; a block of m keys or more is a single block). Default 2. */
  block?: number;
  /** Which keys the row may attend to, as for scaledDotProductAttention. Default none. */
  mask?: Mask;
  /** Multiplier of q·k. Default 1/√d_k. */
  scale?: number;
}

/** The state after one block of keys. */
export interface OnlineSoftmaxBlock {
  /** Index of the block's first key. */
  first: number;
  /** One past its last key: the block is keys [first, end). */
  end: number;
  /** The largest score in the block (−Infinity when the mask hides all of it). */
  blockMax: number;
  /** The running max m after the block (−Infinity before any visible key). */
  max: number;
  /** e^(m_old − m_new), the factor the running sum and the accumulator were multiplied by (1 when m did not move, 0 on the first visible block). */
  rescale: number;
  /** The running sum ℓ = Σ e^(s_j − m) over the keys so far. */
  sum: number;
  /** d_v: the unnormalised output Σ e^(s_j − m) v_j over the keys so far. */
  accumulator: Float32Array;
  /** d_v: accumulator / ℓ, the output if the keys ended here (zeros while ℓ = 0). */
  output: Float32Array;
}

/** The result of {@link AttentionLab.onlineSoftmax}. */
export interface OnlineSoftmaxResult {
  /** The query row traced. */
  row: number;
  /** Keys per block, as asked. */
  block: number;
  /** m: the row's scores s_j = scale·q·k_j (−Infinity where masked). */
  scores: Float32Array;
  /** One entry per block of keys, in order: ceil(m / block) of them. */
  blocks: OnlineSoftmaxBlock[];
  /** d_v: the final output row, equal to scaledDotProductAttention's row to float32 rounding. */
  output: Float32Array;
  /** m: the weights e^(s_j − m) / ℓ with the final m and ℓ. */
  weights: Float32Array;
  /** The final running max m (−Infinity when no key is visible). */
  max: number;
  /** The final running sum ℓ, equal to Σ_j e^(s_j − m) (0 when no key is visible). */
  sum: number;
  /** Σ_j weights_j: 1, or 0 when no key is visible. */
  weightSum: number;
}

/** The functions of ops/online-softmax.js, part of {@link AttentionLab}. */
export interface OnlineSoftmaxOps {
  /** One query row of softmax(QKᵀ·scale)V computed as the fused path does, block by block, with every step kept. Throws AttentionError on bad shapes, a row out of range or a bad block size. */
  onlineSoftmax(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: OnlineSoftmaxOptions): OnlineSoftmaxResult;
}
