// Types of ops/pooling.js: Nadaraya-Watson regression and parametric attention pooling.
import type { AttentionLab } from '../index.js';
import type { Matrix, VectorInput } from './shared.js';

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

/** The functions of ops/pooling.js, part of {@link AttentionLab}. */
export interface PoolingOps {
  /** Nadaraya-Watson kernel regression: predictions are attention-weighted averages of yTrain. */
  nadarayaWatson(xTrain: VectorInput, yTrain: VectorInput, xQuery: VectorInput, options?: NadarayaWatsonOptions): NadarayaWatsonResult;
  /**
   * Parametric attention pooling: fits w in f(x) = Σ_j softmax_j(−((x − x_j) w)²/2) y_j by gradient descent on the
   * leave-one-out squared loss over the training set (each point predicted from the others). Needs ≥ 2 points.
   */
  fitParametricPooling(xTrain: VectorInput, yTrain: VectorInput, options?: ParametricPoolingOptions): ParametricPoolingResult;
}
