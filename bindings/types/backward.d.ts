// Types of ops/backward.js: the gradients of scaled dot-product attention.
import type { Mask, Matrix, MatrixInput } from './shared.js';

/** Identifier of a backward trace step, in computation order. */
export type BackwardStepId = 'dO' | 'dV' | 'dP' | 'dS' | 'dQ' | 'dK';

/** One intermediate of a traced backward call (the forward trace's {@link Step} shape). */
export interface BackwardStep {
  /**
   * `dO` (the given ∂L/∂O, n×d_v), `dV` = Pᵀ dO (m×d_v), `dP` = dO Vᵀ (n×m),
   * `dS` = P ∘ (dP − rowsum(P ∘ dP)) (n×m; masked entries 0, each row sums to 0),
   * `dQ` = scale · dS K (n×d_k), `dK` = scale · dSᵀ Q (m×d_k).
   */
  id: BackwardStepId;
  /** A short English label, e.g. "Score gradient". */
  title: string;
  /** The formula that produced this matrix, in TeX. */
  formula: string;
  matrix: Matrix;
}

/** Options of {@link BackwardOps.attentionBackward}. */
export interface AttentionBackwardOptions {
  /** The forward's mask (masked weights are 0, so their gradients are too). Default `'none'`. */
  mask?: Mask;
  /** The forward's multiplier of QKᵀ. Default 1/√d_k. */
  scale?: number;
  /** Return the intermediates as `steps` (uses the path that keeps P, dP and dS: n×m memory). Default false. */
  trace?: boolean;
  /**
   * `true` (the default without `trace`): FlashAttention-2 style, the weights recomputed block by block from
   * each row's log-sum-exp, no n×m matrix. `false`: the forward's weights P kept. `trace: true` with
   * `fused: true` throws.
   */
  fused?: boolean;
}

/** The gradients of L with respect to the forward's inputs, for dO = ∂L/∂O. */
export interface AttentionBackwardResult {
  /** ∂L/∂Q, n×d_k. A fully masked query row gets an all-zero row. */
  dQ: Matrix;
  /** ∂L/∂K, m×d_k. A key no query sees gets an all-zero row. */
  dK: Matrix;
  /** ∂L/∂V, m×d_v. */
  dV: Matrix;
  /** With `trace: true`: dO, dV, dP, dS, dQ, dK. */
  steps?: BackwardStep[];
}

export interface BackwardOps {
  /**
   * The backward pass of O = softmax(mask(QKᵀ · scale)) V for Q n×d_k, K m×d_k, V m×d_v and the upstream
   * gradient dO (n×d_v): dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(P ∘ dP)), dQ = scale · dS K,
   * dK = scale · dSᵀ Q. The forward is recomputed inside the call.
   * @throws AttentionError SHAPE_MISMATCH when dO is not n×d_v (or Q, K, V disagree), INVALID_MASK,
   *   NON_FINITE for a NaN or infinite entry, OVERFLOW when the scores or a result would leave float32's range.
   */
  attentionBackward(Q: MatrixInput, K: MatrixInput, V: MatrixInput, dO: MatrixInput, options: AttentionBackwardOptions & { trace: true }): AttentionBackwardResult & { steps: BackwardStep[] };
  attentionBackward(Q: MatrixInput, K: MatrixInput, V: MatrixInput, dO: MatrixInput, options?: AttentionBackwardOptions): AttentionBackwardResult;
}
