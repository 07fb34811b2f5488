// The positional family: the sinusoidal encoding P (n × d), alone or added to
// an input (optionally scaled first: X·scale + P). Raw calls in ops/positional.cpp.
import { AttentionError, fail } from '../errors.js';
import { checkOptions, toCount, toMatrix, toNumber } from '../validate.js';

// base^(2j/d) must be a positive finite frequency scale.
function positionalBase(fn, o) {
  const base = toNumber(fn, 'base', o.base, 10000);
  if (!(base > 0)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: base must be a positive number, got ${base}`);
  return base;
}

// The factor X is multiplied by before P is added: Dive into Deep Learning (10.7) uses √d.
function embeddingScale(fn, o) {
  const scale = toNumber(fn, 'scale', o.scale, 1);
  if (!(scale > 0)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: scale must be a positive number (e.g. Math.sqrt(d) for X·√d + P), got ${scale}`);
  return scale;
}

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function positionalOps(context) {
  return {
    positionalEncoding: (n, d, options) => positionalEncoding(context, n, d, options),
    addPositionalEncoding: (X, options) => addPositionalEncoding(context, X, options),
  };
}

function positionalEncoding({ frame }, n, d, options) {
  const fn = 'positionalEncoding';
  const [rows, cols] = [toCount(fn, 'n', n), toCount(fn, 'd', d)];
  const base = positionalBase(fn, checkOptions(fn, options, ['base']));
  const f = frame(fn);
  const P = f.output(rows * cols);
  f.call('positionalEncoding', { n: rows, d: cols, base, P });
  return f.matrix(P, rows, cols);
}

function addPositionalEncoding({ frame }, X, options) {
  const fn = 'addPositionalEncoding';
  const o = checkOptions(fn, options, ['base', 'scale']);
  const base = positionalBase(fn, o);
  const scale = embeddingScale(fn, o);
  const x = toMatrix(fn, 'X', X);
  const f = frame(fn);
  const output = f.output(x.rows * x.cols);
  // A scale can overflow float32 (X·scale > 3.4e38): the frame's scan of the result reports it.
  f.call('addPositionalEncoding', { X: f.input(x.data), n: x.rows, d: x.cols, base, scale, output });
  return f.matrix(output, x.rows, x.cols);
}
