// The one input model behind every panel: a sentence split into tokens,
// seeded embeddings X and seeded projections W_Q, W_K, W_V, W_O, and a mask.
import { normalise } from './config.js';
import { hashString, mulberry32, normals, randomMatrix } from './random.js';

// The settings (their defaults, bounds and out-of-range notes) are defined in config.js.
export { normalise, outOfRange } from './config.js';

// maxWidth bounds h·d_k, the width of Q, K, V and of the concatenated heads, like d_model.
export const LIMITS = { maxTokens: 128, maxDModel: 64, maxDk: 64, maxHeads: 8, maxWidth: 64 };
// The longest sentence read, in characters (a longer one is cut, with a note): a pasted
// paragraph of 128 words fits.
export const MAX_SENTENCE = 1600;

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

/** A token's embedding: the same word gets the same row for a given seed. */
function embed(token, dModel, seed) {
  const gauss = normals(mulberry32((hashString(token) ^ Math.imul(seed, 0x9e3779b1)) >>> 0));
  return Array.from({ length: dModel }, () => gauss());
}

/**
 * Build the matrices for one configuration. `custom.X` (a Matrix or nested
 * rows) replaces the embeddings when its width is d_model. The result is shared
 * (the last few are kept: a panel's own setting, or another panel on the same
 * input, gets them again at no cost) and must not be changed.
 */
export function buildModel(config, custom = {}) {
  const c = normalise(config);
  const key = JSON.stringify(c);
  const given = CUSTOM.map((name) => custom?.[name]);
  const hit = built.find((b) => b.key === key && b.given.every((m, k) => m === given[k]));
  if (hit) return hit.model;
  const model = Object.freeze(build(c, custom));
  built.unshift({ key, given, model });
  built.length = Math.min(built.length, 4);
  return model;
}
const built = [];
const CUSTOM = ['X', 'Wq', 'Wk', 'Wv', 'Wo'];

function build(c, custom = {}) {
  let tokens = tokenize(c.sentence);
  if (tokens.length === 0) tokens = ['∅'];
  let X;
  const given = copyMatrixOrNull(custom.X);
  if (given && given.rows > 0 && given.rows <= LIMITS.maxTokens && given.cols === c.dModel) {
    X = given;
    if (tokens.length !== X.rows) tokens = Array.from({ length: X.rows }, (_, i) => `x${i + 1}`);
  } else {
    const data = new Float32Array(tokens.length * c.dModel);
    tokens.forEach((tok, i) => data.set(embed(tok, c.dModel, c.seed), i * c.dModel));
    X = { rows: tokens.length, cols: c.dModel, data };
  }
  const width = c.heads * c.dK;
  const std = 1 / Math.sqrt(c.dModel);
  const Wq = copyMatrixOrNull(custom.Wq) ?? randomMatrix(c.dModel, width, c.seed * 4 + 1, std);
  const Wk = copyMatrixOrNull(custom.Wk) ?? randomMatrix(c.dModel, width, c.seed * 4 + 2, std);
  const Wv = copyMatrixOrNull(custom.Wv) ?? randomMatrix(c.dModel, width, c.seed * 4 + 3, std);
  const Wo = copyMatrixOrNull(custom.Wo) ?? randomMatrix(width, c.dModel, c.seed * 4 + 4, 1 / Math.sqrt(width));
  const n = X.rows;
  const validLen = Math.min(c.validLen, n);
  const mask = c.mask === 'causal' ? 'causal' : c.mask === 'padding' ? { validLens: validLen } : undefined;
  return { config: { ...c, validLen }, tokens, X, Wq, Wk, Wv, Wo, mask, n };
}

/** A copy of a Matrix or of nested rows as { rows, cols, data: Float32Array }; anything else (ragged rows, a wrong data length) gives null. */
export function copyMatrixOrNull(value) {
  if (!value) return null;
  if (Array.isArray(value)) {
    const rows = value.length;
    const cols = rows ? value[0].length : 0;
    if (!value.every((r) => r.length === cols)) return null;
    return { rows, cols, data: Float32Array.from(value.flat()) };
  }
  if (Number.isInteger(value.rows) && Number.isInteger(value.cols) && value.data?.length === value.rows * value.cols)
    return { rows: value.rows, cols: value.cols, data: Float32Array.from(value.data) };
  return null;
}

/** Parse a matrix typed by hand: one row per line, numbers separated by spaces or commas. */
export function parseMatrixText(text) {
  const rows = String(text)
    .trim()
    .split(/\n+/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split(/[\s,;]+/).filter(Boolean).map(Number));
  if (rows.length === 0) return null;
  if (rows.some((r) => r.some((v) => !Number.isFinite(v)))) return null;
  return copyMatrixOrNull(rows);
}
