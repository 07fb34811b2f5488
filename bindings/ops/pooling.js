// The pooling family: Nadaraya-Watson kernel regression (attention pooling
// with a fixed kernel) and the leave-one-out fit of its parametric form.
// Raw calls in ops/pooling.cpp.
import { AttentionError, fail } from '../errors.js';
import { checkOptions, expectEqual, toCount, toNumber, toVector } from '../validate.js';

const KERNELS = { gaussian: 0, boxcar: 1, epanechnikov: 2, constant: 3 };

// Leave-one-out gradient descent on w: m² kernel evaluations per epoch.
const MAX_FIT_WORK = 2e9;

function expectOneTargetEach(fn, xt, yt) {
  expectEqual(yt.length, xt.length, () => `${fn}: xTrain has ${xt.length} values but yTrain has ${yt.length} (one target per training input)`);
}

// The fit's options: starting w, learning rate and epochs, within the work bound.
function fitOptions(fn, o, m) {
  const w0 = toNumber(fn, 'w', o.w, 1);
  const learningRate = toNumber(fn, 'learningRate', o.learningRate, 0.5);
  if (learningRate < 0) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: learningRate must be 0 or more, got ${learningRate}`);
  const epochs = o.epochs === undefined ? 5 : toCount(fn, 'epochs', o.epochs);
  if (m * m * epochs > MAX_FIT_WORK)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: ${epochs} epochs over ${m} points is ${m}²×${epochs} kernel evaluations, more than ${MAX_FIT_WORK.toExponential(0)}; use fewer points or epochs`);
  return { w0, learningRate, epochs };
}

/**
 * The family's public functions, bound to one module's context.
 * @param {{ module: object, workspace: import('../workspace.js').Workspace, frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function poolingOps(context) {
  return {
    nadarayaWatson: (xTrain, yTrain, xQuery, options) => nadarayaWatson(context, xTrain, yTrain, xQuery, options),
    fitParametricPooling: (xTrain, yTrain, options) => fitParametricPooling(context, xTrain, yTrain, options),
  };
}

function nadarayaWatson({ frame }, xTrain, yTrain, xQuery, options) {
  const fn = 'nadarayaWatson';
  const o = checkOptions(fn, options, ['kernel', 'bandwidth']);
  const [xt, yt, xq] = [toVector(fn, 'xTrain', xTrain), toVector(fn, 'yTrain', yTrain), toVector(fn, 'xQuery', xQuery)];
  expectOneTargetEach(fn, xt, yt);
  const kernelName = o.kernel ?? 'gaussian';
  if (!Object.hasOwn(KERNELS, kernelName))
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: unknown kernel ${JSON.stringify(kernelName)}; expected one of ${Object.keys(KERNELS).join(', ')}`);
  const bandwidth = Math.fround(toNumber(fn, 'bandwidth', o.bandwidth, 1));
  if (!(bandwidth > 0) || bandwidth === Infinity)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: bandwidth must be a positive number within float32 range, got ${o.bandwidth}`);
  const [m, n] = [xt.length, xq.length];
  const f = frame(fn);
  const inputs = { xTrain: f.input(xt), yTrain: f.input(yt), xQuery: f.input(xq) };
  const [predictions, weights] = [f.output(n), f.output(n * m)];
  f.call('nadarayaWatson', { ...inputs, m, n, kernel: KERNELS[kernelName], bandwidth, predictions, weights });
  return { predictions: f.matrix(predictions, 1, n).data, weights: f.matrix(weights, n, m) };
}

function fitParametricPooling({ module, workspace, frame }, xTrain, yTrain, options) {
  const fn = 'fitParametricPooling';
  const o = checkOptions(fn, options, ['w', 'learningRate', 'epochs']);
  const [xt, yt] = [toVector(fn, 'xTrain', xTrain), toVector(fn, 'yTrain', yTrain)];
  expectOneTargetEach(fn, xt, yt);
  const m = xt.length;
  if (m < 2) fail(AttentionError.codes.SHAPE_MISMATCH, `${fn}: needs at least 2 training points (each is predicted from the others), got ${m}`);
  const { w0, learningRate, epochs } = fitOptions(fn, o, m);
  const f = frame(fn);
  const [x, y, losses, wOut] = [f.input(xt), f.input(yt), f.output(epochs), f.output(2)];
  f.call('fitParametricPooling', { x, y, m, w0, learningRate, epochs, losses, w: wOut });
  const w = new DataView(module.HEAPU8.buffer).getFloat64(f.addr(wOut), true);
  const curve = workspace.read(f.addr(losses), epochs);
  const bad = curve.findIndex((l) => !Number.isFinite(l));
  if (bad === 0)
    fail(AttentionError.codes.OVERFLOW, `${fn}: the loss at the starting w = ${w0} is ${curve[0]} in float32, before any step; rescale yTrain or start from another w`);
  // The loss is finite for any w (the core's limit at |w| → ∞ is the nearest-neighbour loss), so a
  // later loss overflows only in float32, from large targets; w itself only from a huge step.
  if (bad > 0)
    fail(AttentionError.codes.OVERFLOW, `${fn}: the loss at epoch ${bad} is ${curve[bad]} in float32 (${curve[0]} at the starting w = ${w0}); rescale yTrain or use a smaller learningRate (got ${learningRate})`);
  if (!Number.isFinite(w)) fail(AttentionError.codes.OVERFLOW, `${fn}: gradient descent diverged (w = ${w}); use a smaller learningRate (got ${learningRate})`);
  return { w, bandwidth: w === 0 ? Infinity : 1 / Math.abs(w), losses: curve };
}
