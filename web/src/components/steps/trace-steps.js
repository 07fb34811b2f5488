// The steps of <attention-steps>, read from the library's trace: X, then the
// single-head call's steps, or (several heads) the whole call's Q, K, V, the
// chosen head's own steps, concat and the final output. No DOM here.
import { localTex } from '../../format.js';
import { ownResult } from '../../own-trace.js';
import { concatFormula, headFormula, stepsById, traceStepsOf } from '../../trace-view.js';

/** Each single-head step's shape, as TeX. */
const SHAPES = { Q: 'n \\times d_k', K: 'n \\times d_k', V: 'n \\times d_v', scores: 'n \\times n', scaled: 'n \\times n', masked: 'n \\times n', weights: 'n \\times n', output: 'n \\times d_v' };

/** The ordered steps for a model: { result, steps: [{ key, matrix, formula, mask?, shape, head? }], headSteps? }. */
export function traceSteps(lab, model, headIndex = 0) {
  if (model.mode === 'qkv' || model.mode === 'weights') return ownSteps(lab, model, headIndex);
  const { X, Wq, Wk, Wv, Wo, mask, config } = model;
  const input = { key: 'X', matrix: X, formula: 'X', shape: 'n \\times d_{\\text{model}}' };
  if (config.heads === 1) {
    const r = lab.selfAttention(X, { Wq, Wk, Wv, mask, trace: true });
    return { result: r, steps: [input, ...r.steps.map((s) => ({ key: s.id, matrix: s.matrix, formula: s.formula, mask: s.mask, shape: SHAPES[s.id] }))] };
  }
  const r = lab.multiHeadAttention(X, { heads: config.heads, Wq, Wk, Wv, Wo, mask, trace: true });
  const top = stepsById(r.steps);
  const head = Math.min(headIndex, r.heads.length - 1);
  const own = stepsById(traceStepsOf(r, head));
  const steps = [input];
  for (const id of ['Q', 'K', 'V']) steps.push({ key: id, matrix: top[id].matrix, formula: top[id].formula, shape: `n \\times h d_${id === 'V' ? 'v' : 'k'}` });
  for (const id of ['scores', 'scaled', 'masked', 'weights', 'output'])
    // The head's operands are its n×d_k slices Q^{(i)}, K^{(i)}, V^{(i)}: its formulas say so.
    if (own[id]) steps.push({ key: id === 'output' ? 'head-output' : id, matrix: own[id].matrix, formula: headFormula(own[id].formula, head + 1), mask: own[id].mask, shape: id === 'output' ? 'n \\times d_v' : 'n \\times n', head: true });
  steps.push({ key: 'concat', matrix: top.concat.matrix, formula: concatFormula(config.heads), shape: 'n \\times h d_v' });
  steps.push({ key: 'final', matrix: top.output.matrix, formula: top.output.formula, shape: 'n \\times d_{\\text{model}}' });
  return { result: r, steps, headSteps: own };
}

/**
 * The steps of one head's selfAttention trace as the panel lists them (Q, K, V, scores, scaled,
 * masked, weights, output; no X: the reader's trace, reader.attend's `steps[layer][head]`, starts at
 * its projections).
 */
export const headTraceSteps = (trace) => trace.map((s) => ({ key: s.id, matrix: s.matrix, formula: s.formula, mask: s.mask, shape: SHAPES[s.id] }));

/**
 * The steps of the author's own numbers: from Q, K, V given, the scores onwards (several heads: the
 * chosen head's, the concatenation and, with the author's W_O, the output); from weights given, the
 * chosen head's weights alone. Every step is marked `given` where the author's numbers start.
 */
function ownSteps(lab, model, headIndex) {
  const r = ownResult(lab, model);
  const heads = model.config.heads;
  const head = Math.min(headIndex, r.heads.length - 1);
  const several = heads > 1;
  const steps = [];
  for (const s of r.heads[head].steps) {
    if (['Q', 'K', 'V'].includes(s.id)) continue;
    const key = s.id === 'output' && several ? 'head-output' : s.id;
    steps.push({ key, matrix: s.matrix, formula: several ? headFormula(s.formula, head + 1) : s.formula, mask: s.mask, shape: SHAPES[s.id], head: several, given: model.mode === 'weights' });
  }
  const top = stepsById(r.steps);
  if (several && top.concat) steps.push({ key: 'concat', matrix: top.concat.matrix, formula: concatFormula(heads), shape: 'n \\times h d_v' });
  if (several && top.output) steps.push({ key: 'final', matrix: top.output.matrix, formula: top.output.formula, shape: 'n \\times d_{\\text{model}}' });
  return { result: r, steps };
}

/**
 * The index of step `key` among `keys`; a key of the other head count's list stands for its
 * counterpart (one head's 'output' is several heads' 'final' and back), anything else for X.
 */
export function shownIndex(keys, key) {
  const index = keys.indexOf(key);
  if (index >= 0) return index;
  const counterpart = { final: 'output', output: 'final', 'head-output': 'final' }[key] ?? 'X';
  return Math.max(0, keys.indexOf(counterpart));
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** Head `label`'s mark in plain text (names and titles), as the formulas' ^{(2)}: '⁽²⁾'. */
export const headMark = (label) => `⁽${String(label).replace(/\d/g, (d) => SUPERSCRIPT[d])}⁾`;

/** A step's TeX shape with the model's sizes put in: 'n \\times d_k' → '6 \\times 4'. */
export function liveShape(shape, { n, dK, dModel, heads }) {
  return shape
    .replace(/h d_(k|v)/, `${heads}\\cdot ${dK}`)
    .replace(/d_\{\\text\{model\}\}/, String(dModel))
    .replace(/d_(k|v)/, String(dK))
    .replace(/\bn\b/g, String(n));
}

/** A step's formula as shown: its TeX (`where`: the word between formula and condition, translated) and its live shape. */
export function stepTex(step, { n, config: { dK, dModel, heads } }, where) {
  return `${localTex(step.formula, { ' where ': where })} \\qquad \\big[\\, ${step.shape} = ${liveShape(step.shape, { n, dK, dModel, heads })} \\,\\big]`;
}

/** The rows of an n×n visibility mask that see no key at all. */
export function fullyMaskedRows(bits, n) {
  const rows = [];
  if (!bits) return rows;
  for (let i = 0; i < n; i++) if (bits.subarray(i * n, (i + 1) * n).every((b) => b === 0)) rows.push(i);
  return rows;
}
