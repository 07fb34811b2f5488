// Types of train/trained.js and train/checkpoint-recipes.js: the shipped trained checkpoints.
import type { CreateTransformerOptions, LearningRateSchedule, SavePrecision, TransformerModel } from './training.js';

/** The tasks a checkpoint ships for. */
export type CheckpointName = 'dates' | 'reverse' | 'grammar' | 'repeat';

/** How a shipped checkpoint was made (scripts/make-checkpoints.mjs) and what it scores. */
export interface CheckpointRecipe {
  /** The createTransformer seed. */
  readonly seed: number;
  /** The model's sizes (createTransformer options beside the task). */
  readonly model: Readonly<Omit<CreateTransformerOptions, 'task' | 'seed' | 'vocabSize' | 'maxLength' | 'kind'>>;
  /** The schedule (lab.learningRateAt), batch size and clipping norm of every step; exactly `steps` steps. */
  readonly training: Readonly<LearningRateSchedule & { batchSize: number; clipNorm: number }>;
  /** The precision of the shipped image: 'int8'. */
  readonly precision: SavePrecision;
  /**
   * The checkpoint's score on 512 validation examples (8 seeded batches of 64): greedy exact match
   * for dates and reverse, teacher-forced exact match for grammar (its determined words) and repeat.
   */
  readonly validation: number;
}

/** Where {@link CheckpointOps.loadTrained} reads a checkpoint from instead of the package. */
export interface LoadTrainedOptions {
  /** The checkpoint's bytes (the contents of its .bin file), read by the caller. */
  bytes?: Uint8Array;
  /** Its URL (http(s), blob, data; file in Node; relative to the page or worker): a CDN or a copy served beside the page. At most 16 MiB, within 60 s. */
  url?: string | URL;
}

export interface CheckpointOps {
  /** Each shipped checkpoint's recipe and validation score, by task. */
  readonly checkpoints: Readonly<Record<CheckpointName, CheckpointRecipe>>;
  /**
   * The trained model of a task, with the task attached (generate returns text). Reads
   * dist/checkpoints/<name>.bin beside the package (Node: from disk; elsewhere: fetch of
   * `new URL('../checkpoints/<name>.bin', import.meta.url)`), or options.bytes / options.url.
   * Rejects with an AttentionError (INVALID_ARGUMENT) for an unknown name, a failed fetch, bytes that
   * are not a saved model, or a model that is not one of the task.
   */
  loadTrained(name: CheckpointName, options?: LoadTrainedOptions): Promise<TransformerModel>;
}
