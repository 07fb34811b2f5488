// An author's own numbers in an element's `inputs`: X and the weights (computed from), Q, K, V
// (the steps start at the scores), or a trained model's attention weights (shown as given), with
// the tokens that label them. Every mismatch throws an InputsError naming the author's matrix
// ("your Q (inputs.Q)"), shown in the reader's language by error-text.js; nothing falls back to the
// seeded numbers in silence. model.js and this file import each other (functions only, at call time).
import { translator } from './i18n.js';
import { LIMITS } from './limits.js';
import { copyMatrixOrNull } from './matrix-input.js';
import { tokenize } from './tokenize.js';

/** Every key `inputs` may hold. */
export const INPUT_KEYS = ['X', 'Wq', 'Wk', 'Wv', 'Wo', 'Q', 'K', 'V', 'weights', 'tokens'];
const LABEL = { X: 'X', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V', Wo: 'W_O', Q: 'Q', K: 'K', V: 'V', weights: 'weights' };

/** A mismatch in the author's inputs: `key` names its explanation (strings/errors.js, error.inputs.<key>), `params` fill it. */
export class InputsError extends Error {
  constructor(key, params = {}) {
    const en = translator('en');
    super(en('error.inputs', { why: en(`error.inputs.${key}`, params) }));
    this.name = 'InputsError';
    this.key = key;
    this.params = params;
  }
}
const refuse = (key, params) => {
  throw new InputsError(key, params);
};

/** The inputs' keys checked, and which way they give the numbers: 'seeded', 'x' (X and/or weights), 'qkv' or 'weights'. */
export function inputMode(inputs) {
  const keys = Object.keys(inputs ?? {}).filter((k) => inputs[k] !== undefined && inputs[k] !== null);
  for (const key of keys) if (!INPUT_KEYS.includes(key)) refuse(nearKey(key) ? 'unknownKeyNear' : 'unknownKey', { key, near: nearKey(key), known: INPUT_KEYS.join(', ') });
  const has = (names) => names.filter((k) => keys.includes(k));
  const [x, qkv, weights] = [has(['X', 'Wq', 'Wk', 'Wv']), has(['Q', 'K', 'V']), has(['weights'])];
  const ways = [x, qkv, weights].filter((g) => g.length);
  if (ways.length > 1) refuse('mixed', { a: ways[0].map((k) => `inputs.${k}`).join(', '), b: ways[1].map((k) => `inputs.${k}`).join(', ') });
  if (weights.length) return 'weights';
  if (qkv.length) return 'qkv';
  return x.length || keys.includes('Wo') ? 'x' : 'seeded';
}

// A typo of a known key, by letters in another case or one letter changed, added or dropped.
function nearKey(key) {
  return INPUT_KEYS.find((k) => k.toLowerCase() === key.toLowerCase()) ?? (key.length > 2 ? INPUT_KEYS.find((k) => Math.abs(k.length - key.length) <= 1 && oneEdit(k, key)) : undefined);
}
function oneEdit(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(i + (a.length >= b.length ? 1 : 0)) === b.slice(i + (b.length >= a.length ? 1 : 0));
}

/** The author's matrix `name` as { rows, cols, data }, checked: a matrix of finite numbers, within the page's sizes. */
export function ownMatrix(inputs, name) {
  const value = inputs[name];
  const params = { name: LABEL[name], key: name };
  // An entry that is not a number (null, a string) would become 0 or NaN in a Float32Array: say where it is.
  if (Array.isArray(value))
    value.forEach((row, i) => Array.isArray(row) && row.forEach((v, j) => typeof v !== 'number' && refuse('nonFinite', { ...params, i, j, value: v === null ? 'null' : JSON.stringify(v) ?? typeof v })));
  // Sizes first (before anything is copied): no matrix of the page has more than maxTokens rows or maxWidth columns.
  const [rows, cols] = Array.isArray(value) ? [value.length, value[0]?.length] : [value?.rows, value?.cols];
  if (rows > LIMITS.maxTokens) refuse('tooMany', { ...params, rows, max: LIMITS.maxTokens });
  if (cols > LIMITS.maxWidth) refuse('tooWide', { ...params, cols, max: LIMITS.maxWidth });
  const m = copyMatrixOrNull(value);
  if (!m || m.rows === 0 || m.cols === 0) refuse('notMatrix', params);
  const bad = m.data.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) refuse('nonFinite', { ...params, i: Math.floor(bad / m.cols), j: bad % m.cols, value: String(m.data[bad]) });
  return m;
}

/** A matrix's shape must be rows×cols: else the error names the author's matrix and the settings behind the shape. */
export function expectShape(m, name, rows, cols, why) {
  if (m.rows !== rows || m.cols !== cols) refuse('shape', { name: LABEL[name], key: name, shape: `${m.rows}×${m.cols}`, want: `${rows}×${cols}`, why });
}

/**
 * A width the author's matrices fix (`width` columns holding `heads` heads) against the d-k setting:
 * the d-k attribute, when given, must agree; otherwise d-k is read from the matrix.
 */
export function widthToDk(c, given, name, width) {
  if (given.has('dK') && c.heads * c.dK !== width) refuse('dk', { name: LABEL[name], key: name, cols: width, dk: c.dK, h: c.heads, want: width / c.heads });
  if (width % c.heads !== 0) refuse('headsSplit', { name: LABEL[name], key: name, cols: width, h: c.heads });
  if (width > LIMITS.maxWidth) refuse('tooWide', { name: LABEL[name], key: name, cols: width, max: LIMITS.maxWidth });
  return width / c.heads;
}

/** The author's tokens: inputs.tokens (an array of strings) or the tokens attribute (a JSON array, or tokens separated by spaces); null when neither. */
export function givenTokens(c, inputs) {
  if (inputs?.tokens !== undefined && inputs?.tokens !== null) {
    const list = inputs.tokens;
    if (!Array.isArray(list)) refuse('tokensType', { i: '', what: typeof list });
    list.forEach((tok, i) => typeof tok !== 'string' && refuse('tokensType', { i, what: tok === null ? 'null' : typeof tok }));
    return list.length ? list : null;
  }
  return c.tokens ? parseTokens(c.tokens) : null;
}

/** The tokens attribute read: '["▁the", "##ing"]' (JSON) or '▁the ##ing' (separated by spaces). */
export function parseTokens(text) {
  const s = String(text ?? '').trim();
  if (!s.startsWith('[')) return s ? s.split(/\s+/) : [];
  let list;
  try {
    list = JSON.parse(s);
  } catch (error) {
    refuse('tokensJson', { msg: error.message });
  }
  if (!Array.isArray(list) || list.some((tok) => typeof tok !== 'string')) refuse('tokensJson', { msg: 'not an array of strings' });
  return list;
}

/**
 * The row labels of `rows` rows of the author's matrix `name`: their tokens, which must be one per row;
 * else the sentence's when it was given (one per row too) or, with the default sentence, its tokens
 * when they fit and x1…xn when they do not (the default sentence was never the author's).
 */
export function tokensForRows(c, given, inputs, rows, name) {
  const own = givenTokens(c, inputs);
  if (own && own.length !== rows) refuse(own.length > rows ? 'tokensMore' : 'tokensFewer', { count: own.length, rows, name: LABEL[name], key: name });
  if (own) return own;
  const words = tokenize(c.sentence, Infinity);
  if (given.has('sentence') && words.length !== rows) refuse(words.length > rows ? 'sentenceMore' : 'sentenceFewer', { count: words.length, rows, name: LABEL[name], key: name });
  return words.length === rows ? words : Array.from({ length: rows }, (_, i) => `x${i + 1}`);
}

/** Columns [first, first + count) of a matrix: one head's slice. */
export function columnsOf(m, first, count) {
  const data = new Float32Array(m.rows * count);
  for (let i = 0; i < m.rows; i++) data.set(m.data.subarray(i * m.cols + first, i * m.cols + first + count), i * count);
  return { rows: m.rows, cols: count, data };
}

/** A panel that computes from X refuses Q, K, V or weights, saying which panels show them. */
export function refuseMode(mode) {
  refuse(mode === 'qkv' ? 'panelNeedsXqkv' : 'panelNeedsXweights', {});
}
export { refuse };
