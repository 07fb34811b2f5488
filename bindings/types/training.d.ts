// Types of ops/training.js: a small trainable Transformer and its training batches.
import type { Matrix, MatrixInput } from './shared.js';

/** The fields of a task (lab.tasks.*) that createTransformer and the model read. */
export interface TransformerTaskLike {
  name?: string;
  kind: 'seq2seq' | 'lm' | 'mlm';
  vocabulary: readonly string[];
  pad?: number;
  bos?: number;
  eos?: number;
  maxSourceLength?: number;
  maxLength: number;
  defaults?: { model?: Partial<TransformerSizes> };
  decode?(ids: ArrayLike<number>): string;
  tokens?(ids: ArrayLike<number>): string[];
}

/** The sizes and choices of a model. */
export interface TransformerSizes {
  /** Width of every token's vector. Default 32 (or the task's). */
  dModel: number;
  /** Attention heads per layer; dModel must be a multiple. Default 4. */
  heads: number;
  /** Hidden width of the position-wise FFN. Default 64. */
  dFF: number;
  /** Encoder blocks (0 for a decoder-only model). Default: decoderLayers ('seq2seq'), 1 ('mlm'). */
  encoderLayers: number;
  /** Decoder blocks (0 for an encoder-only model). Default 1 (0 for 'mlm'). */
  decoderLayers: number;
  /** The cross-attention's scores: dot product or additive (Bahdanau). Whether dot products are divided by √d_k is `scaled`. Default 'dot'. */
  crossScoring: 'dot' | 'additive';
  /** ÷√d_k in every dot-product attention of the model: the encoder's and decoder's self-attention and a dot-product cross-attention. Default true. */
  scaled: boolean;
  /** Layer norm after each residual add (the paper, D2L) or before each sublayer. Default 'post'. */
  norm: 'post' | 'pre';
  /** Positions added to the embeddings. Default 'sinusoidal'. */
  positions: 'sinusoidal' | 'learned';
  /** The FFN's activation. Default 'relu'. */
  activation: 'relu' | 'gelu';
}

/** Options of {@link TrainingOps.createTransformer}: a task, or a vocabulary size and a length. */
export interface CreateTransformerOptions extends Partial<TransformerSizes> {
  /** The task to learn: vocabulary, kind, lengths and default sizes come from it. */
  task?: TransformerTaskLike;
  /** Without a task: the number of token ids (id 0 is padding). */
  vocabSize?: number;
  /** Without a task: the longest source or decoder row the model takes. */
  maxLength?: number;
  /**
   * 'seq2seq' (encoder–decoder, the default), 'lm' (decoder-only, causal) or 'mlm' (encoder-only:
   * every position sees every other; trained by masked prediction on {@link TaskOps.mlmBatch}'s batches;
   * its layers are `encoderLayers`, its tensors `encoder.*`).
   */
  kind?: 'seq2seq' | 'lm' | 'mlm';
  /** Seed of the Xavier initialisation (an integer ≥ 0). Default 1. */
  seed?: number;
}

/** A model's configuration, as the core holds it. */
export interface TransformerConfig extends TransformerSizes {
  kind: 'seq2seq' | 'lm' | 'mlm';
  vocabSize: number;
  maxLength: number;
  seed: number;
}

/** Token ids: a row of a batch. */
export type TokenRow = ReadonlyArray<number> | Int32Array;

/**
 * A batch: a task's batch (flat Int32Arrays with size, length and sourceLength) or nested rows
 * (shorter rows are padded with id 0). Teacher forcing: input row b is what the decoder reads,
 * target row b what it should predict at each position (0: not counted).
 */
export type TransformerBatch =
  | { size: number; length: number; input: Int32Array | ReadonlyArray<number>; target: Int32Array | ReadonlyArray<number>; sourceLength?: number; source?: Int32Array | ReadonlyArray<number> | null; examples?: unknown }
  | { input: ReadonlyArray<TokenRow>; target: ReadonlyArray<TokenRow>; source?: ReadonlyArray<TokenRow> | null };

/** Options of one {@link TransformerModel.trainStep}: AdamW and clipping. */
export interface TrainStepOptions {
  /** The step's learning rate. Default 0.001. */
  learningRate?: number;
  /** AdamW's decoupled decay (p −= lr·wd·p). Default 0. */
  weightDecay?: number;
  /** Clip the gradient to this global norm; 0: no clipping. Default 1. */
  clipNorm?: number;
  /** Adam's β₁ (default 0.9), β₂ (default 0.98) and ε (default 1e-9). */
  beta1?: number;
  beta2?: number;
  epsilon?: number;
}

export interface TrainStepResult {
  /** The batch's loss before the update (mean cross-entropy over counted positions). */
  loss: number;
  /** The gradient's global norm before clipping. */
  gradientNorm: number;
  /** Updates applied so far. */
  step: number;
  /** The loss or gradient was not finite, or the update would have taken a weight beyond 65,504: no update was applied (weights and moments as before). */
  diverged: boolean;
}

export interface EvaluateResult {
  loss: number;
  /** Counted target positions predicted right (teacher forcing). */
  accuracy: number;
  /** Rows with every counted position right. */
  exactMatch: number;
  /** Target positions counted (not padding). */
  counted: number;
}

/** Options of {@link TransformerModel.generate}. */
export interface GenerateOptions {
  /** Most tokens to produce. Default: the task's maxLength (or what fits in the model's positions). */
  maxLength?: number;
  /** Return the attention weights of the decode. Default false. */
  attention?: boolean;
  /** The start and end ids. Default the task's (or 1 and 2). */
  bos?: number;
  eos?: number;
}

/** Row and column token labels of one kind of attention map. */
export interface AttentionLabels {
  /** For the decoder and the cross-attention: the token each decoder row read (`<bos>`, then each output but the last); the token that row wrote is the next one. */
  rows: string[];
  cols: string[];
}

/** The attention weights of one greedy decode: [layer][head] of rows × cols number[][]. */
export interface GenerateAttention {
  /** Encoder self-attention, source × source (null for a decoder-only model). */
  encoder: number[][][][] | null;
  /** Causal decoder self-attention: the tokens the decoder read × the same. */
  decoder: number[][][][];
  /** Cross-attention: decoder tokens × source tokens (null for a decoder-only model). */
  cross: number[][][][] | null;
  labels: { encoder: AttentionLabels | null; decoder: AttentionLabels; cross: AttentionLabels | null };
}

/** What {@link TransformerModel.attend} returns: copies of one forward pass's numbers. */
export interface AttendResult {
  /**
   * attention[layer][head]: n × n self-attention weights, row i over keys j; each row sums to 1 over
   * its visible keys (an 'lm' model's j ≤ i, an 'mlm' model's every non-padding position).
   */
  attention: Matrix[][];
  /** n × vocabSize: row i the logits of the prediction at position i (absent with `{ logits: false }`). */
  logits: Matrix;
  /**
   * With `{ inputs: true }`: inputs[layer], the n × dModel input of that layer's self-attention (the
   * residual stream, after the layer norm when the model is pre-norm), from which each head's Q, K, V
   * are its columns of W_Q, W_K, W_V times it.
   */
  inputs?: Matrix[];
}

/** Options of {@link TransformerModel.attend}. */
export interface AttendOptions {
  /** Also return each layer's self-attention input (`AttendResult.inputs`). Default false. */
  inputs?: boolean;
  /** Compute and return `AttendResult.logits`; false skips the output head (most of a small model's pass). Default true. */
  logits?: boolean;
}

export interface GenerateResult {
  /** The ids produced, the end id included when it was produced. */
  tokens: number[];
  /** task.decode(tokens), when the model knows its task. */
  text?: string;
  attention?: GenerateAttention;
}

/**
 * How {@link TransformerModel.save} stores the parameters: 'float32' exactly (the default); 'float16'
 * (about half the bytes); 'int8' with one float32 scale per row (about a quarter plus the scales).
 * Compact images keep tensors of one row (biases, layer-norm gains and shifts) in float32.
 */
export type SavePrecision = 'float32' | 'float16' | 'int8';

export interface SaveOptions {
  /** Default 'float32'. A compact image loads as its dequantized values, the same bits everywhere. */
  precision?: SavePrecision;
}

/** A model made by {@link TrainingOps.createTransformer} or {@link TrainingOps.loadTransformer}. */
export interface TransformerModel {
  readonly config: Readonly<TransformerConfig>;
  readonly task: TransformerTaskLike | null;
  /** Number of trained floats. */
  readonly parameterCount: number;
  /** Names and shapes of the parameter tensors (e.g. "encoder.0.attention.w_q"). */
  readonly tensors: ReadonlyArray<{ readonly name: string; readonly rows: number; readonly cols: number }>;
  /** Updates applied so far. */
  readonly steps: number;
  readonly disposed: boolean;
  /** Forward, backward, clipping and one AdamW update (skipped when the loss or gradient is not finite). */
  trainStep(batch: TransformerBatch, options?: TrainStepOptions): TrainStepResult;
  evaluate(batch: TransformerBatch): EvaluateResult;
  /** The batch's loss (forward only). */
  loss(batch: TransformerBatch): number;
  /** ∂loss/∂parameter for every named tensor (copies). */
  gradients(batch: TransformerBatch): Record<string, Matrix>;
  /** Copies of every named parameter tensor. */
  parameters(): Record<string, Matrix>;
  /** Overwrites the named tensors (any subset); every name and shape is checked before anything is written. */
  setParameters(values: Record<string, MatrixInput>): void;
  /**
   * Greedy decoding: a seq2seq model reads `ids` as its source; a decoder-only model continues BOS + `ids`.
   * An 'mlm' model does not continue text: it throws (use {@link TransformerModel.attend}).
   */
  generate(ids: TokenRow, options?: GenerateOptions): GenerateResult;
  /**
   * One forward pass of an 'lm' or 'mlm' model over `ids` as given (no BOS added; 1 … maxLength ids of
   * the vocabulary): every layer's and head's attention weights and every position's logits.
   * Throws an AttentionError (INVALID_ARGUMENT) for a 'seq2seq' model, empty ids, more than maxLength
   * ids or an id outside the vocabulary (naming it).
   */
  attend(ids: TokenRow, options: AttendOptions & { logits: false }): Omit<AttendResult, 'logits'>;
  attend(ids: TokenRow, options?: AttendOptions): AttendResult;
  /** A versioned image of the config, the step count and the parameters (not Adam's moments). */
  save(options?: SaveOptions): Uint8Array;
  /** Frees the model's memory; every later call throws an AttentionError with code DISPOSED. */
  dispose(): void;
}

/** A warm-up-then-cosine schedule ({@link TrainingOps.learningRateAt}); a task's defaults.training is one. */
export interface LearningRateSchedule {
  /** The peak rate, reached at the end of warm-up. */
  learningRate: number;
  /** Steps of linear warm-up (0: none). */
  warmup: number;
  /** The step where the cosine reaches its floor, a tenth of the peak (> warmup). */
  steps: number;
}

export interface TrainingOps {
  /**
   * The learning rate of `step` (1-based): a linear warm-up to `learningRate`, then a cosine down to
   * a tenth of it at `steps`, constant after. Pass it to trainStep: `{ learningRate: lab.learningRateAt(step, task.defaults.training) }`.
   */
  learningRateAt(step: number, schedule: LearningRateSchedule): number;
  /** A new model with seeded Xavier weights. */
  createTransformer(options: CreateTransformerOptions): TransformerModel;
  /** A model from model.save()'s bytes; hostile bytes throw an AttentionError. */
  loadTransformer(bytes: Uint8Array, options?: { task?: TransformerTaskLike }): TransformerModel;
}
