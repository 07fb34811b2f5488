// Types of reader/reader.js and reader/bundle.js: lab.loadReader, a small encoder and decoder that
// know the reader's words (training build only).
import type { Matrix, Step } from '../types/shared.js';
import type { ReaderTokenizer, Tokenized } from './tokenizer.js';

/** The languages a reader speaks: what is language-specific (the pronoun head, the corpus) is chosen by it. */
export type ReaderLanguage = 'en' | 'zh-CN';
/** The reader's two models: the bidirectional encoder ('mlm') and the causal decoder ('lm'). */
export type ReaderModelName = 'encoder' | 'decoder';

/** Options of {@link ReaderOps.loadReader}. */
export interface LoadReaderOptions {
  /** Default 'en'. */
  language?: ReaderLanguage;
  /** The bytes of a reader file (reader.bin), read by the caller. At most 16 MiB. */
  bytes?: Uint8Array;
  /** Its URL (http(s), blob, data; file in Node; relative to the page or worker). At most 16 MiB, within 60 s. */
  url?: string | URL;
}

/** A head the reader's file names, with what it was found to do and its score there. */
export interface ReaderHead {
  readonly model: ReaderModelName;
  /** 0-based. */
  readonly layer: number;
  /** 0-based. */
  readonly head: number;
  /**
   * What the head does, measured on held-out text: the shipped reader's kinds are 'previous-token',
   * 'first-token', 'diagonal', 'punctuation', 'induction', 'pronoun-referent', 'line-position' or
   * 'none' (no kind holds half its weight); another file's maker may name others.
   */
  readonly kind: string;
  /** The mean weight on the kind's positions over the held-out rows where it applies (0…1). */
  readonly score: number;
  /** For a head whose kind is 'none': the kind that came closest (its score is `score`). */
  readonly closest?: string;
  /** A short label in each language. */
  readonly label: Readonly<Record<ReaderLanguage, string>>;
}

/** What the reader's file says of the chosen language (each field present when the file has it). */
export interface ReaderFacts {
  /** The corpus the models read in this language. */
  readonly corpus?: string;
  /** The head reported for the pronoun goal in this language. */
  readonly pronounHead?: Readonly<{ model: ReaderModelName; layer: number; head: number }>;
}

/** Options of {@link Reader.attend}. */
export interface ReaderAttendOptions {
  /** Default 'encoder'. */
  model?: ReaderModelName;
  /** Also return `steps`: per layer and head, the attention's steps. Default false. */
  trace?: boolean;
}

/** What {@link Reader.attend} computed. */
export interface ReaderAttendResult {
  readonly model: ReaderModelName;
  /** The pieces read, as shown; the decoder reads `<bos>` first (when its file says so). */
  readonly tokens: string[];
  /**
   * `attention[layer][head]`: n × n weights (n = tokens.length), each row summing to 1: the encoder's
   * rows over every piece, the decoder's over the pieces up to their own (later ones exactly 0).
   */
  readonly attention: Matrix[][];
  /**
   * With `trace: true`, `steps[layer][head]`: as `selfAttention`'s trace of that head (`Q`, `K`, `V`,
   * `scores`, `scaled`, `masked` for the decoder, `weights`, `output`) over the layer's attention
   * input (after the layer norm in a pre-norm model) and the head's columns of W_Q, W_K, W_V; its
   * `weights` equal `attention[layer][head]` to float32 rounding. Each head's steps are computed
   * when first read, so a view that shows one head pays for one.
   */
  readonly steps?: Step[][][];
  /** Present when the text has more pieces than the model reads: the first ones are read. As {@link Tokenized.truncated}: pieces in all, UTF-16 units read. */
  readonly truncated?: { total: number; read: number };
}

/** One entry of {@link Reader.predict}. */
export interface ReaderPrediction {
  /** The piece, as shown. */
  readonly token: string;
  /** Its id in the vocabulary. */
  readonly id: number;
  /** Its probability under the decoder's softmax over the whole vocabulary (computed in float64). */
  readonly probability: number;
}

export interface Reader {
  readonly language: ReaderLanguage;
  readonly facts: ReaderFacts;
  /** The heads the file names. */
  readonly heads: readonly ReaderHead[];
  /** Pieces each model reads at most (the decoder's `<bos>` included). */
  readonly maxLength: number;
  /** The reader's tokenizer. */
  readonly tokenizer: ReaderTokenizer;
  /** Both models' settings (as `TransformerModel.config`). */
  readonly models: Readonly<Record<ReaderModelName, Readonly<Record<string, unknown>>>>;
  /**
   * The pieces of `text` as shown, their ids (never an unknown one: a character outside the
   * vocabulary is its UTF-8 bytes) and `[start, end)` UTF-16 offsets, two per piece. '' gives none.
   * Throws an AttentionError: INVALID_ARGUMENT for a text that is not a string, DISPOSED after dispose().
   */
  tokenize(text: string): { tokens: string[]; ids: Int32Array; offsets: Int32Array };
  /**
   * One pass of a model over the text's first pieces and its attention. Throws an AttentionError:
   * INVALID_ARGUMENT for a text that is not a string or is empty, or a bad option; DISPOSED after dispose().
   */
  attend(text: string, options?: ReaderAttendOptions): ReaderAttendResult;
  /**
   * The decoder's next piece after the text (its last pieces when it has more than the decoder
   * reads): the `topK` (default 5, 1 … vocabulary size) most probable, most probable first.
   * Throws as {@link Reader.attend}, and for a bad topK.
   */
  predict(text: string, options?: { topK?: number }): ReaderPrediction[];
  /**
   * A copy of every named parameter of one model (as {@link TransformerModel.parameters}: the stack's
   * `encoder.<layer>.…` for the encoder, `decoder.<layer>.…` for the decoder, the embeddings, the
   * output head), dequantized from the file's int8. Throws an AttentionError: INVALID_ARGUMENT for a
   * model other than 'encoder' or 'decoder', DISPOSED after dispose().
   */
  parameters(model: ReaderModelName): Record<string, Matrix>;
  readonly disposed: boolean;
  /** Frees both models; later calls throw DISPOSED. Calling it again does nothing. */
  dispose(): void;
}

export interface ReaderOps {
  /**
   * A reader: the shipped one (dist/checkpoints/reader/reader.bin, read on first use: Node from
   * disk, elsewhere fetched beside the module), or options.bytes / options.url. Rejects with an
   * AttentionError (INVALID_ARGUMENT) naming the option or the file's field that is wrong: an
   * unknown language, more than 16 MiB, a truncated or corrupted file, models of the wrong kind,
   * vocabulary size or length.
   */
  loadReader(options?: LoadReaderOptions): Promise<Reader>;
}
