// Types of ops/variants.js: local, linear and Linformer attention.
import type { AttentionLab } from '../index.js';
import type { Matrix, MatrixInput } from './shared.js';

/** The result of an efficient attention variant: the dense weights only when traced (and small). */
export interface VariantResult {
  /** n×d_v. */
  output: Matrix;
  /** The implied attention weights, only with `trace: true` (at most 4,194,304 entries, else an error). */
  weights?: Matrix;
}

/** Options of {@link AttentionLab.localAttention}. */
export interface LocalAttentionOptions {
  /** How far a query reaches, counting itself (≥ 1): key j is visible to query i iff |i − j| < window (causal: 0 ≤ i − j < window). */
  window: number;
  /** Only look back (decoder style). Default false. */
  causal?: boolean;
  /** Multiplier of q·k. Default 1/√d_k. */
  scale?: number;
  /** Also return the dense n×n weights (zero outside the window). Default false. */
  trace?: boolean;
}

/** Options of {@link AttentionLab.linearAttention}. */
export interface LinearAttentionOptions {
  /** Prefix sums over keys j ≤ i (needs as many keys as queries). Default false. */
  causal?: boolean;
  /** Also return the implied n×m weights φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'). Default false. */
  trace?: boolean;
}

/** Options of {@link AttentionLab.linformerAttention}. */
export interface LinformerAttentionOptions {
  /** p×m: projects the m keys to p rows (K' = EK). */
  E: MatrixInput;
  /** p×m: projects the m values to p rows (V' = FV). */
  F: MatrixInput;
  /** Multiplier of q·k'. Default 1/√d_k. */
  scale?: number;
  /** Also return the n×p weights over the projected keys. Default false. */
  trace?: boolean;
}

/** The functions of ops/variants.js, part of {@link AttentionLab}. */
export interface VariantOps {
  /** Sliding-window attention of a sequence with itself: O(n·window·d) time, no n×n memory. */
  localAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: LocalAttentionOptions): VariantResult;
  /**
   * Kernelised linear attention with φ(x) = elu(x) + 1: output_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_j φ(k_j)
   * (causal: sums over j ≤ i), with φ applied to q and k as given (no 1/√d_k). O(n·d·d_v) time, O(d·d_v) memory.
   * A different similarity, φ(q)·φ(k), not an approximation of softmax attention (only random-feature maps such
   * as Performer's approximate exp(q·k)); it drops no query–key pair, unlike localAttention: it changes the kernel.
   */
  linearAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: LinearAttentionOptions): VariantResult;
  /** Linformer: keys and values projected to p rows by E and F, then scaled dot-product attention: O(n·p·d). */
  linformerAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: LinformerAttentionOptions): VariantResult;
}
