// The public API, built on the raw embind functions of one loaded module.
// Each function: check options and shapes (throwing AttentionError with
// the sizes), lay out one workspace, copy inputs in, call the core, copy the
// results out. The caller owns every returned object.
import { AttentionError, fail } from './errors.js';
import { step } from './steps.js';
import { MaskKind, checkOptions, toBoolean, toCount, expectEqual, shape, toMask, toMatrix, toNumber, toPositiveInteger, toVector } from './validate.js';
import { checkFiniteResult, checkScoreBound, frobenius, maxRowNorm } from './overflow.js';
import { Layout, Workspace } from './workspace.js';

/** The most memory a module may grow to (set at link time: -sMAXIMUM_MEMORY). */
export const MEMORY_LIMIT = 1024 * 1024 * 1024;

const KERNELS = { gaussian: 0, boxcar: 1, epanechnikov: 2, constant: 3 };

/** 1/√d rounded to float32 once, as the core computes it. */
export const defaultScale = (d) => (d > 0 ? Math.fround(1 / Math.sqrt(d)) : 1);

// One call's inputs and outputs inside the workspace. Slots are byte offsets
// until run() reserves the block; addr() then gives heap addresses.
class Frame {
  constructor(workspace, fn) {
    this.workspace = workspace;
    this.fn = fn;
    this.layout = new Layout();
    this.inputs = [];
    this.base = 0;
  }
  input(data) {
    if (!data) return null;
    const slot = { offset: data instanceof Uint8Array ? this.layout.u8(data.length) : this.layout.f32(data.length) };
    this.inputs.push([slot, data]);
    return slot;
  }
  output(count, wanted = true) {
    return wanted ? { offset: this.layout.f32(count) } : null;
  }
  run() {
    this.base = this.workspace.reserve(this.fn, this.layout.bytes);
    for (const [slot, data] of this.inputs) this.workspace.write(this.addr(slot), data);
  }
  addr(slot) {
    return slot ? this.base + slot.offset : 0;
  }
  matrix(slot, rows, cols) {
    if (!slot) return null;
    const m = this.workspace.readMatrix(this.addr(slot), rows, cols);
    checkFiniteResult(this.fn, m.data);
    return m;
  }
  check(status) {
    if (status !== 0)
      fail(AttentionError.codes.INTERNAL, `${this.fn}: the core rejected arguments the JS layer accepted (status ${status}); please report this`);
  }
}

/** Columns [first, first + count) of a matrix, as a fresh matrix. */
function columns(m, first, count) {
  const data = new Float32Array(m.rows * count);
  for (let i = 0; i < m.rows; i++) data.set(m.data.subarray(i * m.cols + first, i * m.cols + first + count), i * count);
  return { rows: m.rows, cols: count, data };
}

/** The n×m visibility bits (1 = may attend) of a checked mask. */
function maskBits(mask, n, m) {
  if (mask.kind === MaskKind.matrix) return mask.bits.slice();
  const bits = new Uint8Array(n * m);
  for (let i = 0; i < n; i++) {
    const end = mask.kind === MaskKind.causal ? Math.min(i + 1, m) : mask.kind === MaskKind.validLens ? mask.lens[i] : m;
    bits.fill(1, i * m, i * m + end);
  }
  return bits;
}

const maskData = (mask) => mask.lens ?? mask.bits ?? null;

function requireOption(fn, options, name) {
  if (options[name] === undefined) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: options.${name} is required`);
  return options[name];
}

export function createApi(module, { simd }) {
  const workspace = new Workspace(module, MEMORY_LIMIT);
  const allocate = (fn, bytes) => workspace.allocateBlock(fn, bytes);

  function matmul(A, B) {
    const fn = 'matmul';
    const a = toMatrix(fn, 'A', A);
    const b = toMatrix(fn, 'B', B);
    expectEqual(a.cols, b.rows, () => `${fn}: A is ${shape(a)} but B is ${shape(b)} (A.cols must equal B.rows)`);
    const f = new Frame(workspace, fn);
    const [sa, sb, sc] = [f.input(a.data), f.input(b.data), f.output(a.rows * b.cols)];
    f.run();
    f.check(module._matmul(f.addr(sa), a.rows, a.cols, f.addr(sb), b.cols, f.addr(sc)));
    return f.matrix(sc, a.rows, b.cols);
  }

  function softmax(S, options) {
    const fn = 'softmax';
    const o = checkOptions(fn, options, ['mask']);
    const s = toMatrix(fn, 'S', S);
    const mask = toMask(fn, o.mask, s.rows, s.cols);
    const f = new Frame(workspace, fn);
    const [ss, sm, sw] = [f.input(s.data), f.input(maskData(mask)), f.output(s.rows * s.cols)];
    f.run();
    f.check(module._softmax(f.addr(ss), s.rows, s.cols, mask.kind, f.addr(sm), f.addr(sw), 0));
    return f.matrix(sw, s.rows, s.cols);
  }

  // |q_i·k_j| <= ‖q_i‖‖k_j‖: the raw and the scaled scores both stay in float32's range.
  function checkDotScores(fn, q, k, scale) {
    const [nq, nk] = [maxRowNorm(q), maxRowNorm(k)];
    checkScoreBound(fn, nq * nk * Math.max(1, Math.abs(scale)), () => `rows of Q with norm up to ${nq.toExponential(2)} and of K up to ${nk.toExponential(2)}`);
  }

  // Projected queries and keys: ‖x W‖ <= ‖x‖ ‖W‖_F, so the scores of q = xW_Q, k = xW_K are bounded too.
  function checkProjectedScores(fn, x, wq, wk, scale, wv) {
    const nx = maxRowNorm(x);
    for (const [name, w] of [['Wq', wq], ['Wk', wk], ['Wv', wv]])
      checkScoreBound(fn, nx * frobenius(w), () => `rows of X with norm up to ${nx.toExponential(2)} and ${name} of norm ${frobenius(w).toExponential(2)} (projections)`);
    checkScoreBound(fn, nx * nx * frobenius(wq) * frobenius(wk) * Math.max(1, scale),
      () => `rows of X with norm up to ${nx.toExponential(2)} and Wq, Wk of norms ${frobenius(wq).toExponential(2)}, ${frobenius(wk).toExponential(2)}`);
  }

  // Weights, output and the optional trace buffers shared by every attention form.
  function poolingSlots(f, n, m, dv, mask, trace, scaled) {
    return {
      weights: f.output(n * m),
      out: f.output(n * dv),
      scores: f.output(n * m, trace),
      scaled: f.output(n * m, trace && scaled),
      masked: f.output(n * m, trace && mask.kind !== MaskKind.none),
    };
  }

  // The trace steps from scores to output, in computation order.
  function poolingSteps(f, slots, n, m, mask, family, result, extra = {}) {
    const steps = [step('scores', f.matrix(slots.scores, n, m), family)];
    if (slots.scaled) steps.push(step('scaled', f.matrix(slots.scaled, n, m), family, extra));
    if (slots.masked) steps.push(step('masked', f.matrix(slots.masked, n, m), family, { mask: maskBits(mask, n, m) }));
    steps.push(step('weights', result.weights, family), step('output', result.output, family));
    return steps;
  }

  function scaledDotProductAttention(Q, K, V, options) {
    const fn = 'scaledDotProductAttention';
    const o = checkOptions(fn, options, ['mask', 'scale', 'trace', 'weights']);
    const [q, k, v] = [toMatrix(fn, 'Q', Q), toMatrix(fn, 'K', K), toMatrix(fn, 'V', V)];
    expectEqual(q.cols, k.cols, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (Q.cols must equal K.cols)`);
    expectEqual(k.rows, v.rows, () => `${fn}: K is ${shape(k)} but V is ${shape(v)} (K.rows must equal V.rows: one value per key)`);
    const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
    const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(d)));
    if (!Number.isFinite(scale)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
    checkDotScores(fn, q, k, scale);
    const mask = toMask(fn, o.mask, n, m);
    const trace = toBoolean(fn, 'trace', o.trace);
    if (!toBoolean(fn, 'weights', o.weights ?? true)) {
      if (trace) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: trace: true needs the weights; drop weights: false to trace`);
      return fusedAttention(fn, q, k, v, mask, scale);
    }
    const f = new Frame(workspace, fn);
    const [sq, sk, sv, sm] = [f.input(q.data), f.input(k.data), f.input(v.data), f.input(maskData(mask))];
    const slots = poolingSlots(f, n, m, dv, mask, trace, true);
    f.run();
    f.check(module._scaledDotProduct(f.addr(sq), n, d, f.addr(sk), m, f.addr(sv), dv, mask.kind, f.addr(sm), scale,
      f.addr(slots.weights), f.addr(slots.out), f.addr(slots.scores), f.addr(slots.scaled), f.addr(slots.masked)));
    const result = { output: f.matrix(slots.out, n, dv), weights: f.matrix(slots.weights, n, m) };
    const custom = o.scale !== undefined ? { scale } : {};
    if (trace) result.steps = poolingSteps(f, slots, n, m, mask, 'dot', result, custom);
    return result;
  }

  // The fast path: output only, block by block, no n×m matrix anywhere.
  function fusedAttention(fn, q, k, v, mask, scale) {
    const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
    const f = new Frame(workspace, fn);
    const [sq, sk, sv, sm] = [f.input(q.data), f.input(k.data), f.input(v.data), f.input(maskData(mask))];
    const [out, scratch] = [f.output(n * dv), f.output(module._fusedScratchFloats(m, d, dv))];
    f.run();
    f.check(module._fused(f.addr(sq), n, d, f.addr(sk), m, f.addr(sv), dv, mask.kind, f.addr(sm), scale, f.addr(out), f.addr(scratch)));
    return { output: f.matrix(out, n, dv) };
  }

  function additiveAttention(Q, K, V, options) {
    const fn = 'additiveAttention';
    const o = checkOptions(fn, options, ['Wq', 'Wk', 'wv', 'mask', 'trace']);
    const [q, k, v] = [toMatrix(fn, 'Q', Q), toMatrix(fn, 'K', K), toMatrix(fn, 'V', V)];
    const wq = toMatrix(fn, 'Wq', requireOption(fn, o, 'Wq'));
    const wk = toMatrix(fn, 'Wk', requireOption(fn, o, 'Wk'));
    const wv = toVector(fn, 'wv', requireOption(fn, o, 'wv'));
    expectEqual(k.rows, v.rows, () => `${fn}: K is ${shape(k)} but V is ${shape(v)} (K.rows must equal V.rows: one value per key)`);
    expectEqual(wq.rows, q.cols, () => `${fn}: Q is ${shape(q)} but Wq is ${shape(wq)} (Wq.rows must equal Q.cols)`);
    expectEqual(wk.rows, k.cols, () => `${fn}: K is ${shape(k)} but Wk is ${shape(wk)} (Wk.rows must equal K.cols)`);
    expectEqual(wk.cols, wq.cols, () => `${fn}: Wq is ${shape(wq)} but Wk is ${shape(wk)} (both map into the same hidden size h)`);
    expectEqual(wv.length, wq.cols, () => `${fn}: wv has ${wv.length} entries but the hidden size h is ${wq.cols} (Wq.cols)`);
    const [n, m, h, dv] = [q.rows, k.rows, wq.cols, v.cols];
    const wvSum = wv.reduce((sum, x) => sum + Math.abs(x), 0);
    checkScoreBound(fn, wvSum, () => `wv with Σ|wv| = ${wvSum.toExponential(2)} (|w_vᵀ tanh(·)| <= Σ|wv|)`);
    const mask = toMask(fn, o.mask, n, m);
    const trace = toBoolean(fn, 'trace', o.trace);
    const f = new Frame(workspace, fn);
    const [sq, sk, sv, swq, swk, swv, sm] = [q.data, k.data, v.data, wq.data, wk.data, wv, maskData(mask)].map((x) => f.input(x));
    const scratch = f.output((n + m) * h);
    const slots = poolingSlots(f, n, m, dv, mask, trace, false);
    f.run();
    f.check(module._additive(f.addr(sq), n, q.cols, f.addr(sk), m, k.cols, f.addr(sv), dv, f.addr(swq), f.addr(swk), f.addr(swv), h,
      mask.kind, f.addr(sm), f.addr(scratch), f.addr(slots.weights), f.addr(slots.out), f.addr(slots.scores), f.addr(slots.masked)));
    const result = { output: f.matrix(slots.out, n, dv), weights: f.matrix(slots.weights, n, m) };
    if (trace) result.steps = poolingSteps(f, slots, n, m, mask, 'additive', result);
    return result;
  }

  // Q, K, V projection weights: each d_model × width, the first two alike.
  // d_model is X.cols, or Wq.rows for a layer created without an X.
  function projectionWeights(fn, o, x) {
    const [wq, wk, wv] = ['Wq', 'Wk', 'Wv'].map((name) => toMatrix(fn, name, requireOption(fn, o, name)));
    for (const [name, w] of [['Wq', wq], ['Wk', wk], ['Wv', wv]]) {
      if (x) expectEqual(w.rows, x.cols, () => `${fn}: X is ${shape(x)} but ${name} is ${shape(w)} (${name}.rows must equal X.cols, d_model)`);
      else expectEqual(w.rows, wq.rows, () => `${fn}: Wq is ${shape(wq)} but ${name} is ${shape(w)} (${name}.rows must equal Wq.rows, d_model)`);
    }
    expectEqual(wk.cols, wq.cols, () => `${fn}: Wq is ${shape(wq)} but Wk is ${shape(wk)} (queries and keys need the same width d_k)`);
    return [wq, wk, wv];
  }

  // heads, W_Q, W_K, W_V, W_O of a multi-head layer, checked against each other (and X when given).
  function multiHeadWeights(fn, o, x) {
    const heads = toPositiveInteger(fn, 'heads', requireOption(fn, o, 'heads'));
    const [wq, wk, wv] = projectionWeights(fn, o, x);
    const wo = toMatrix(fn, 'Wo', requireOption(fn, o, 'Wo'));
    for (const [name, w] of [['Wq', wq], ['Wv', wv]])
      if (w.cols % heads !== 0)
        fail(AttentionError.codes.SHAPE_MISMATCH, `${fn}: ${name} is ${shape(w)} but ${heads} heads do not divide its ${w.cols} columns (${name}.cols must be a multiple of heads)`);
    expectEqual(wo.rows, wv.cols, () => `${fn}: Wv is ${shape(wv)} but Wo is ${shape(wo)} (Wo.rows must equal Wv.cols, the concatenated head width)`);
    return { heads, wq, wk, wv, wo };
  }

  function selfAttention(X, options) {
    const fn = 'selfAttention';
    const o = checkOptions(fn, options, ['Wq', 'Wk', 'Wv', 'mask', 'trace']);
    const x = toMatrix(fn, 'X', X);
    const [wq, wk, wv] = projectionWeights(fn, o, x);
    const [n, dk, dv] = [x.rows, wq.cols, wv.cols];
    checkProjectedScores(fn, x, wq, wk, defaultScale(dk), wv);
    const mask = toMask(fn, o.mask, n, n);
    const trace = toBoolean(fn, 'trace', o.trace);
    const f = new Frame(workspace, fn);
    const [sx, swq, swk, swv, sm] = [x.data, wq.data, wk.data, wv.data, maskData(mask)].map((a) => f.input(a));
    const [pq, pk, pv] = [f.output(n * dk), f.output(n * dk), f.output(n * dv)];
    const slots = poolingSlots(f, n, n, dv, mask, trace, true);
    f.run();
    f.check(module._selfAttention(f.addr(sx), n, x.cols, f.addr(swq), f.addr(swk), f.addr(swv), dk, dv, mask.kind, f.addr(sm),
      f.addr(pq), f.addr(pk), f.addr(pv), f.addr(slots.weights), f.addr(slots.out), f.addr(slots.scores), f.addr(slots.scaled), f.addr(slots.masked)));
    const result = { output: f.matrix(slots.out, n, dv), weights: f.matrix(slots.weights, n, n) };
    if (trace)
      result.steps = [step('Q', f.matrix(pq, n, dk)), step('K', f.matrix(pk, n, dk)), step('V', f.matrix(pv, n, dv)),
        ...poolingSteps(f, slots, n, n, mask, 'dot', result)];
    return result;
  }

  function multiHeadAttention(X, options) {
    const fn = 'multiHeadAttention';
    const o = checkOptions(fn, options, ['heads', 'Wq', 'Wk', 'Wv', 'Wo', 'mask', 'trace']);
    const x = toMatrix(fn, 'X', X);
    const { heads, wq, wk, wv, wo } = multiHeadWeights(fn, o, x);
    const [n, dkAll, dvAll, dOut] = [x.rows, wq.cols, wv.cols, wo.cols];
    const [dk, dv] = [dkAll / heads, dvAll / heads];
    checkProjectedScores(fn, x, wq, wk, defaultScale(dk), wv);
    const mask = toMask(fn, o.mask, n, n);
    const trace = toBoolean(fn, 'trace', o.trace);
    const f = new Frame(workspace, fn);
    const [sx, swq, swk, swv, swo, sm] = [x.data, wq.data, wk.data, wv.data, wo.data, maskData(mask)].map((a) => f.input(a));
    const [pq, pk, pv] = [f.output(n * dkAll), f.output(n * dkAll), f.output(n * dvAll)];
    const [weights, concat, out] = [f.output(heads * n * n), f.output(n * dvAll), f.output(n * dOut)];
    const [scores, scaled] = [f.output(heads * n * n, trace), f.output(heads * n * n, trace)];
    const masked = f.output(heads * n * n, trace && mask.kind !== MaskKind.none);
    f.run();
    f.check(module._multiHead(f.addr(sx), n, x.cols, heads, f.addr(swq), f.addr(swk), f.addr(swv), dkAll, dvAll, f.addr(swo), dOut,
      mask.kind, f.addr(sm), f.addr(pq), f.addr(pk), f.addr(pv), f.addr(weights), f.addr(concat), f.addr(out),
      f.addr(scores), f.addr(scaled), f.addr(masked)));
    const headBlock = (slot, h) => slot && { offset: slot.offset + h * n * n * 4 };
    const result = { output: f.matrix(out, n, dOut), concat: f.matrix(concat, n, dvAll), heads: [] };
    const [allQ, allK, allV] = trace ? [f.matrix(pq, n, dkAll), f.matrix(pk, n, dkAll), f.matrix(pv, n, dvAll)] : [];
    for (let h = 0; h < heads; h++) {
      const head = { output: columns(result.concat, h * dv, dv), weights: f.matrix(headBlock(weights, h), n, n) };
      if (trace) {
        const slots = { scores: headBlock(scores, h), scaled: headBlock(scaled, h), masked: headBlock(masked, h) };
        head.steps = [step('Q', columns(allQ, h * dk, dk)), step('K', columns(allK, h * dk, dk)), step('V', columns(allV, h * dv, dv)),
          ...poolingSteps(f, slots, n, n, mask, 'dot', head)];
      }
      result.heads.push(head);
    }
    if (trace)
      result.steps = [step('Q', allQ), step('K', allK), step('V', allV), step('concat', result.concat),
        step('output', result.output, 'multiHead')];
    return result;
  }

  // A vector option of a given length (`what` names it, e.g. "d_ff = W1.cols"), or `fill` repeated when it is absent.
  function vectorOption(fn, o, name, length, what, fill) {
    if (o[name] === undefined) return new Float32Array(length).fill(fill);
    const v = toVector(fn, name, o[name]);
    expectEqual(v.length, length, () => `${fn}: ${name} has ${v.length} values but must have ${what} = ${length}`);
    return v;
  }

  // The buffers of the Transformer block, in the order bindings.cpp's TransformerSlot lists them.
  const TRANSFORMER_SLOTS = ['X', 'Wq', 'Wk', 'Wv', 'Wo', 'W1', 'b1', 'W2', 'b2', 'gamma1', 'beta1', 'gamma2', 'beta2',
    'Q', 'K', 'V', 'weights', 'concat', 'attention', 'sum1', 'norm1', 'hidden', 'ffn', 'sum2', 'output'];

  function transformerBlock(X, options) {
    const fn = 'transformerBlock';
    const o = checkOptions(fn, options, ['heads', 'Wq', 'Wk', 'Wv', 'Wo', 'W1', 'b1', 'W2', 'b2', 'gamma1', 'beta1', 'gamma2', 'beta2', 'epsilon', 'mask', 'trace']);
    const x = toMatrix(fn, 'X', X);
    const { heads, wq, wk, wv, wo } = multiHeadWeights(fn, o, x);
    const [n, dModel, dkAll, dvAll] = [x.rows, x.cols, wq.cols, wv.cols];
    expectEqual(wo.cols, dModel, () => `${fn}: X is ${shape(x)} but Wo is ${shape(wo)} (Wo.cols must equal d_model = X.cols for the residual connection)`);
    const w1 = toMatrix(fn, 'W1', requireOption(fn, o, 'W1'));
    const w2 = toMatrix(fn, 'W2', requireOption(fn, o, 'W2'));
    expectEqual(w1.rows, dModel, () => `${fn}: X is ${shape(x)} but W1 is ${shape(w1)} (W1.rows must equal d_model = X.cols)`);
    expectEqual(w2.rows, w1.cols, () => `${fn}: W1 is ${shape(w1)} but W2 is ${shape(w2)} (W2.rows must equal d_ff = W1.cols)`);
    expectEqual(w2.cols, dModel, () => `${fn}: X is ${shape(x)} but W2 is ${shape(w2)} (W2.cols must equal d_model = X.cols for the residual connection)`);
    const dFf = w1.cols;
    const vectors = {
      b1: vectorOption(fn, o, 'b1', dFf, 'd_ff (W1.cols)', 0), b2: vectorOption(fn, o, 'b2', dModel, 'd_model (X.cols)', 0),
      gamma1: vectorOption(fn, o, 'gamma1', dModel, 'd_model (X.cols)', 1), beta1: vectorOption(fn, o, 'beta1', dModel, 'd_model (X.cols)', 0),
      gamma2: vectorOption(fn, o, 'gamma2', dModel, 'd_model (X.cols)', 1), beta2: vectorOption(fn, o, 'beta2', dModel, 'd_model (X.cols)', 0),
    };
    const epsilon = Math.fround(toNumber(fn, 'epsilon', o.epsilon, 1e-5));
    if (!(epsilon > 0) || epsilon === Infinity)
      fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: epsilon must be a positive number within float32 range, got ${o.epsilon}`);
    checkProjectedScores(fn, x, wq, wk, defaultScale(dkAll / heads), wv);
    const mask = toMask(fn, o.mask, n, n);
    const trace = toBoolean(fn, 'trace', o.trace);
    const f = new Frame(workspace, fn);
    const slots = {
      X: f.input(x.data), Wq: f.input(wq.data), Wk: f.input(wk.data), Wv: f.input(wv.data), Wo: f.input(wo.data),
      W1: f.input(w1.data), W2: f.input(w2.data), ...Object.fromEntries(Object.entries(vectors).map(([k, v]) => [k, f.input(v)])),
      Q: f.output(n * dkAll), K: f.output(n * dkAll), V: f.output(n * dvAll), weights: f.output(heads * n * n),
      concat: f.output(n * dvAll), attention: f.output(n * dModel), sum1: f.output(n * dModel), norm1: f.output(n * dModel),
      hidden: f.output(n * dFf), ffn: f.output(n * dModel), sum2: f.output(n * dModel), output: f.output(n * dModel),
    };
    const [table, sm] = [f.output(TRANSFORMER_SLOTS.length), f.input(maskData(mask))];
    f.run();
    workspace.write(f.addr(table), Int32Array.from(TRANSFORMER_SLOTS, (name) => f.addr(slots[name])));
    f.check(module._transformerBlock(f.addr(table), n, dModel, heads, dkAll, dvAll, dFf, epsilon, mask.kind, f.addr(sm)));
    const read = (name, cols) => f.matrix(slots[name], n, cols);
    const result = { output: read('output', dModel) };
    if (!trace) return result;
    const [q, k, v, concat] = [read('Q', dkAll), read('K', dkAll), read('V', dvAll), read('concat', dvAll)];
    const [dk, dv] = [dkAll / heads, dvAll / heads];
    result.heads = Array.from({ length: heads }, (_, h) => ({
      weights: f.matrix({ offset: slots.weights.offset + h * n * n * 4 }, n, n),
      output: columns(concat, h * dv, dv),
      Q: columns(q, h * dk, dk), K: columns(k, h * dk, dk), V: columns(v, h * dv, dv),
    }));
    result.steps = [step('Q', q), step('K', k), step('V', v), step('concat', concat),
      step('attention', read('attention', dModel), 'transformer'), step('residual1', read('sum1', dModel), 'transformer'),
      step('norm1', read('norm1', dModel), 'transformer'), step('hidden', read('hidden', dFf), 'transformer'),
      step('ffn', read('ffn', dModel), 'transformer'), step('residual2', read('sum2', dModel), 'transformer'),
      step('output', result.output, 'transformer')];
    return result;
  }

  // ---- efficient variants: O(n·w·d), O(n·d²), O(n·k·d) instead of O(n²·d)

  // Q, K, V of an attention call: Q and K the same width, K and V the same rows.
  function attentionInputs(fn, Q, K, V) {
    const [q, k, v] = [toMatrix(fn, 'Q', Q), toMatrix(fn, 'K', K), toMatrix(fn, 'V', V)];
    expectEqual(q.cols, k.cols, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (Q.cols must equal K.cols)`);
    expectEqual(k.rows, v.rows, () => `${fn}: K is ${shape(k)} but V is ${shape(v)} (K.rows must equal V.rows: one value per key)`);
    return [q, k, v];
  }

  // The traced variants return the dense weights, so they stay small.
  const MAX_TRACED_WEIGHTS = 4 * 1024 * 1024;
  function tracedWeights(fn, trace, rows, cols) {
    if (trace && rows * cols > MAX_TRACED_WEIGHTS)
      fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: trace: true returns the ${rows}×${cols} weights, more than ${MAX_TRACED_WEIGHTS} entries; trace smaller inputs`);
    return toBoolean(fn, 'trace', trace);
  }

  function localAttention(Q, K, V, options) {
    const fn = 'localAttention';
    const o = checkOptions(fn, options, ['window', 'causal', 'scale', 'trace']);
    const [q, k, v] = attentionInputs(fn, Q, K, V);
    expectEqual(k.rows, q.rows, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (local attention is self-attention: Q.rows must equal K.rows)`);
    const window = toPositiveInteger(fn, 'window', requireOption(fn, o, 'window'));
    const causal = toBoolean(fn, 'causal', o.causal);
    const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(q.cols)));
    const [n, d, dv] = [q.rows, q.cols, v.cols];
    checkDotScores(fn, q, k, scale);
    const trace = tracedWeights(fn, o.trace, n, n);
    const f = new Frame(workspace, fn);
    const [sq, sk, sv] = [f.input(q.data), f.input(k.data), f.input(v.data)];
    const [out, weights] = [f.output(n * dv), f.output(n * n, trace)];
    f.run();
    f.check(module._local(f.addr(sq), n, d, f.addr(sk), f.addr(sv), dv, Math.min(window, 0x7fffffff), causal, scale, f.addr(out), f.addr(weights)));
    return trace ? { output: f.matrix(out, n, dv), weights: f.matrix(weights, n, n) } : { output: f.matrix(out, n, dv) };
  }

  function linearAttention(Q, K, V, options) {
    const fn = 'linearAttention';
    const o = checkOptions(fn, options, ['causal', 'trace']);
    const [q, k, v] = attentionInputs(fn, Q, K, V);
    const causal = toBoolean(fn, 'causal', o.causal);
    if (causal) expectEqual(k.rows, q.rows, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (causal needs one key per query: Q.rows must equal K.rows)`);
    const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
    const trace = tracedWeights(fn, o.trace, n, m);
    const f = new Frame(workspace, fn);
    const [sq, sk, sv] = [f.input(q.data), f.input(k.data), f.input(v.data)];
    const [out, scratch, weights] = [f.output(n * dv), f.output(module._linearScratchFloats(d, dv)), f.output(n * m, trace)];
    f.run();
    f.check(module._linear(f.addr(sq), n, d, f.addr(sk), m, f.addr(sv), dv, causal, f.addr(out), f.addr(scratch), f.addr(weights)));
    return trace ? { output: f.matrix(out, n, dv), weights: f.matrix(weights, n, m) } : { output: f.matrix(out, n, dv) };
  }

  function linformerAttention(Q, K, V, options) {
    const fn = 'linformerAttention';
    const o = checkOptions(fn, options, ['E', 'F', 'scale', 'trace']);
    const [q, k, v] = attentionInputs(fn, Q, K, V);
    const [e, fm] = ['E', 'F'].map((name) => toMatrix(fn, name, requireOption(fn, o, name)));
    const [n, m, d, dv, p] = [q.rows, k.rows, q.cols, v.cols, e.rows];
    expectEqual(e.cols, m, () => `${fn}: K is ${shape(k)} but E is ${shape(e)} (E.cols must equal K.rows: E projects the keys)`);
    expectEqual(fm.rows === p && fm.cols === m, true, () => `${fn}: E is ${shape(e)} but F is ${shape(fm)} (F must have E's shape, p×m)`);
    if (p === 0) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: E is ${shape(e)}; the projected length p = E.rows must be at least 1`);
    const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(d)));
    const [nq, ne, nk] = [maxRowNorm(q), frobenius(e), frobenius(k)];
    checkScoreBound(fn, nq * ne * nk * Math.max(1, Math.abs(scale)), () => `Q rows up to ${nq.toExponential(2)}, ‖E‖ = ${ne.toExponential(2)} and ‖K‖ = ${nk.toExponential(2)}`);
    const trace = tracedWeights(fn, o.trace, n, p);
    const f = new Frame(workspace, fn);
    const [sq, sk, sv, se, sf] = [q.data, k.data, v.data, e.data, fm.data].map((a) => f.input(a));
    const [out, scratch, weights] = [f.output(n * dv), f.output(module._linformerScratchFloats(p, d, dv)), f.output(n * p, trace)];
    f.run();
    f.check(module._linformer(f.addr(sq), n, d, f.addr(sk), m, f.addr(sv), dv, f.addr(se), f.addr(sf), p, scale, f.addr(out), f.addr(scratch), f.addr(weights)));
    return trace ? { output: f.matrix(out, n, dv), weights: f.matrix(weights, n, p) } : { output: f.matrix(out, n, dv) };
  }

  // Packed layers free their WASM memory when garbage-collected, if not disposed first.
  const layers = new FinalizationRegistry((storage) => module._free(storage));

  function createMultiHeadAttention(options) {
    const fn = 'createMultiHeadAttention';
    const o = checkOptions(fn, options, ['heads', 'Wq', 'Wk', 'Wv', 'Wo']);
    // Copies: the layer must not change when the caller later edits its arrays.
    const { heads, ...given } = multiHeadWeights(fn, o, null);
    const [wq, wk, wv, wo] = [given.wq, given.wk, given.wv, given.wo].map((w) => ({ ...w, data: w.data.slice() }));
    const dims = [wq.rows, heads, wq.cols / heads, wv.cols / heads, wo.cols];
    const storage = allocate(fn, module._layerFloats(...dims) * 4);
    try {
      const f = new Frame(workspace, fn);
      const [swq, swk, swv, swo] = [wq.data, wk.data, wv.data, wo.data].map((a) => f.input(a));
      f.run();
      f.check(module._packLayer(f.addr(swq), f.addr(swk), f.addr(swv), wq.rows, wq.cols, wv.cols, f.addr(swo), wo.cols, heads, storage));
    } catch (error) {
      module._free(storage);
      throw error;
    }
    let disposed = false;
    const layer = {
      heads,
      dModel: wq.rows,
      dOut: wo.cols,
      forward(X, forwardOptions) {
        const fwd = 'MultiHeadAttention.forward';
        if (disposed) fail(AttentionError.codes.DISPOSED, `${fwd}: this layer was disposed; create a new one`);
        const fo = checkOptions(fwd, forwardOptions, ['mask', 'trace']);
        const x = toMatrix(fwd, 'X', X);
        expectEqual(x.cols, wq.rows, () => `${fwd}: X is ${shape(x)} but the layer's d_model is ${wq.rows} (X.cols must equal Wq.rows)`);
        if (fo.trace) return multiHeadAttention(x, { heads, Wq: wq, Wk: wk, Wv: wv, Wo: wo, mask: fo.mask, trace: true });
        const n = x.rows;
        checkProjectedScores(fwd, x, wq, wk, defaultScale(dims[2]), wv);
        const mask = toMask(fwd, fo.mask, n, n);
        const f = new Frame(workspace, fwd);
        const [sx, sm] = [f.input(x.data), f.input(maskData(mask))];
        const [concat, out, scratch] = [f.output(n * wv.cols), f.output(n * wo.cols), f.output(module._layerForwardFloats(...dims, n))];
        f.run();
        f.check(module._layerForward(storage, ...dims, f.addr(sx), n, mask.kind, f.addr(sm), f.addr(concat), f.addr(out), f.addr(scratch)));
        return { output: f.matrix(out, n, wo.cols), concat: f.matrix(concat, n, wv.cols) };
      },
      dispose() {
        if (disposed) return;
        disposed = true;
        layers.unregister(layer);
        module._free(storage);
      },
    };
    layers.register(layer, storage, layer);
    return layer;
  }

  function nadarayaWatson(xTrain, yTrain, xQuery, options) {
    const fn = 'nadarayaWatson';
    const o = checkOptions(fn, options, ['kernel', 'bandwidth']);
    const [xt, yt, xq] = [toVector(fn, 'xTrain', xTrain), toVector(fn, 'yTrain', yTrain), toVector(fn, 'xQuery', xQuery)];
    expectEqual(yt.length, xt.length, () => `${fn}: xTrain has ${xt.length} values but yTrain has ${yt.length} (one target per training input)`);
    const kernelName = o.kernel ?? 'gaussian';
    if (!Object.hasOwn(KERNELS, kernelName))
      fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: unknown kernel ${JSON.stringify(kernelName)}; expected one of ${Object.keys(KERNELS).join(', ')}`);
    const bandwidth = Math.fround(toNumber(fn, 'bandwidth', o.bandwidth, 1));
    if (!(bandwidth > 0) || bandwidth === Infinity)
      fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: bandwidth must be a positive number within float32 range, got ${o.bandwidth}`);
    const [m, n] = [xt.length, xq.length];
    const f = new Frame(workspace, fn);
    const [sxt, syt, sxq] = [f.input(xt), f.input(yt), f.input(xq)];
    const [predictions, weights] = [f.output(n), f.output(n * m)];
    f.run();
    f.check(module._nadarayaWatson(f.addr(sxt), f.addr(syt), m, f.addr(sxq), n, KERNELS[kernelName], bandwidth,
      f.addr(predictions), f.addr(weights)));
    return { predictions: f.matrix(predictions, 1, n).data, weights: f.matrix(weights, n, m) };
  }

  // Leave-one-out gradient descent on w: m² kernel evaluations per epoch.
  const MAX_FIT_WORK = 2e9;
  function fitParametricPooling(xTrain, yTrain, options) {
    const fn = 'fitParametricPooling';
    const o = checkOptions(fn, options, ['w', 'learningRate', 'epochs']);
    const [xt, yt] = [toVector(fn, 'xTrain', xTrain), toVector(fn, 'yTrain', yTrain)];
    expectEqual(yt.length, xt.length, () => `${fn}: xTrain has ${xt.length} values but yTrain has ${yt.length} (one target per training input)`);
    const m = xt.length;
    if (m < 2) fail(AttentionError.codes.SHAPE_MISMATCH, `${fn}: needs at least 2 training points (each is predicted from the others), got ${m}`);
    const w0 = toNumber(fn, 'w', o.w, 1);
    const learningRate = toNumber(fn, 'learningRate', o.learningRate, 0.5);
    if (learningRate < 0) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: learningRate must be 0 or more, got ${learningRate}`);
    const epochs = o.epochs === undefined ? 5 : toCount(fn, 'epochs', o.epochs);
    if (m * m * epochs > MAX_FIT_WORK)
      fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: ${epochs} epochs over ${m} points is ${m}²×${epochs} kernel evaluations, more than ${MAX_FIT_WORK.toExponential(0)}; use fewer points or epochs`);
    const f = new Frame(workspace, fn);
    const [sx, sy, losses, wOut] = [f.input(xt), f.input(yt), f.output(epochs), f.output(2)];
    f.run();
    f.check(module._fitParametricPooling(f.addr(sx), f.addr(sy), m, w0, learningRate, epochs, f.addr(losses), f.addr(wOut)));
    const w = new DataView(module.HEAPU8.buffer).getFloat64(f.addr(wOut), true);
    const curve = workspace.read(f.addr(losses), epochs);
    const bad = curve.findIndex((l) => !Number.isFinite(l));
    if (bad === 0)
      fail(AttentionError.codes.OVERFLOW, `${fn}: the loss at the starting w = ${w0} is ${curve[0]} in float32, before any step; rescale yTrain or start from another w`);
    if (bad > 0 || !Number.isFinite(w))
      fail(AttentionError.codes.OVERFLOW, `${fn}: gradient descent diverged (${bad > 0 ? `loss ${curve[bad]} at epoch ${bad}` : `w = ${w}`}); use a smaller learningRate (got ${learningRate})`);
    return { w, bandwidth: w === 0 ? Infinity : 1 / Math.abs(w), losses: curve };
  }

  // base^(2j/d) must be a positive finite frequency scale.
  function positionalBase(fn, options) {
    const o = checkOptions(fn, options, ['base']);
    const base = toNumber(fn, 'base', o.base, 10000);
    if (!(base > 0)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: base must be a positive number, got ${base}`);
    return base;
  }

  function positionalEncoding(n, d, options) {
    const fn = 'positionalEncoding';
    const [rows, cols] = [toCount(fn, 'n', n), toCount(fn, 'd', d)];
    const base = positionalBase(fn, options);
    const f = new Frame(workspace, fn);
    const p = f.output(rows * cols);
    f.run();
    f.check(module._positionalEncoding(rows, cols, base, f.addr(p)));
    return f.matrix(p, rows, cols);
  }

  function addPositionalEncoding(X, options) {
    const fn = 'addPositionalEncoding';
    const base = positionalBase(fn, options);
    const x = toMatrix(fn, 'X', X);
    const f = new Frame(workspace, fn);
    const [sx, out] = [f.input(x.data), f.output(x.rows * x.cols)];
    f.run();
    f.check(module._addPositionalEncoding(f.addr(sx), x.rows, x.cols, base, f.addr(out)));
    return f.matrix(out, x.rows, x.cols);
  }

  return {
    simd,
    memoryLimit: MEMORY_LIMIT,
    /** Bytes of WebAssembly memory in use now (it grows on demand and never shrinks). */
    get heapBytes() {
      return module.HEAPU8.length;
    },
    matmul,
    softmax,
    scaledDotProductAttention,
    additiveAttention,
    selfAttention,
    multiHeadAttention,
    nadarayaWatson,
    transformerBlock,
    fitParametricPooling,
    positionalEncoding,
    addPositionalEncoding,
    createMultiHeadAttention,
    localAttention,
    linearAttention,
    linformerAttention,
    /** Frees the module's workspace; the instance stays usable and reallocates on the next call. */
    releaseMemory: () => workspace.release(),
  };
}
