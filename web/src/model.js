// The one input model behind every panel: a sentence (or the author's tokens) split into tokens,
// seeded embeddings X and seeded projections W_Q, W_K, W_V, W_O (or the author's own numbers,
// checked in own-numbers.js), and a mask.
import { givenFields, normalise, withMask } from './config.js';
import { LIMITS } from './limits.js';
import { tokenize } from './tokenize.js';
import { INPUT_KEYS, expectShape, givenTokens, inputMode, ownMatrix, refuse, refuseMode, tokensForRows, widthToDk } from './own-numbers.js';
import { qkvModel, weightsModel } from './own-models.js';
import { hashString, mulberry32, normals, randomMatrix } from './random.js';

// The settings (their defaults, bounds and out-of-range notes) are defined in config.js, the sizes in
// limits.js, the tokenizer in tokenize.js and the author's matrices' checks in matrix-input.js; each
// imports none of the files that use it (this one imports them all and passes them on).
export { normalise, outOfRange, withMask } from './config.js';
export { LIMITS, MAX_SENTENCE } from './limits.js';
export { tokenize } from './tokenize.js';
export { copyMatrixOrNull, parseMatrixText } from './matrix-input.js';

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
