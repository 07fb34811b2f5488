// Types every operation family shares: matrices, masks, trace steps, errors.
// Shapes are given as rows×cols; n = number of queries, m = number of keys.

/** A dense row-major float32 matrix. `data.length` must equal `rows * cols`. */
export interface Matrix {
  /** Number of rows (a non-negative integer). */
  rows: number;
  /** Number of columns (a non-negative integer). */
  cols: number;
  /** The entries, row by row: entry (i, j) is `data[i * cols + j]`. */
  data: Float32Array;
}

/** A matrix argument: a {@link Matrix}, or nested arrays of rows such as `[[1, 0], [0, 1]]`. */
export type MatrixInput = Matrix | { rows: number; cols: number; data: Float32Array | ArrayLike<number> } | ReadonlyArray<ReadonlyArray<number> | Float32Array>;

/** A vector argument: a Float32Array or an array of numbers. */
export type VectorInput = Float32Array | ReadonlyArray<number>;

/**
 * Which keys each query may attend to.
 * - `'none'` (or omitted): every key.
 * - `'causal'`: key j is visible to query i iff j ≤ i.
 * - `{ validLens }`: query i sees keys 0 … validLens[i]−1 (one integer in [0, m] per query row;
 *   a single number applies to every row).
 * - a 0/1 matrix of n×m (1 = may attend).
 * Masked weights are exactly 0. A row with no visible key gets all-zero weights and an all-zero output row.
 */
export type Mask = 'none' | 'causal' | { validLens: number | ReadonlyArray<number> | Int32Array } | MatrixInput;

/** Identifier of a trace step, in computation order. */
export type StepId = 'Q' | 'K' | 'V' | 'scores' | 'scaled' | 'masked' | 'weights' | 'output' | 'concat';

/** One recorded intermediate of a traced call. */
export interface Step {
  /** Stable identifier; translate titles by it. */
  id: StepId;
  /** A short English label, e.g. "Scaled scores". */
  title: string;
  /** The formula that produced this matrix, in TeX. */
  formula: string;
  /** The intermediate itself. In the `masked` step, masked entries hold −3.4028235e38 (float32's most negative finite value, standing for −∞). */
  matrix: Matrix;
  /** Only on the `masked` step: n×m visibility bits, row-major, 1 = may attend, 0 = masked. */
  mask?: Uint8Array;
}

/** Error codes carried by {@link AttentionError.code}. */
export type AttentionErrorCode =
  | 'SHAPE_MISMATCH'
  | 'INVALID_MATRIX'
  | 'INVALID_ARGUMENT'
  | 'INVALID_MASK'
  | 'NON_FINITE'
  | 'DISPOSED'
  | 'OVERFLOW'
  | 'OUT_OF_MEMORY'
  | 'INTERNAL'
  | 'UNAVAILABLE';

/** Thrown for bad input; the message names the function, the argument and the sizes. */
export class AttentionError extends Error {
  constructor(code: AttentionErrorCode, message: string);
  /** Machine-readable reason. */
  readonly code: AttentionErrorCode;
  /** Every code, by name. */
  static readonly codes: Readonly<Record<AttentionErrorCode, AttentionErrorCode>>;
}

/** Thrown (before anything is allocated) when a call would not fit in the module's memory. */
export class AttentionRangeError extends RangeError {
  constructor(message: string);
  /** Always `'OUT_OF_MEMORY'`. */
  readonly code: 'OUT_OF_MEMORY';
}
