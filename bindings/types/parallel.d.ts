// Types of createWorkerPool (bindings/parallel/): one large call spread over module workers.
import type { AttentionResult, ScaledDotProductOptions } from './attention.js';
import type { MultiHeadLayerOptions, TracedMultiHeadResult } from './multi-head.js';
import type { Mask, Matrix, MatrixInput } from './shared.js';

/** Options of {@link createWorkerPool}. */
export interface WorkerPoolOptions {
  /**
   * How many workers to start (an integer from 0 to 64). Default: the cores the engine reports
   * (`navigator.hardwareConcurrency`, Node's `os.availableParallelism()`), at most 8. `0`: every
   * call runs on the calling thread.
   */
  workers?: number;
  /**
   * Below this many multiply-adds (n·m·(d_k + d_v) for attention) a call runs on the calling
   * thread, where posting the inputs would cost about what the split saves. Default 8,388,608
   * (n = m = 256 at d = 64); `0` splits every call.
   */
  smallCall?: number;
  /**
   * The bytes or URL of `lab.build`'s `.wasm`, for a page whose `init()` was given `wasmUrl`,
   * `wasmBinary` or `locateFile`. Default: the `.wasm` next to the package entry (read from disk in
   * Node.js). Bytes are copied, never detached.
   */
  wasm?: Uint8Array | ArrayBuffer | string | URL;
}

/** A packed multi-head layer whose forward pass runs over the pool's workers. */
export interface PoolMultiHeadLayer {
  readonly heads: number;
  readonly dModel: number;
  readonly dOut: number;
  /**
   * The same result as {@link MultiHeadLayer.forward}, bit for bit (a trace runs on the calling thread).
   * @throws (rejects) AttentionError as the one-thread layer does; `DISPOSED` after dispose() or the pool's close().
   */
  forward(X: MatrixInput, options?: { mask?: Mask; trace?: false }): Promise<{ output: Matrix; concat: Matrix }>;
  forward(X: MatrixInput, options: { mask?: Mask; trace: true }): Promise<TracedMultiHeadResult>;
  /** Frees the layer on the calling thread and in every worker. */
  dispose(): void;
}

/**
 * Workers that each load the same build as the lab they were made from (the .wasm bytes are read
 * once by the calling thread and sent to them). Each call checks its arguments first, with the same
 * AttentionError as the one-thread call, then splits the query rows over the workers; the results
 * are bit-identical to the lab's. Where no worker can start, every call runs on the calling thread
 * and {@link WorkerPool.reason} says why. A worker that stops mid-call rejects that call with an
 * Error naming it; the pool starts a new worker (or, if that fails, falls back to one thread).
 */
export interface WorkerPool {
  /** Workers running now; 0 when every call runs on the calling thread. */
  readonly workers: number;
  /** Why the pool runs on the calling thread only (no Worker, blocked by a Content-Security-Policy, …), or null. */
  readonly reason: string | null;
  /** The build every worker loaded: the lab's `build`. */
  readonly build: 'fma' | 'simd' | 'scalar';
  /** {@link AttentionLab.scaledDotProductAttention} over the workers (fused without weights). */
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options: ScaledDotProductOptions & { weights: false; trace?: false }): Promise<{ output: Matrix }>;
  scaledDotProductAttention(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: ScaledDotProductOptions): Promise<AttentionResult>;
  /** {@link AttentionLab.createMultiHeadAttention}, its forward pass over the workers (heads, then rows of W_O). */
  createMultiHeadAttention(options: MultiHeadLayerOptions): Promise<PoolMultiHeadLayer>;
  /** Terminates the workers and disposes the pool's layers; later calls reject with `DISPOSED`. */
  close(): void;
}
