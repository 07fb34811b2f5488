// The numbers of <attention-scaling>, DOM-free: per width d_k, the sampled variance of q·k before
// and after dividing by √d_k or by d_k, and what the library's softmax makes of such score rows.
import { mulberry32, normals } from '../random.js';

export const WIDTHS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** Sampled (q, k) pairs per width, keys per softmax row, softmax rows per width. */
export const PAIRS = 1000;
export const KEYS = 16;
const ROWS = 32;

/** ‖diag(p) − ppᵀ‖_F for one probability row. */
export function jacobianNorm(p) {
  let sum = 0;
  for (let i = 0; i < p.length; i++)
    for (let j = 0; j < p.length; j++) {
      const v = (i === j ? p[i] : 0) - p[i] * p[j];
      sum += v * v;
    }
  return Math.sqrt(sum);
}

/** A Gamma(shape, 1) sample (Marsaglia and Tsang 2000), shape ≥ 1. */
function gamma(shape, gauss, uniform) {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x;
    let v;
    do {
      x = gauss();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = uniform();
    const x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2 || Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** The sample variance of `count` draws of `draw()` divided by each of `divisors`. */
function variances(draw, count, divisors) {
  const sum = divisors.map(() => 0);
  const sq = divisors.map(() => 0);
  for (let s = 0; s < count; s++) {
    const x = draw();
    divisors.forEach((by, k) => {
      sum[k] += x / by;
      sq[k] += (x / by) ** 2;
    });
  }
  return divisors.map((_, k) => sq[k] / count - (sum[k] / count) ** 2);
}

/** The mean largest weight and Jacobian norm of the library's softmax over the rows of S (rows × KEYS). */
function softmaxStats(lab, S, rows) {
  const P = lab.softmax({ rows, cols: KEYS, data: S });
  let max = 0;
  let jac = 0;
  for (let r = 0; r < rows; r++) {
    const p = P.data.subarray(r * KEYS, (r + 1) * KEYS);
    let top = 0;
    for (const v of p) if (v > top) top = v;
    max += top;
    jac += jacobianNorm(p);
  }
  return { max: max / rows, jac: jac / rows };
}

/**
 * Everything the panel plots, for a seed: per width d_k the sampled variance of q·k, q·k/√d_k and
 * q·k/d_k (one sample of PAIRS pairs), and the mean largest softmax weight and Jacobian norm of ROWS
 * score rows against KEYS keys, unscaled, divided by √d_k and (largest weight) by d_k; the softmax
 * is the library's.
 *
 * q and k have independent N(0, 1) entries. Each q·k is drawn from its exact distribution rather
 * than summed from d_k products, so a change of seed costs the same at every width (at d_k = 512,
 * 2000 pairs would take a million products): only k's component along q counts, and it is N(0, 1)
 * whatever q is, so q·k = ‖q‖·z with z standard normal and ‖q‖² a χ²(d_k) = 2·Gamma(d_k/2)
 * variable. One query's scores against KEYS keys are ‖q‖·(z_1, …, z_KEYS) in the same way.
 */
export function scalingData(lab, seed) {
  const uniform = mulberry32(seed >>> 0);
  const gauss = normals(uniform);
  const chi2 = (d) => (d === 1 ? gauss() ** 2 : 2 * gamma(d / 2, gauss, uniform));
  return WIDTHS.map((d) => {
    const [variance, varianceSqrt, varianceLinear] = variances(() => Math.sqrt(chi2(d)) * gauss(), PAIRS, [1, Math.sqrt(d), d]);
    // ROWS queries against KEYS keys: raw scores q·k_j, then the library's softmax.
    const raw = new Float32Array(ROWS * KEYS);
    for (let r = 0; r < ROWS; r++) {
      const norm = Math.sqrt(chi2(d));
      for (let j = 0; j < KEYS; j++) raw[r * KEYS + j] = norm * gauss();
    }
    const u = softmaxStats(lab, raw, ROWS);
    const s = softmaxStats(lab, raw.map((v) => v / Math.sqrt(d)), ROWS);
    const l = softmaxStats(lab, raw.map((v) => v / d), ROWS);
    return { d, variance, varianceSqrt, varianceLinear, maxUnscaled: u.max, maxScaled: s.max, maxLinear: l.max, jacUnscaled: u.jac, jacScaled: s.jac };
  });
}
