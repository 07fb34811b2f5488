// Types of ops/transformer.js: the Transformer encoder block.
import type { AttentionLab } from '../index.js';
import type { MultiHeadOptions } from './multi-head.js';
import type { Matrix, MatrixInput, Step, VectorInput } from './shared.js';

/** Identifier of a step of {@link AttentionLab.transformerBlock}'s trace, in computation order. */
export type TransformerStepId = 'Q' | 'K' | 'V' | 'concat' | 'attention' | 'residual1' | 'norm1' | 'hidden' | 'ffn' | 'residual2' | 'output';

/** One recorded intermediate of a traced Transformer block. */
export interface TransformerStep extends Omit<Step, 'id' | 'mask'> {
  /** Stable identifier; translate titles by it. */
  id: TransformerStepId;
}

/** Options of {@link AttentionLab.transformerBlock}: the multi-head weights plus the feed-forward network and layer norms. */
export interface TransformerBlockOptions extends MultiHeadOptions {
  /** (h·d_v)×d_model: W_O must map back to d_model for the residual connection. */
  Wo: MatrixInput;
  /** d_model×d_ff: the feed-forward network's first layer. */
  W1: MatrixInput;
  /** d_ff values. Default zeros. */
  b1?: VectorInput;
  /** d_ff×d_model: its second layer. */
  W2: MatrixInput;
  /** d_model values. Default zeros. */
  b2?: VectorInput;
  /** The first layer norm's scale (d_model values). Default ones. */
  gamma1?: VectorInput;
  /** The first layer norm's shift. Default zeros. */
  beta1?: VectorInput;
  /** The second layer norm's scale. Default ones. */
  gamma2?: VectorInput;
  /** The second layer norm's shift. Default zeros. */
  beta2?: VectorInput;
  /** Added to the variance inside each layer norm, > 0. Default 1e-5. */
  epsilon?: number;
  /** Record `Q`, `K`, `V`, `concat`, `attention`, `residual1`, `norm1`, `hidden`, `ffn`, `residual2`, `output` and each head. Default false. */
  trace?: boolean;
}

/** One head of a Transformer block, when traced. */
export interface TransformerHead {
  /** n×n attention weights. */
  weights: Matrix;
  /** n×d_v: this head's output. */
  output: Matrix;
  /** This head's slices of Q, K (n×d_k) and V (n×d_v). */
  Q: Matrix;
  K: Matrix;
  V: Matrix;
}

/** The result of {@link AttentionLab.transformerBlock}. */
export interface TransformerBlockResult {
  /** n×d_model: Z = LayerNorm(Y + FFN(Y)), Y = LayerNorm(X + MultiHead(X)). */
  output: Matrix;
  /** Each head, when traced. */
  heads?: TransformerHead[];
  /** The intermediates in order, when traced. */
  steps?: TransformerStep[];
}

/** The functions of ops/transformer.js, part of {@link AttentionLab}. */
export interface TransformerOps {
  /**
   * The Transformer encoder block (post-norm, as in "Attention Is All You Need"):
   * Y = LayerNorm(X + MultiHead(X)), Z = LayerNorm(Y + ReLU(YW_1 + b_1)W_2 + b_2).
   */
  transformerBlock(X: MatrixInput, options: TransformerBlockOptions & { trace: true }): Required<TransformerBlockResult>;
  transformerBlock(X: MatrixInput, options: TransformerBlockOptions): TransformerBlockResult;
}
