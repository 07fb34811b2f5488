// A task's tokenizer: a list of symbols (characters or words) after the four special tokens.
// Id = index in the list. Character level: every code point is one token. Word level: the text
// is cut at spaces and each piece is split into the longest words of the list, so English
// ("the cats.") and Chinese written with or without spaces ("那些猫都很累") both read.
import { AttentionError } from '../errors.js';

export const SPECIALS = Object.freeze(['<pad>', '<bos>', '<eos>', '<unk>']);
export const PAD = 0;
export const BOS = 1;
export const EOS = 2;
export const UNK = 3;
/** The masked-prediction token an 'mlm' task lists among its symbols (not a fifth special: ids 0…3 stay as they are). */
export const MASK_TOKEN = '<mask>';

const isCJK = (s) => /[\u3000-\u9fff\uff00-\uffef]/u.test(s);

/**
 * Ids of one space-free piece of text: a run of Latin letters is one word (or one unk, never a
 * prefix of it: "cats" is not "cat" + unk); other text is split into the longest vocabulary words,
 * one unk per character that starts none.
 */
function splitPiece(piece, index, longest, out) {
  const chars = Array.from(piece);
  let at = 0;
  while (at < chars.length) {
    if (/[A-Za-z]/.test(chars[at])) {
      let end = at + 1;
      while (end < chars.length && /[A-Za-z]/.test(chars[end])) end++;
      out.push(index.get(chars.slice(at, end).join('')) ?? UNK);
      at = end;
      continue;
    }
    let length = Math.min(longest, chars.length - at);
    while (length > 0 && !index.has(chars.slice(at, at + length).join(''))) length--;
    out.push(length > 0 ? index.get(chars.slice(at, at + length).join('')) : UNK);
    at += Math.max(length, 1);
  }
}

/** Id of each character of the Basic Multilingual Plane (UNK where none): batches encode fast. */
function charTable(vocabulary) {
  const table = new Int32Array(0x10000).fill(UNK);
  vocabulary.forEach((s, id) => {
    if (id >= SPECIALS.length && s.length === 1) table[s.charCodeAt(0)] = id;
  });
  return table;
}

function encodeChars(text, table, index) {
  const out = new Int32Array(text.length); // at most one id per UTF-16 unit
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      // a character beyond the BMP (two units): looked up whole
      out[n++] = index.get(text.slice(i, i + 2)) ?? UNK;
      i++;
    } else out[n++] = table[code];
  }
  return out.slice(0, n);
}

/** The ids as an array of integers (an Array or any typed array). */
function idList(ids, owner) {
  if (!ids || typeof ids.length !== 'number' || typeof ids === 'string') {
    throw new AttentionError('INVALID_ARGUMENT', `${owner}: ids must be an array or typed array of token ids, got ${typeof ids}`);
  }
  return Array.from(ids);
}

/**
 * A tokenizer over `symbols` (no duplicates, no specials). level 'char' or 'word'. `owner` names the
 * task in error messages.
 */
export function createVocabulary(symbols, { level, owner }) {
  const vocabulary = Object.freeze([...SPECIALS, ...symbols]);
  const index = new Map(vocabulary.map((s, i) => [s, i]));
  if (index.size !== vocabulary.length) throw new Error(`${owner}: duplicate symbols in the vocabulary`);
  const longest = Math.max(...symbols.map((s) => Array.from(s).length));
  const label = (id, where, caller) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabulary.length) {
      throw new AttentionError('INVALID_ARGUMENT', `${caller}: token id ${id} at index ${where} is outside the vocabulary (0…${vocabulary.length - 1})`);
    }
    return vocabulary[id];
  };

  const byCode = level === 'char' ? charTable(vocabulary) : null;
  function encode(text) {
    if (typeof text !== 'string') throw new AttentionError('INVALID_ARGUMENT', `${owner}.encode: text must be a string, got ${typeof text}`);
    if (byCode) return encodeChars(text, byCode, index);
    const out = [];
    for (const piece of text.split(/\s+/u).filter(Boolean)) splitPiece(piece, index, longest, out);
    return Int32Array.from(out);
  }

  /** Labels of the ids, up to the first eos, without pad and bos. */
  function words(ids, caller) {
    const out = [];
    for (const [i, id] of idList(ids, caller).entries()) {
      if (id === EOS) break;
      if (id !== PAD && id !== BOS) out.push(label(id, i, caller));
    }
    return out;
  }

  function decode(ids) {
    const parts = words(ids, `${owner}.decode`);
    if (level === 'char') return parts.join('');
    // a space between two words, none next to Chinese text or before punctuation
    return parts.reduce((text, w, i) => {
      const prev = parts[i - 1];
      const glue = i === 0 || isCJK(w) || isCJK(prev) || /^[.,?!]$/.test(w) ? '' : ' ';
      return text + glue + w;
    }, '');
  }

  const tokens = (ids) => idList(ids, `${owner}.tokens`).map((id, i) => label(id, i, `${owner}.tokens`));
  return { vocabulary, encode, decode, tokens, index };
}
