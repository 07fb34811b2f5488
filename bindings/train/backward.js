// The backward family: the gradients of scaled dot-product attention
// O = softmax(mask(QKᵀ · scale)) V with respect to Q, K and V, given dO = ∂L/∂O.
// Two paths (raw calls in ops/backward.cpp): the fused one (default) recomputes
// the weights block by block from each row's log-sum-exp and never forms an n×m
// matrix; the traced one keeps P, dP and dS and returns them as steps.
import { AttentionError, fail } from '../errors.js';
import { checkDotScores } from '../overflow.js';
import { attentionInputs, defaultScale } from '../shapes.js';
import { checkOptions, expectEqual, maskData, shape, toBoolean, toMask, toMatrix, toNumber } from '../validate.js';

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function backwardOps(context) {
  return {
    attentionBackward: (Q, K, V, dO, options) => attentionBackward(context, Q, K, V, dO, options),
  };
}

const d = (x) => `\\mathrm{d}${x}`;

// Each step's title and formula (TeX), in the order the backward computes them.
const BACKWARD_STEPS = {
  dO: ['Output gradient', `${d('O')} = \\frac{\\partial L}{\\partial O}`],
  dV: ['Value gradient', `${d('V')} = P^{\\top} ${d('O')}`],
  dP: ['Weight gradient', `${d('P')} = ${d('O')}\\,V^{\\top}`],
  dS: ['Score gradient', `${d('S')} = P \\circ (${d('P')} - \\operatorname{rowsum}(P \\circ ${d('P')}))`],
  dQ: ['Query gradient', (s) => `${d('Q')} = ${s} \\cdot ${d('S')}\\,K`],
  dK: ['Key gradient', (s) => `${d('K')} = ${s} \\cdot ${d('S')}^{\\top} Q`],
};

/** One backward step record { id, title, formula, matrix }, as the forward trace's steps. */
function backwardStep(id, matrix, scaleTex) {
  const [title, formula] = BACKWARD_STEPS[id];
  return { id, title, formula: typeof formula === 'function' ? formula(scaleTex) : formula, matrix };
}

function attentionBackward(context, Q, K, V, dO, options) {
  const fn = 'attentionBackward';
  const o = checkOptions(fn, options, ['mask', 'scale', 'trace', 'fused']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  const dout = toMatrix(fn, 'dO', dO);
  expectEqual(dout.rows === q.rows && dout.cols === v.cols, true,
    () => `${fn}: dO is ${shape(dout)} but O = softmax(QKᵀ·scale)V is ${q.rows}×${v.cols} (dO must be n×d_v: Q.rows × V.cols)`);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(q.cols)));
  if (!Number.isFinite(scale)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
  checkDotScores(fn, q, k, scale);
  const mask = toMask(fn, o.mask, q.rows, k.rows);
  const trace = toBoolean(fn, 'trace', o.trace);
  const fused = toBoolean(fn, 'fused', o.fused ?? !trace);
  if (trace && fused)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: trace: true needs the path that keeps the weights; drop fused: true to trace`);
  const args = { q, k, v, dout, mask, scale };
  if (fused) return fusedBackward(context, fn, args);
  const scaleTex = o.scale === undefined ? '\\frac{1}{\\sqrt{d_k}}' : String(Number(scale.toPrecision(6)));
  return tracedBackward(context, fn, args, trace, scaleTex);
}

function inputSlots(f, { q, k, v, dout, mask }) {
  return { Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data), dO: f.input(dout.data), mask: f.input(maskData(mask)) };
}

function gradientSlots(f, n, m, dk, dv) {
  return { dQ: f.output(n * dk), dK: f.output(m * dk), dV: f.output(m * dv) };
}

function gradients(f, slots, n, m, dk, dv) {
  return { dQ: f.matrix(slots.dQ, n, dk), dK: f.matrix(slots.dK, m, dk), dV: f.matrix(slots.dV, m, dv) };
}

// The fast path: forward (output and row log-sum-exp) then backward, block by block.
function fusedBackward({ frame }, fn, args) {
  const [n, m, dk, dv] = [args.q.rows, args.k.rows, args.q.cols, args.v.cols];
  const f = frame(fn);
  const inputs = inputSlots(f, args);
  const grads = gradientSlots(f, n, m, dk, dv);
  const [output, lse] = [f.output(n * dv), f.output(n)];
  const scratch = f.output(f.query('fusedBackwardScratchFloats', { n, m, d: dk, dv }));
  f.call('fusedBackward', { ...inputs, n, d: dk, m, dv, maskKind: args.mask.kind, scale: args.scale, output, lse, ...grads, scratch });
  return gradients(f, grads, n, m, dk, dv);
}

// The weights-kept path: P from the forward, then dP and dS as n×m matrices.
function tracedBackward({ frame }, fn, args, trace, scaleTex) {
  const [n, m, dk, dv] = [args.q.rows, args.k.rows, args.q.cols, args.v.cols];
  const f = frame(fn);
  const inputs = inputSlots(f, args);
  const grads = gradientSlots(f, n, m, dk, dv);
  const work = { weights: f.output(n * m), output: f.output(n * dv), dP: f.output(n * m), dS: f.output(n * m) };
  f.call('attentionBackward', { ...inputs, n, d: dk, m, dv, maskKind: args.mask.kind, scale: args.scale, ...work, ...grads });
  const result = gradients(f, grads, n, m, dk, dv);
  if (!trace) return result;
  const dO = { rows: n, cols: dv, data: args.dout.data.slice() };
  const [dP, dS] = [f.matrix(work.dP, n, m), f.matrix(work.dS, n, m)];
  result.steps = [backwardStep('dO', dO), backwardStep('dV', result.dV), backwardStep('dP', dP), backwardStep('dS', dS),
    backwardStep('dQ', result.dQ, scaleTex), backwardStep('dK', result.dK, scaleTex)];
  return result;
}
