// Type declarations for attention-lab, written by hand. Shapes are given as
// rows×cols; n = number of queries, m = number of keys. The types of each
// operation family live in types/<family>.d.ts (mirroring ops/<family>.js);
// this file re-exports the public ones and assembles AttentionLab from them.
import type { AttentionOps } from './types/attention.js';
import type { BatchedOps } from './types/batched.js';
import type { KVCacheOps } from './types/kv-cache.js';
import type { MultiHeadOps } from './types/multi-head.js';
import type { WorkerPool, WorkerPoolOptions } from './types/parallel.js';
import type { OnlineSoftmaxOps } from './types/online-softmax.js';
import type { PoolingOps } from './types/pooling.js';
import type { PositionalOps } from './types/positional.js';
import type { RelativePositionOps } from './types/relative-position.js';
import type { AttentionError, AttentionRangeError } from './types/shared.js';
import type { TransformerOps } from './types/transformer.js';
import type { VariantOps } from './types/variants.js';

export type { Matrix, MatrixInput, VectorInput, Mask, StepId, Step, AttentionErrorCode } from './types/shared.js';
export { AttentionError, AttentionRangeError } from './types/shared.js';
export type { AttentionResult, TracedAttentionResult, ScaledDotProductOptions, AdditiveOptions, SelfAttentionOptions } from './types/attention.js';
export type { MultiHeadOptions, HeadResult, MultiHeadResult, TracedMultiHeadResult, MultiHeadLayerOptions, MultiHeadLayer, MultiHeadBatchOptions } from './types/multi-head.js';
export type { TransformerStepId, TransformerStep, TransformerBlockOptions, TransformerHead, TransformerBlockResult } from './types/transformer.js';
export type { VariantResult, LocalAttentionOptions, LinearAttentionOptions, LinformerAttentionOptions } from './types/variants.js';
export type { OnlineSoftmaxOptions, OnlineSoftmaxBlock, OnlineSoftmaxResult } from './types/online-softmax.js';
export type { KernelName, NadarayaWatsonOptions, NadarayaWatsonResult, ParametricPoolingOptions, ParametricPoolingResult } from './types/pooling.js';
export type { PositionalEncodingOptions, AddPositionalEncodingOptions } from './types/positional.js';
export type { RotaryAnglesOptions, RotaryEmbeddingOptions, AlibiBiasOptions } from './types/relative-position.js';
export type { Tensor, TensorInput, BatchedStep, BatchedAttentionOptions, BatchedAttentionResult } from './types/batched.js';
export type { KVCache, KVCacheOptions, KVCacheCallOptions, KVCacheResult, KVCacheWork, KVCacheBytesOptions } from './types/kv-cache.js';
export type { TransformerModel, TransformerBatch, CreateTransformerOptions, TransformerConfig, TransformerSizes, TransformerTaskLike, TrainStepOptions, TrainStepResult, SaveOptions, SavePrecision, EvaluateResult, GenerateOptions, GenerateResult, GenerateAttention, AttentionLabels, TokenRow } from './types/training.js';
export type { BackwardStepId, BackwardStep, AttentionBackwardOptions, AttentionBackwardResult } from './types/backward.js';
export type { Task, TaskBatch, TaskBatchOptions, TaskDefaults, TaskGoal, Tasks, DatesTask, SequenceTask, RepeatTask, GrammarTask, GrammarSentence } from './types/tasks.js';
export type { WorkerPool, WorkerPoolOptions, PoolMultiHeadLayer } from './types/parallel.js';
export type { CheckpointName, CheckpointRecipe, CheckpointOps, LoadTrainedOptions } from './types/checkpoints.js';

/** The loaded library. Every function validates its input and throws {@link AttentionError} on bad input. */
export interface AttentionLab extends AttentionOps, MultiHeadOps, TransformerOps, VariantOps, OnlineSoftmaxOps, PoolingOps, PositionalOps, RelativePositionOps, BatchedOps, KVCacheOps {
  /** True when a SIMD128 build is in use (the SIMD or the FMA build). */
  readonly simd: boolean;
  /**
   * True when the FMA build is in use: relaxed-SIMD `f32x4.relaxed_madd`, which rounds a·b + c once
   * where the CPU fuses, so results differ from the SIMD build's in the last bits (both within
   * float32 rounding of the exact result). Always false for the training build.
   */
  readonly fma: boolean;
  /** The build that loaded: `'fma'`, `'simd'` or `'scalar'`. */
  readonly build: 'fma' | 'simd' | 'scalar';
  /** True for the training build (`import { init } from 'attention-lab/training'`). */
  readonly training: boolean;
  /** The most WASM memory the module may use, in bytes; larger requests throw {@link AttentionRangeError}. */
  readonly memoryLimit: number;
  /** Bytes of WebAssembly memory the module holds now (grows on demand up to {@link memoryLimit}, never shrinks). */
  readonly heapBytes: number;
  /** Frees the module's reusable workspace (the library stays usable). */
  releaseMemory(): void;
}

/** Options of {@link init}. */
export interface InitOptions {
  /** `false` forces the scalar build; `true` requires SIMD (and throws without it). Default: SIMD where supported. */
  simd?: boolean;
  /**
   * `false` keeps to the deterministic builds (SIMD or scalar: bit-identical results on every engine);
   * `true` requires the FMA build (and rejects where the engine has no relaxed SIMD, or on the training
   * entry, which has none). Default: FMA where `WebAssembly.validate` accepts relaxed SIMD and neither
   * `wasmUrl` nor `wasmBinary` is given, falling back to SIMD when its files cannot be loaded.
   */
  fma?: boolean;
  /** Where to fetch the .wasm from (overrides the file next to the module). */
  wasmUrl?: string | URL;
  /** The .wasm bytes themselves (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten-style resolver: given the .wasm file name, return its URL. */
  locateFile?: (path: string, prefix: string) => string;
}

/** Load the library: instantiate the FMA, SIMD or scalar WebAssembly build. */
export function init(options?: InitOptions): Promise<AttentionLab>;

/**
 * Start workers (module Workers in browsers, worker_threads in Node.js) that each load `lab`'s build,
 * to spread one large call over the cores. ES module entries only (not the CommonJS require()).
 * Never rejects for want of workers: it falls back to one thread ({@link WorkerPool.workers} 0, with a reason).
 * @throws (rejects) AttentionError `INVALID_ARGUMENT` for a bad or unknown option; TypeError when `lab` is not a lab from init().
 */
export function createWorkerPool(lab: AttentionLab, options?: WorkerPoolOptions): Promise<WorkerPool>;
