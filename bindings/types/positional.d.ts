// Types of ops/positional.js: sinusoidal positional encoding.
import type { AttentionLab } from '../index.js';
import type { Matrix, MatrixInput } from './shared.js';

/** Options of {@link AttentionLab.positionalEncoding} and {@link AttentionLab.addPositionalEncoding}. */
export interface PositionalEncodingOptions {
  /** The wavelength scale: column pair j has frequency base^(−2j/d). A positive number; default 10000. */
  base?: number;
}

/** Options of {@link AttentionLab.addPositionalEncoding}. */
export interface AddPositionalEncodingOptions extends PositionalEncodingOptions {
  /**
   * The factor X is multiplied by before P is added, a positive finite number; default 1.
   * Dive into Deep Learning (10.7) uses `Math.sqrt(d)`: embeddings start with entries small next to
   * P's, which lie in [−1, 1], and the scaling makes the two of similar size.
   */
  scale?: number;
}

/** The functions of ops/positional.js, part of {@link AttentionLab}. */
export interface PositionalOps {
  /**
   * Sinusoidal positional encoding, n×d: P[i][2j] = sin(i / base^(2j/d)), P[i][2j+1] = cos(i / base^(2j/d)).
   * Row i depends only on the position i; for an even d, P_i·P_j depends only on i − j. n = 0 or d = 0 gives an empty matrix.
   */
  positionalEncoding(n: number, d: number, options?: PositionalEncodingOptions): Matrix;
  /**
   * X·scale + P: each row of X (n×d), times `scale`, plus the positional encoding of its position.
   * Computed in double, rounded once to float32. Throws INVALID_ARGUMENT for a scale that is not a
   * positive number (NON_FINITE for NaN or ±Infinity), OVERFLOW when X·scale leaves float32's range.
   */
  addPositionalEncoding(X: MatrixInput, options?: AddPositionalEncodingOptions): Matrix;
}
