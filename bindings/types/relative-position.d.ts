// Types of ops/relative-position.js: rotary position embedding (RoPE) and ALiBi.
import type { AttentionLab } from '../index.js';
import type { Tensor, TensorInput } from './batched.js';
import type { Matrix, MatrixInput } from './shared.js';

/** Options of {@link AttentionLab.rotaryAngles}. */
export interface RotaryAnglesOptions {
  /** θ_i = base^(−2i/d): pair i turns by position·θ_i. A positive number; default 10000 (Llama 3 uses 500000). */
  base?: number;
  /** The position of row 0 (a KV cache's past length when decoding): an integer from 0; default 0. */
  offset?: number;
}

/** Options of {@link AttentionLab.rotaryEmbedding}. */
export interface RotaryEmbeddingOptions extends RotaryAnglesOptions {
  /**
   * Which coordinates form pair i: `false` (default) pairs i with i + d/2, the rotate-half convention of
   * HF Llama and ONNX RotaryEmbedding's default; `true` pairs 2i with 2i + 1, as RoFormer and GPT-J do.
   */
  interleaved?: boolean;
  /**
   * Heads side by side in the last axis: required for a 3-D tensor [batch, n, heads·d]; for a matrix n × (heads·d)
   * it defaults to 1; for a 4-D tensor it must equal the second size if given.
   */
  heads?: number;
}

/** Options of {@link AttentionLab.alibiBias}. */
export interface AlibiBiasOptions {
  /** Attention heads H (a positive integer): head h gets slope m_h of {@link AttentionLab.alibiSlopes}(H). Required. */
  heads: number;
  /** Query rows n (an integer from 0). Required. */
  queries: number;
  /** Keys m (an integer from 0); default `queries`. */
  keys?: number;
  /** Query i sits at position i + offset among the keys (the past length when decoding with a cache); an integer, default 0. */
  offset?: number;
  /** `true`: −m_h·|i + offset − j| for every key (bidirectional use, no key hidden). Default false. */
  symmetric?: boolean;
}

/** The functions of ops/relative-position.js, part of {@link AttentionLab}. */
export interface RelativePositionOps {
  /**
   * Rotary position embedding of queries or keys: row r (position offset + r) of every head has pair i turned by
   * (offset + r)·θ_i, θ_i = base^(−2i/d); computed in double, rounded once to float32. Then q_rot(i)·k_rot(j)
   * depends only on q, k and i − j. X is a matrix n × d (or n × heads·d with `heads`), a 4-D tensor
   * [batch, heads, n, d] or a 3-D tensor [batch, n, heads·d] with `heads`; the result is of the same kind and shape.
   * Throws INVALID_ARGUMENT for an odd d, a base that is not positive, a negative or non-integer offset, a 3-D
   * tensor without `heads`; SHAPE_MISMATCH when the width is not a multiple of `heads` or `heads` disagrees with a
   * 4-D shape; OVERFLOW when an entry near float32's limit grows past it.
   */
  rotaryEmbedding(X: MatrixInput, options?: RotaryEmbeddingOptions): Matrix;
  rotaryEmbedding(X: TensorInput, options?: RotaryEmbeddingOptions): Tensor;
  /**
   * The angles RoPE turns by: n × d/2, entry [r][i] = (offset + r)·θ_i with θ_i = base^(−2i/d) (radians, not
   * reduced mod 2π). d even (INVALID_ARGUMENT otherwise).
   */
  rotaryAngles(n: number, d: number, options?: RotaryAnglesOptions): Matrix;
  /**
   * ALiBi's per-head slopes (Press et al.): for a power of two H, m_h = 2^(−8h/H), h = 1 … H (8 heads: 1/2 … 1/256);
   * otherwise the slopes of the closest lower power of two n followed by every other slope of 2n, as in the
   * paper's reference code. Computed in double, rounded to float32. Throws INVALID_ARGUMENT unless heads is a positive integer.
   */
  alibiSlopes(heads: number): Float32Array;
  /**
   * ALiBi's bias, [1, heads, queries, keys]: −m_h·(i + offset − j) for keys j <= i + offset; the keys after it
   * (j > i + offset) are −Infinity (hidden, as in the paper's causal setting) unless `symmetric`, which gives
   * −m_h·|i + offset − j| everywhere. Pass it as `bias` to {@link AttentionLab.batchedAttention}.
   */
  alibiBias(options: AlibiBiasOptions): Tensor;
}
