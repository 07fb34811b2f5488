// Cuts text into the units BPE works inside (no piece crosses two of them), the same for training
// (scripts/reader/train-tokenizer.mjs) and for the tokenizer, as GPT-2 does before its merges:
//   - one Han character (a Chinese character is one piece or its bytes, never merged);
//   - an English contraction's ending: 's 't 're 've 'm 'll 'd (straight or curly apostrophe);
//   - a run of letters (with their combining marks), a run of digits, or a run of other symbols,
//     each with the one space before it, so "▁the" is a word start and "the" is not;
//   - whitespace: a run of it, leaving its last space to the word after it.
// A run longer than MAX_RUN code points is cut every MAX_RUN: BPE inside a unit costs its length
// squared, and no word of the corpora is that long.
const UNIT =
  /\p{Script=Han}|['’](?:ll|ve|re|LL|VE|RE|[sdmtSDMT])(?![\p{L}\p{M}])| ?(?:(?!\p{Script=Han})[\p{L}\p{M}])+| ?\p{N}+| ?[^\s\p{L}\p{M}\p{N}]+|\s+(?!\S)|\s+/gu;

export const MAX_RUN = 64;

/**
 * Calls `visit(start, end)` for each unit of `text` in order, with UTF-16 offsets; together the
 * units cover the text exactly (every code point, lone surrogates too, is in one of them).
 */
export function forEachUnit(text, visit) {
  // matchAll works on a copy of the pattern: a visit that tokenizes again cannot move its lastIndex
  for (const m of text.matchAll(UNIT)) {
    const start = m.index;
    const end = start + m[0].length;
    if (end - start <= MAX_RUN) visit(start, end);
    else {
      let at = start;
      while (at < end) {
        let next = at;
        for (let n = 0; n < MAX_RUN && next < end; n++) next += text.codePointAt(next) > 0xffff ? 2 : 1;
        visit(at, next);
        at = next;
      }
    }
  }
}
