// Types of ops/positional.js: sinusoidal positional encoding.
import type { AttentionLab } from '../index.js';
import type { Matrix, MatrixInput } from './shared.js';

/** Options of {@link AttentionLab.positionalEncoding} and {@link AttentionLab.addPositionalEncoding}. */
export interface PositionalEncodingOptions {
  /** The wavelength scale: column pair j has frequency base^(−2j/d). A positive number; default 10000. */
  base?: number;
}

/** The functions of ops/positional.js, part of {@link AttentionLab}. */
export interface PositionalOps {
  /**
   * Sinusoidal positional encoding, n×d: P[i][2j] = sin(i / base^(2j/d)), P[i][2j+1] = cos(i / base^(2j/d)).
   * Row i depends only on the position i; for an even d, P_i·P_j depends only on i − j. n = 0 or d = 0 gives an empty matrix.
   */
  positionalEncoding(n: number, d: number, options?: PositionalEncodingOptions): Matrix;
  /** X + P: each row of X (n×d) plus the positional encoding of its position. */
  addPositionalEncoding(X: MatrixInput, options?: PositionalEncodingOptions): Matrix;
}
