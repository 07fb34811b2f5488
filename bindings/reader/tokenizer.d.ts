// Types of reader/tokenizer.js: the reader's byte-fallback BPE tokenizer (pure JavaScript).

/** vocabulary.json, as made by scripts/reader/train-tokenizer.mjs. */
export interface ReaderVocabulary {
  /** Names of the special pieces, ids 0…specials.length − 1: `<pad>`, `<bos>`, `<eos>`, `<mask>`. */
  specials: string[];
  /** The single-character pieces, in id order after the 256 byte pieces (code points, NFC). */
  chars: string;
  /** Merges as flat pairs of ids `[a0, b0, a1, b1, …]`; merge r makes id specials + 256 + chars + r. */
  merges: number[];
  /** A label of the format; not read. */
  format?: string;
}

/** Options of {@link ReaderTokenizer.tokenize}. */
export interface TokenizeOptions {
  /** Keep at most this many pieces (fewer when the last would cut a character's bytes). Default: all. */
  maxLength?: number;
}

/** The pieces of a text. */
export interface Tokenized {
  /** Each piece as shown: a space as `▁`, a line break `↵`, a tab `⇥`, a byte `<0xE2>`. */
  tokens: string[];
  /** Each piece's id, in 4…size − 1 (tokenize never writes a special). */
  ids: Int32Array;
  /**
   * Two per piece, `[start, end)` UTF-16 offsets into the text: in order, covering it without gaps
   * or overlaps. A character written as bytes is covered by its first byte piece; its other byte
   * pieces cover nothing (start = end).
   */
  offsets: Int32Array;
  /** Present when maxLength cut the text: its pieces in all, and the UTF-16 units the kept pieces cover. */
  truncated?: { total: number; read: number };
}

export interface ReaderTokenizer {
  /** Pieces in the vocabulary (4,096 for the shipped one). */
  readonly size: number;
  /** Names of the specials, by id. */
  readonly specials: readonly string[];
  /** How each id is shown (as in {@link Tokenized.tokens}). */
  readonly pieces: readonly string[];
  /** Whether the id is one of the 256 byte pieces. */
  isByte(id: number): boolean;
  /**
   * The pieces of `text`. Never an unknown id: a character outside the vocabulary becomes its UTF-8
   * bytes, a lone surrogate the bytes of U+FFFD. Throws an AttentionError (INVALID_ARGUMENT) when
   * text is not a string or maxLength is not a number ≥ 0.
   */
  tokenize(text: string, options?: TokenizeOptions): Tokenized;
  /**
   * The text of `ids`: `decode(tokenize(x).ids) === x.toWellFormed()`. Byte pieces are decoded
   * together (a bad sequence reads as U+FFFD). Specials are left out, or written as their names
   * with `specials: true`. Throws an AttentionError (INVALID_ARGUMENT) for an id outside 0…size − 1.
   */
  decode(ids: ArrayLike<number>, options?: { specials?: boolean }): string;
}

/** A tokenizer over a parsed vocabulary.json. Throws an AttentionError (INVALID_ARGUMENT) for a malformed one. */
export function createTokenizer(vocabulary: ReaderVocabulary): ReaderTokenizer;

export const PAD: 0;
export const BOS: 1;
export const EOS: 2;
export const MASK: 3;
export const BYTE_PIECES: 256;
