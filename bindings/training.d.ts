// Types of the training build ('attention-lab/training'): the inference API and its types, plus
// what only this build has (the backward passes, the training tasks, trainable Transformers, the reader).
import type { AttentionLab, InitOptions } from './index.js';
import type { BackwardOps } from './types/backward.js';
import type { CheckpointOps } from './types/checkpoints.js';
import type { ReaderOps } from './reader/reader.js';
import type { TaskOps } from './types/tasks.js';
import type { TrainingOps } from './types/training.js';

export * from './index.js';
export type { AttendOptions, AttendResult } from './types/training.js';
export type { MlmBatchOptions } from './types/tasks.js';
export type { LoadReaderOptions, Reader, ReaderAttendOptions, ReaderAttendResult, ReaderFacts, ReaderHead, ReaderLanguage, ReaderModelName, ReaderPrediction } from './reader/reader.js';

/** The library of the training build: everything {@link AttentionLab} has, and training. */
export interface TrainingLab extends AttentionLab, BackwardOps, TrainingOps, TaskOps, CheckpointOps, ReaderOps {
  readonly training: true;
  /** The training build has no FMA variant (it stays bit-identical across engines). */
  readonly fma: false;
  readonly build: 'simd' | 'scalar';
}

/** Load the training build: instantiate its SIMD or scalar WebAssembly module. */
export function init(options?: InitOptions): Promise<TrainingLab>;
