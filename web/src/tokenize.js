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
