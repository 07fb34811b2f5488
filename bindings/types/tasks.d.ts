// Types of tasks/*.js: the training tasks (pure JavaScript, no WebAssembly), lab.tasks.
import type { LearningRateSchedule } from './training.js';

/** Options of {@link Task.batch}. */
export interface TaskBatchOptions {
  /** An integer in 0…2^32 − 1; the same seed and split give the same batch. Default 1. */
  seed?: number;
  /** Rows, 1…65,536. */
  size: number;
  /** `'train'` or `'validation'`: disjoint example sets (a hash of each example's key decides). Default `'train'`. */
  split?: 'train' | 'validation';
  /** grammar only: `'every'` next word scored (default), or only the `'agreement'` (determined) positions. */
  count?: 'every' | 'agreement';
  /** grammar only: `'en'`, `'zh'` or `'both'` (half each, the default). */
  language?: 'en' | 'zh' | 'both';
}

/** One padded batch, row-major size×length; pad id 0 after the end of each row. */
export interface TaskBatch {
  /** Rows. */
  size: number;
  /** Decoder row length (the batch's longest row, BOS/EOS included). */
  length: number;
  /** Decoder input: `[bos, ...target tokens]` (seq2seq) or `[bos, ...tokens]` (lm), padded. */
  input: Int32Array;
  /** The token to predict at each input position (input shifted left, eos at the end); pad (0) where not counted. */
  target: Int32Array;
  /** Source row length (seq2seq: the batch's longest source; lm: 0). */
  sourceLength: number;
  /** Encoded sources, size×sourceLength, padded (seq2seq); null for an lm task. */
  source: Int32Array | null;
  /** The rows as text: seq2seq source → target; lm: the whole text, and target the counted part (repeat: the copy; grammar: the determined words). */
  examples: { source: string; target: string }[];
}

/** The model sizes and training settings a task starts from. */
export interface TaskDefaults {
  model: {
    dModel: number;
    heads: number;
    dFF: number;
    encoderLayers: number;
    decoderLayers: number;
    norm: 'post' | 'pre';
    positions: 'sinusoidal' | 'learned';
  };
  training: LearningRateSchedule & { batchSize: number; clipNorm: number };
}

/** What "learned" means for a task: a validation metric (greedy or teacher-forced) and its threshold. */
export interface TaskGoal {
  metric: 'exactMatch';
  /** Threshold in 0…1, e.g. 0.99. */
  value: number;
  /** grammar: measured on `batch({ count: 'agreement' })`. */
  count?: 'agreement';
}

/** A training task: its tokenizer, seeded batches, goal and defaults. */
export interface Task {
  readonly name: 'dates' | 'reverse' | 'grammar' | 'repeat';
  /** `'seq2seq'` (encoder–decoder: dates, reverse) or `'lm'` (decoder-only: grammar, repeat). */
  readonly kind: 'seq2seq' | 'lm';
  /** Token strings; id = index; ids 0…3 are `<pad>`, `<bos>`, `<eos>`, `<unk>`. */
  readonly vocabulary: readonly string[];
  readonly pad: 0;
  readonly bos: 1;
  readonly eos: 2;
  readonly unk: 3;
  /** seq2seq: the longest encoded source (no specials); lm: 0. */
  readonly maxSourceLength: number;
  /** The longest decoder row, BOS/EOS included. */
  readonly maxLength: number;
  /** Text → ids (no BOS/EOS); unknown characters (words) → unk. Throws AttentionError for a non-string. */
  encode(text: string): Int32Array;
  /** Ids → text: stops at eos, skips pad and bos. Throws AttentionError for an id outside the vocabulary. */
  decode(ids: ArrayLike<number>): string;
  /** One label per id (heatmap axes). */
  tokens(ids: ArrayLike<number>): string[];
  /** A seeded batch; throws AttentionError INVALID_ARGUMENT for a bad seed, size, split, count or language. */
  batch(options: TaskBatchOptions): TaskBatch;
  readonly defaults: TaskDefaults;
  readonly goal: TaskGoal;
  /** A few readable inputs for a page (lm: prompts to continue). */
  readonly examples: readonly string[];
  /** True when `output` is the right answer for `input` (lm: the right continuation). */
  check(input: string, output: string): boolean;
}

/** lab.tasks.dates: a date in one of many English or Chinese forms → ISO "YYYY-MM-DD" (1950…2049). */
export interface DatesTask extends Task {
  /** How many written forms there are (English first, then Chinese). */
  readonly formCount: number;
  /** `iso` written in form number `form` (0…formCount − 1). */
  format(iso: string, form: number): string;
  /** The split of a date (by its ISO string). */
  splitOf(iso: string): 'train' | 'validation';
  readonly firstYear: number;
  readonly lastYear: number;
}

/** lab.tasks.reverse and lab.tasks.repeat: symbol sequences. */
export interface SequenceTask extends Task {
  readonly symbols: readonly string[];
  /** Shortest and longest sequence (reverse 3…10, repeat 4…12). */
  readonly shortest: number;
  readonly longest: number;
  /** The split of a sequence (by its text). */
  splitOf(sequence: string): 'train' | 'validation';
}

/** lab.tasks.repeat: a sequence, the separator `|`, the sequence again. */
export interface RepeatTask extends SequenceTask {
  readonly separator: '|';
}

/** One sentence of the grammar task. */
export interface GrammarSentence {
  readonly language: 'en' | 'zh';
  readonly template: 'agreement' | 'reference';
  readonly words: readonly string[];
  /** Indices into words where the grammar allows one word only (the agreeing verb or 都/很; the referent). */
  readonly determined: readonly number[];
  readonly text: string;
  readonly ids: Int32Array;
  readonly split: 'train' | 'validation';
}

/** lab.tasks.grammar: English and Chinese sentences with agreement and pronoun reference. */
export interface GrammarTask extends Task {
  /** Every sentence of the language. */
  readonly sentences: readonly GrammarSentence[];
  /** The split of a sentence. */
  splitOf(language: 'en' | 'zh', text: string): 'train' | 'validation';
}

/** lab.tasks. */
export interface Tasks {
  readonly dates: DatesTask;
  readonly reverse: SequenceTask;
  readonly grammar: GrammarTask;
  readonly repeat: RepeatTask;
}

/** Options of {@link TaskOps.mlmBatch}. */
export interface MlmBatchOptions {
  /** The id of the mask token (a task lists `'<mask>'` among its symbols). */
  mask: number;
  /** The model's vocabulary size: random replacements are drawn from the ids 4 … vocabSize − 1 (the mask excluded). */
  vocabSize: number;
  /** The chance that a position is chosen, in (0, 1]. Default 0.15. Every non-empty row has at least one. */
  rate?: number;
  /** An integer in 0…2^32 − 1; one seed gives the same batch. Default 1. */
  seed?: number;
}

export interface TaskOps {
  /** The training tasks (pure JavaScript; the same objects in every instance). */
  readonly tasks: Tasks;
  /**
   * A masked-prediction batch for an 'mlm' model (BERT's rule): each chosen position reads the mask
   * 80 % of the time, a random ordinary token 10 %, itself 10 %, and its target is its own id; every
   * other target is 0 (not counted). input is the ids (no BOS or EOS) padded with 0; source is null.
   * Throws an AttentionError (INVALID_ARGUMENT) naming a bad option or id.
   */
  mlmBatch(rows: ReadonlyArray<{ ids: ArrayLike<number>; source?: string; target?: string }>, options: MlmBatchOptions): TaskBatch;
}
