// The one input model behind every panel: a sentence (or the author's tokens) split into tokens,
// seeded embeddings X and seeded projections W_Q, W_K, W_V, W_O (or the author's own numbers,
// checked in own-numbers.js), and a mask.
import { givenFields, normalise } from './config.js';
import { INPUT_KEYS, expectShape, givenTokens, inputMode, ownMatrix, refuse, refuseMode, tokensForRows, widthToDk } from './own-numbers.js';
import { qkvModel, weightsModel } from './own-models.js';
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
 * Build the matrices for one configuration. `custom` is the element's `inputs`: X and the weights
 * (computed from), or Q, K, V, or attention weights, with `tokens` (see own-numbers.js; a panel lists
 * the ways it `accepts`, the others are refused with a visible error). A setting given (an
 * attribute) must agree with the author's matrices; one not given is read from them (d-model from
 * X, d-k from the weights or Q, heads from the weights). The result is shared (the last few are
 * kept: a panel's own setting, or another panel on the same input, gets them again at no cost) and
 * must not be changed.
 */
export function buildModel(config, custom = {}, { accepts = ['seeded', 'x'] } = {}) {
  const given = givenFields(config) ?? new Set(Object.keys(config ?? {}).filter((k) => config[k] !== undefined && config[k] !== ''));
  const c = normalise(config);
  const key = `${JSON.stringify(c)}|${[...given].sort()}`;
  const values = INPUT_KEYS.map((name) => custom?.[name]);
  let model = built.find((b) => b.key === key && b.values.every((m, k) => m === values[k]) && b.extra === extraKeys(custom))?.model;
  if (!model) {
    model = Object.freeze(build(c, custom ?? {}, given));
    built.unshift({ key, values, extra: extraKeys(custom), model });
    built.length = Math.min(built.length, 4);
  }
  if (!accepts.includes(model.mode)) refuseMode(model.mode);
  return model;
}
const built = [];
// Keys beyond the known ones (refused by inputMode): part of the cache key so they are refused every time.
const extraKeys = (custom) => Object.keys(custom ?? {}).filter((k) => !INPUT_KEYS.includes(k)).join();

function build(c, inputs, given) {
  const mode = inputMode(inputs);
  if (mode === 'qkv') return qkvModel(c, inputs, given);
  if (mode === 'weights') return weightsModel(c, inputs, given);
  return embeddedModel(c, inputs, given, mode);
}

/** X (the author's or seeded embeddings of the tokens) and the weights (the author's or seeded). */
function embeddedModel(settings, inputs, given, mode) {
  const own = Object.fromEntries(WEIGHTS.filter((n) => inputs[n] != null).map((n) => [n, ownMatrix(inputs, n)]));
  const c = { ...settings };
  if (own.X && !given.has('dModel')) c.dModel = own.X.cols;
  if (own.X && own.X.cols !== c.dModel) refuse('xWidth', { shape: `${own.X.rows}×${own.X.cols}`, cols: own.X.cols, dm: c.dModel });
  if (c.dModel > LIMITS.maxDModel) refuse('tooWide', { name: 'X', key: 'X', cols: c.dModel, max: LIMITS.maxDModel });
  const first = ['Wq', 'Wk', 'Wv'].find((n) => own[n]);
  if (first) c.dK = widthToDk(c, given, first, own[first].cols);
  else if (own.Wo) c.dK = widthToDk(c, given, 'Wo', own.Wo.rows);
  const width = c.heads * c.dK;
  for (const n of ['Wq', 'Wk', 'Wv']) if (own[n]) expectShape(own[n], n, c.dModel, width, `d-model × heads·d-k = ${c.dModel} × ${c.heads}·${c.dK}`);
  if (own.Wo && c.heads === 1) refuse('woOneHead', {});
  if (own.Wo) expectShape(own.Wo, 'Wo', width, c.dModel, `heads·d-k × d-model = ${c.heads}·${c.dK} × ${c.dModel}`);
  let tokens;
  let X = own.X;
  if (X) tokens = tokensForRows(c, given, inputs, X.rows, 'X');
  else {
    tokens = givenTokens(c, inputs) ?? tokenize(c.sentence);
    if (tokens.length > LIMITS.maxTokens) refuse('tokensTooMany', { count: tokens.length, max: LIMITS.maxTokens });
    if (tokens.length === 0) tokens = ['∅'];
    const data = new Float32Array(tokens.length * c.dModel);
    tokens.forEach((tok, i) => data.set(embed(tok, c.dModel, c.seed), i * c.dModel));
    X = { rows: tokens.length, cols: c.dModel, data };
  }
  const std = 1 / Math.sqrt(c.dModel);
  const Wq = own.Wq ?? randomMatrix(c.dModel, width, c.seed * 4 + 1, std);
  const Wk = own.Wk ?? randomMatrix(c.dModel, width, c.seed * 4 + 2, std);
  const Wv = own.Wv ?? randomMatrix(c.dModel, width, c.seed * 4 + 3, std);
  const Wo = own.Wo ?? randomMatrix(width, c.dModel, c.seed * 4 + 4, 1 / Math.sqrt(width));
  return { mode, given: new Set(Object.keys(own)), ...withMask(c, X.rows), tokens, X, Wq, Wk, Wv, Wo };
}
const WEIGHTS = ['X', 'Wq', 'Wk', 'Wv', 'Wo'];

/** The settings as used for n tokens, the mask and n. */
export function withMask(c, n) {
  const validLen = Math.min(c.validLen, n);
  const mask = c.mask === 'causal' ? 'causal' : c.mask === 'padding' ? { validLens: validLen } : undefined;
  return { config: { ...c, validLen }, mask, n };
}

const isRow = (r) => Array.isArray(r) || ArrayBuffer.isView(r);
// Entries of plain arrays must be numbers: null, strings or booleans would become 0, 1 or NaN in silence.
const allNumbers = (a) => ArrayBuffer.isView(a) || a.every((v) => typeof v === 'number');

/**
 * A copy of a Matrix or of nested rows (arrays or typed arrays) as { rows, cols, data: Float32Array };
 * anything else (ragged rows, a flat array, a wrong data length, an entry that is not a number) gives null.
 */
export function copyMatrixOrNull(value) {
  if (!value) return null;
  if (Array.isArray(value)) {
    const rows = value.length;
    if (!value.every(isRow)) return null;
    const cols = rows ? value[0].length : 0;
    if (!value.every((r) => r.length === cols && allNumbers(r))) return null;
    const data = new Float32Array(rows * cols);
    value.forEach((r, i) => data.set(r, i * cols));
    return { rows, cols, data };
  }
  if (Number.isInteger(value.rows) && Number.isInteger(value.cols) && isRow(value.data) && value.data.length === value.rows * value.cols && allNumbers(value.data))
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
