// The page's tokenizer: words for Latin text, characters for Chinese.
import { LIMITS } from './limits.js';

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;

/** Latin text splits into words, Chinese (and other CJK) text into characters; the first `limit` tokens. */
export function tokenize(sentence, limit = LIMITS.maxTokens) {
  const tokens = [];
  let word = '';
  const flush = () => {
    if (word) tokens.push(word);
    word = '';
  };
  for (const ch of String(sentence ?? '')) {
    if (CJK.test(ch)) {
      flush();
      tokens.push(ch);
    } else if (/[\s\p{P}]/u.test(ch)) {
      flush();
    } else {
      word += ch;
    }
  }
  flush();
  return tokens.slice(0, limit);
}

const LATIN = /[A-Za-z]/;

/**
 * `text` split as a word-level model's tokenizer splits it (bindings/tasks/vocabulary.js: at spaces,
 * a run of Latin letters one word, other text into the longest words of `vocabulary`), with words
 * matched without regard to case ("The" is "the"). Each piece: { text (as typed), word (the
 * vocabulary's word, or null: outside it) }. A character that starts no word is a piece of its own,
 * so every unknown piece, Chinese ones included, can be named.
 */
export function vocabularyPieces(text, vocabulary) {
  const index = new Map();
  for (const w of vocabulary) if (!index.has(w.toLowerCase())) index.set(w.toLowerCase(), w);
  const longest = Math.max(1, ...vocabulary.map((w) => Array.from(w).length));
  const pieces = [];
  for (const part of String(text ?? '').split(/\s+/u).filter(Boolean)) {
    const chars = Array.from(part);
    let at = 0;
    while (at < chars.length) {
      let end = at + 1;
      if (LATIN.test(chars[at])) {
        while (end < chars.length && LATIN.test(chars[end])) end++;
      } else {
        for (let length = Math.min(longest, chars.length - at); length > 1; length--)
          if (index.has(chars.slice(at, at + length).join('').toLowerCase())) {
            end = at + length;
            break;
          }
      }
      const piece = chars.slice(at, end).join('');
      pieces.push({ text: piece, word: index.get(piece.toLowerCase()) ?? null });
      at = end;
    }
  }
  return pieces;
}

/** The distinct pieces outside the vocabulary, in order of first appearance. */
export const unknownPieces = (pieces) => [...new Set(pieces.filter((p) => !p.word).map((p) => p.text))];

/**
 * `text` read character by character (a character-level model), without regard to case: a run of
 * Latin letters is read as typed if the model knows every letter, else as the first of its
 * Capitalised, lower-case and upper-case forms it knows ("DECEMBER" as "December"), else letter by
 * letter, each in its other case where only that is known. Returns { text (as the model reads it),
 * unknown (the distinct characters outside the vocabulary) }.
 */
export function foldCharacters(text, vocabulary) {
  const known = new Set(vocabulary);
  const unknown = new Set();
  const all = (s) => Array.from(s).every((c) => known.has(c));
  const letter = (c) => {
    if (known.has(c)) return c;
    const other = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    if (known.has(other)) return other;
    unknown.add(c);
    return c;
  };
  const read = String(text ?? '').replace(/[A-Za-z]+|[^A-Za-z]+/g, (run) => {
    if (!LATIN.test(run)) return Array.from(run, letter).join('');
    const forms = [run, run[0].toUpperCase() + run.slice(1).toLowerCase(), run.toLowerCase(), run.toUpperCase()];
    return forms.find(all) ?? Array.from(run, letter).join('');
  });
  return { text: read, unknown: [...unknown] };
}
