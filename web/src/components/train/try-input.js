// What the train panel's try box gives the model, DOM-free (the worker runs it beside the task): the
// reader's text read with the task's vocabulary, without regard to case (a word-level task's words,
// a character-level task's letters in their other case where only that is known: tokenize.js), what
// lies outside it, and the longest input the task has (a note in the reader's language says when the
// text is longer, or empty, instead of the library's message).
import { foldCharacters, unknownPieces, vocabularyPieces } from '../../tokenize.js';

/**
 * The longest input of `task` in tokens: an encoder–decoder task's longest source, the repeat task's
 * longest sequence and its separator, otherwise what fits before the model's last position.
 */
export const longestInput = (task, modelMaxLength) =>
  task.kind === 'seq2seq' ? Math.min(task.maxSourceLength, modelMaxLength) : task.longest ? task.longest + 1 : modelMaxLength - 1;

/**
 * `text` as `task` reads it: { ids (Int32Array), count (tokens), max (longestInput), unknown (the
 * distinct pieces outside the vocabulary), unit ('words' or 'chars'), problem: null, 'empty' or 'long' }.
 */
export function readInput(task, text, modelMaxLength) {
  const symbols = task.vocabulary.slice(task.unk + 1);
  const words = symbols.some((s) => Array.from(s).length > 1);
  let ids;
  let unknown;
  if (words) {
    const pieces = vocabularyPieces(text, symbols);
    ids = task.encode(pieces.map((p) => p.word ?? p.text).join(' '));
    unknown = unknownPieces(pieces);
  } else {
    const folded = foldCharacters(text, symbols);
    ids = task.encode(folded.text);
    unknown = folded.unknown.filter((c) => c.trim() !== '' || task.encode(c)[0] === task.unk);
  }
  const max = longestInput(task, modelMaxLength);
  const problem = ids.length === 0 ? 'empty' : ids.length > max ? 'long' : null;
  return { ids, count: ids.length, max, unknown, unit: words ? 'words' : 'chars', problem };
}
