// The numbers <attention-transformer> shows: its steps, the seeded feed-forward
// weights, and one traced lab.transformerBlock call read into the matrices and
// formulas of each step. No DOM here; the page only computes the row means and
// variances it shows beside the library's LayerNorm output.
import { hashString, randomMatrix } from '../../random.js';
import { stepsById } from '../../trace-view.js';

/** d_ff = FFN_FACTOR · d_model, as in the paper (512 → 2048), … */
export const FFN_FACTOR = 4;
/**
 * … up to FFN_MAX: at 32 tokens and d_model 64 a 4× hidden layer is a 32×256 table, 8,192 cells
 * (four times any other on the page), too many to restyle within a frame on every change; capped,
 * it is 32×128. Below d_model 32 the paper's ratio holds; the page says when it does not.
 */
export const FFN_MAX = 128;

/** The steps in order, each in sublayer 0 (input), 1 (attention) or 2 (feed-forward). */
export const STEPS = [
  { key: 'X', sub: 0 },
  { key: 'attention', sub: 1 },
  { key: 'residual1', sub: 1 },
  { key: 'norm1', sub: 1 },
  { key: 'hidden', sub: 2 },
  { key: 'ffn', sub: 2 },
  { key: 'residual2', sub: 2 },
  { key: 'output', sub: 2 },
];
export const KEYS = STEPS.map((s) => s.key);

/**
 * The seeded feed-forward weights for d_model and a seed: W₁ (d_model×d_ff), b₁ (d_ff),
 * W₂ (d_ff×d_model), b₂ (d_model). Streams named apart from model.js's W_Q…W_O.
 */
export function ffnWeights(dModel, seed) {
  const dFf = Math.min(FFN_FACTOR * dModel, FFN_MAX);
  const stream = (name) => hashString(`transformer:${name}:${seed}`);
  return {
    dFf,
    W1: randomMatrix(dModel, dFf, stream('W1'), 1 / Math.sqrt(dModel)),
    b1: randomMatrix(1, dFf, stream('b1'), 0.1).data,
    W2: randomMatrix(dFf, dModel, stream('W2'), 1 / Math.sqrt(dFf)),
    b2: randomMatrix(1, dModel, stream('b2'), 0.1).data,
  };
}

/** `positional` attribute: absent, "false", "off" or "0" → off; present (any other value) → on. */
export function positionalOn(value) {
  if (value === null || value === undefined) return false;
  return !['false', 'off', '0', 'no'].includes(String(value).trim().toLowerCase());
}

/** Mean and (population) variance of each row of M: a display of the library's numbers. */
export function rowStats(M) {
  const out = [];
  for (let i = 0; i < M.rows; i++) {
    let sum = 0;
    for (let j = 0; j < M.cols; j++) sum += M.data[i * M.cols + j];
    const mean = sum / M.cols;
    let sq = 0;
    for (let j = 0; j < M.cols; j++) sq += (M.data[i * M.cols + j] - mean) ** 2;
    out.push({ mean, variance: sq / M.cols });
  }
  return out;
}

/** The visibility bits of the input model's mask (an input: which keys each query may see). */
function maskBits(mask, n) {
  if (!mask) return undefined;
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) bits[i * n + j] = mask === 'causal' ? (j <= i ? 1 : 0) : j < mask.validLens ? 1 : 0;
  return bits;
}

/**
 * One traced block on the model's X (plus P when `positional`): { model, positional, ffn, result,
 * matrices, formulas, bits, stats }, matrices and formulas keyed by step (X, attention, …, output).
 */
export function traceBlock(lab, model, positional, ffn) {
  // With positions, X = X_emb·√d_model + P, as Dive into Deep Learning's encoder (10.7) computes it.
  const scale = Math.sqrt(model.config.dModel);
  const X = positional ? lab.addPositionalEncoding(model.X, { scale }) : model.X;
  const { Wq, Wk, Wv, Wo, mask } = model;
  const result = lab.transformerBlock(X, { heads: model.config.heads, Wq, Wk, Wv, Wo, W1: ffn.W1, b1: ffn.b1, W2: ffn.W2, b2: ffn.b2, mask, trace: true });
  const byId = stepsById(result.steps);
  const later = KEYS.slice(1);
  const matrices = { X, ...Object.fromEntries(later.map((k) => [k, byId[k].matrix])) };
  const formulas = { X: positional ? 'X = X_{\\text{emb}}\\sqrt{d_{\\text{model}}} + P' : 'X', ...Object.fromEntries(later.map((k) => [k, byId[k].formula])) };
  const sizes = positional ? embeddingSizes(lab, model, X, scale) : null;
  return { model, positional, ffn, result, matrices, formulas, sizes, bits: maskBits(mask, model.n), stats: {} };
}

/** The root mean square of a matrix's entries (0 for an empty one). */
export function rms(M) {
  let sum = 0;
  for (let k = 0; k < M.data.length; k++) sum += M.data[k] * M.data[k];
  return M.data.length ? Math.sqrt(sum / M.data.length) : 0;
}

/**
 * How big the embeddings, P and the block input are, for the note on the √d_model scaling:
 * { scale, embeddings, P, X }, root mean squares of the seeded X_emb, of the library's P, and of
 * the library's X = X_emb·√d_model + P.
 */
export function embeddingSizes(lab, model, X, scale) {
  const P = lab.positionalEncoding(model.n, model.config.dModel);
  return { scale, embeddings: rms(model.X), P: rms(P), X: rms(X) };
}

/** Row statistics of a step's matrix (computed once per trace). */
export function statsOf(c, key) {
  return (c.stats[key] ??= rowStats(c.matrices[key]));
}
