// Type declarations for attention-lab, written by hand. Shapes are given as
// rows×cols; n = number of queries, m = number of keys.

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

/** Identifier of a step of {@link AttentionLab.transformerBlock}'s trace, in computation order. */
export type TransformerStepId = 'Q' | 'K' | 'V' | 'concat' | 'attention' | 'residual1' | 'norm1' | 'hidden' | 'ffn' | 'residual2' | 'output';

/** One recorded intermediate of a traced Transformer block. */
export interface TransformerStep extends Omit<Step, 'id' | 'mask'> {
  /** Stable identifier; translate titles by it. */
  id: TransformerStepId;
}

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

/** The result of an attention call. */
export interface AttentionResult {
  /** n×d_v: row i is the weighted mix of the values for query i. */
  output: Matrix;
  /** n×m attention weights: each row sums to 1 over the visible keys (all 0 for a fully masked row). */
  weights: Matrix;
  /** The intermediates, in order, when `trace: true` was passed. */
  steps?: Step[];
}

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
  /** d_q×h: projects queries into the hidden space. */
  Wq: MatrixInput;
  /** d_k×h: projects keys into the hidden space. */
  Wk: MatrixInput;
  /** h weights of the output layer. */
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
  forward(X: MatrixInput, options?: { mask?: Mask; trace?: false }): { output: Matrix; concat: Matrix };
  forward(X: MatrixInput, options: { mask?: Mask; trace: true }): MultiHeadResult;
  /** Frees the packed weights now (otherwise they are freed when the layer is garbage-collected). Idempotent. */
  dispose(): void;
}

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

/** Kernels for Nadaraya-Watson regression. `constant` gives plain average pooling. */
export type KernelName = 'gaussian' | 'boxcar' | 'epanechnikov' | 'constant';

/** Options of {@link AttentionLab.nadarayaWatson}. */
export interface NadarayaWatsonOptions {
  /** Default `'gaussian'`. */
  kernel?: KernelName;
  /** The kernel width h > 0 (u = (x − x_i)/h). Default 1. */
  bandwidth?: number;
}

/** The result of {@link AttentionLab.nadarayaWatson}. */
export interface NadarayaWatsonResult {
  /** One prediction per query point. A query outside every compact kernel's window predicts 0. */
  predictions: Float32Array;
  /** n_query×n_train attention weights (rows sum to 1, or are all 0 when no training point is in the window). */
  weights: Matrix;
}

/** Options of {@link AttentionLab.fitParametricPooling}. */
export interface ParametricPoolingOptions {
  /** The starting w. Default 1. */
  w?: number;
  /** The gradient-descent step size, ≥ 0. Default 0.5. */
  learningRate?: number;
  /** Number of full-batch steps, an integer ≥ 0. Default 5. */
  epochs?: number;
}

/** The result of {@link AttentionLab.fitParametricPooling}. */
export interface ParametricPoolingResult {
  /** The fitted w. */
  w: number;
  /** 1/|w|: pass it to {@link AttentionLab.nadarayaWatson} (Gaussian kernel) to predict with the fitted model. Infinity when w = 0: the kernel is flat, which is `kernel: 'constant'` (plain average). */
  bandwidth: number;
  /** The leave-one-out loss ½ Σ_i (f_{−i}(x_i) − y_i)² before each step (one per epoch). */
  losses: Float32Array;
}

/** Options of {@link AttentionLab.positionalEncoding} and {@link AttentionLab.addPositionalEncoding}. */
export interface PositionalEncodingOptions {
  /** The wavelength scale: column pair j has frequency base^(−2j/d). A positive number; default 10000. */
  base?: number;
}

/** The loaded library. Every function validates its input and throws {@link AttentionError} on bad input. */
export interface AttentionLab {
  /** True when the SIMD128 build is in use. */
  readonly simd: boolean;
  /** The most WASM memory the module may use, in bytes; larger requests throw {@link AttentionRangeError}. */
  readonly memoryLimit: number;
  /** Bytes of WebAssembly memory the module holds now (grows on demand up to {@link memoryLimit}, never shrinks). */
  readonly heapBytes: number;
  /** A·B for A of n×k and B of k×m. */
  matmul(A: MatrixInput, B: MatrixInput): Matrix;
  /** Row-wise softmax over the visible entries of S (masked entries 0, fully masked rows all 0). */
  softmax(S: MatrixInput, options?: { mask?: Mask }): Matrix;
  /** The fused fast path: output only, no n×m matrix stored (see {@link ScaledDotProductOptions.weights}). */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: ScaledDotProductOptions & { weights: false; trace?: false }): { output: Matrix };
  /** softmax(QKᵀ·scale)V for Q n×d_k, K m×d_k, V m×d_v (cross-attention when n ≠ m). */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: ScaledDotProductOptions): AttentionResult;
  /** softmax(w_vᵀ tanh(q_i W_q + k_j W_k))V; query and key widths may differ. */
  additiveAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: AdditiveOptions): AttentionResult;
  /** Q, K, V = XW_Q, XW_K, XW_V, then scaled dot-product attention of X with itself. */
  selfAttention(X: MatrixInput, options: SelfAttentionOptions): AttentionResult;
  /** h heads over column blocks of XW_Q, XW_K, XW_V, concatenated and mixed by W_O. */
  multiHeadAttention(X: MatrixInput, options: MultiHeadOptions): MultiHeadResult;
  /** Packs a multi-head layer's weights once, for repeated fast forward passes. */
  createMultiHeadAttention(options: MultiHeadLayerOptions): MultiHeadLayer;
  /** Sliding-window attention of a sequence with itself: O(n·window·d) time, no n×n memory. */
  localAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: LocalAttentionOptions): VariantResult;
  /** Kernelised linear attention with φ(x) = elu(x) + 1: O(n·d·d_v) time, O(d·d_v) memory; an approximation of softmax attention. */
  linearAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: LinearAttentionOptions): VariantResult;
  /** Linformer: keys and values projected to p rows by E and F, then scaled dot-product attention: O(n·p·d). */
  linformerAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: LinformerAttentionOptions): VariantResult;
  /** Nadaraya-Watson kernel regression: predictions are attention-weighted averages of yTrain. */
  nadarayaWatson(xTrain: VectorInput, yTrain: VectorInput, xQuery: VectorInput, options?: NadarayaWatsonOptions): NadarayaWatsonResult;
  /**
   * The Transformer encoder block (post-norm, as in "Attention Is All You Need"):
   * Y = LayerNorm(X + MultiHead(X)), Z = LayerNorm(Y + ReLU(YW_1 + b_1)W_2 + b_2).
   */
  transformerBlock(X: MatrixInput, options: TransformerBlockOptions): TransformerBlockResult;
  /**
   * Parametric attention pooling: fits w in f(x) = Σ_j softmax_j(−((x − x_j) w)²/2) y_j by gradient descent on the
   * leave-one-out squared loss over the training set (each point predicted from the others). Needs ≥ 2 points.
   */
  fitParametricPooling(xTrain: VectorInput, yTrain: VectorInput, options?: ParametricPoolingOptions): ParametricPoolingResult;
  /**
   * Sinusoidal positional encoding, n×d: P[i][2j] = sin(i / base^(2j/d)), P[i][2j+1] = cos(i / base^(2j/d)).
   * Row i depends only on the position i; for an even d, P_i·P_j depends only on i − j. n = 0 or d = 0 gives an empty matrix.
   */
  positionalEncoding(n: number, d: number, options?: PositionalEncodingOptions): Matrix;
  /** X + P: each row of X (n×d) plus the positional encoding of its position. */
  addPositionalEncoding(X: MatrixInput, options?: PositionalEncodingOptions): Matrix;
  /** Frees the module's reusable workspace (the library stays usable). */
  releaseMemory(): void;
}

/** Options of {@link init}. */
export interface InitOptions {
  /** `false` forces the scalar build; `true` requires SIMD (and throws without it). Default: SIMD where supported. */
  simd?: boolean;
  /** Where to fetch the .wasm from (overrides the file next to the module). */
  wasmUrl?: string | URL;
  /** The .wasm bytes themselves (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten-style resolver: given the .wasm file name, return its URL. */
  locateFile?: (path: string, prefix: string) => string;
}

/** Load the library: instantiate the SIMD or scalar WebAssembly build. */
export function init(options?: InitOptions): Promise<AttentionLab>;

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
  | 'INTERNAL';

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
