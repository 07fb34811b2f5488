// <attention-scaling>: why scores are divided by √d_k. The variance of q·k is
// sampled for growing d_k; softmax rows of unscaled and scaled scores come from
// the library, and their largest weight and Jacobian norm are shown.
import { AttentionElement } from '../base.js';
import { PALETTE, legendItem, lineChart } from '../chart.js';
import { el } from '../dom.js';
import { mulberry32, normals } from '../random.js';
import { renderTexCached } from '../tex.js';

export const WIDTHS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const PAIRS = 1000;
const KEYS = 16;
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

/**
 * Everything the panel plots, for a seed: per width d_k the sampled variance of q·k, and the
 * mean largest softmax weight and Jacobian norm of ROWS score rows against KEYS keys, unscaled
 * and scaled (the softmax is the library's).
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
  const rows = [];
  for (const d of WIDTHS) {
    let sum = 0;
    let sq = 0;
    for (let s = 0; s < PAIRS; s++) {
      const dot = Math.sqrt(chi2(d)) * gauss();
      sum += dot;
      sq += dot * dot;
    }
    const mean = sum / PAIRS;
    const variance = sq / PAIRS - mean * mean;
    // ROWS queries against KEYS keys: raw scores q·k_j, then the library's softmax.
    const raw = new Float32Array(ROWS * KEYS);
    for (let r = 0; r < ROWS; r++) {
      const norm = Math.sqrt(chi2(d));
      for (let j = 0; j < KEYS; j++) raw[r * KEYS + j] = norm * gauss();
    }
    const scaledScores = raw.map((v) => v / Math.sqrt(d));
    const stats = (S) => {
      const P = lab.softmax({ rows: ROWS, cols: KEYS, data: S });
      let max = 0;
      let jac = 0;
      for (let r = 0; r < ROWS; r++) {
        const p = P.data.subarray(r * KEYS, (r + 1) * KEYS);
        let top = 0;
        for (const v of p) if (v > top) top = v;
        max += top;
        jac += jacobianNorm(p);
      }
      return { max: max / ROWS, jac: jac / ROWS };
    };
    const u = stats(raw);
    const s = stats(scaledScores);
    rows.push({ d, variance, maxUnscaled: u.max, maxScaled: s.max, jacUnscaled: u.jac, jacScaled: s.jac });
  }
  return rows;
}

export class AttentionScaling extends AttentionElement {
  static tag = 'attention-scaling';

  #seed = null;
  #data = null;
  #formula = null;
  #texCache = new Map();

  render(lab) {
    const seed = this.config().seed;
    if (this.#seed !== seed) {
      this.#data = scalingData(lab, seed);
      this.#seed = seed;
    }
    const t = this.t;
    const root = this.root;
    root.replaceChildren();
    root.setAttribute('lang', this.language);
    root.append(el('h2', { text: t('scaling.heading') }), el('p', { class: 'intro', text: t('scaling.intro') }), this.#formulaBox());
    root.append(this.#charts(this.#data), el('p', { class: 'note', text: t('scaling.samples', { n: PAIRS, m: KEYS, seed }) }), this.#table(this.#data));
  }

  /** The formula is typeset once (it has no live numbers) and kept. */
  #formulaBox() {
    const formula = (this.#formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, this.#texCache, `\\operatorname{Var}(\\mathbf q\\cdot\\mathbf k) = \\sum_{i=1}^{d_k} \\operatorname{Var}(q_i k_i) = d_k, \\qquad \\operatorname{Var}\\Big(\\frac{\\mathbf q\\cdot\\mathbf k}{\\sqrt{d_k}}\\Big) = 1`);
    return formula;
  }

  /** Variance of q·k, the largest weight and the Jacobian's norm against d_k, unscaled and scaled. */
  #charts(data) {
    const t = this.t;
    const x = data.map((r) => r.d);
    const chart = (title, series, extra = {}) => {
      const wrap = el('figure', { class: 'chart chart-wrap', part: 'chart' });
      wrap.append(el('figcaption', { text: title }), lineChart({ title, x, series, xLog: true, xLabel: t('scaling.dk'), ...extra }));
      const key = el('div', { class: 'key' });
      for (const s of series) key.append(legendItem(s.label, s.color, s.dash));
      wrap.append(key);
      return wrap;
    };
    const U = t('scaling.unscaled');
    const S = t('scaling.scaled');
    const pair = (unscaled, scaled) => [
      { label: U, y: data.map(unscaled), color: PALETTE.vermillion },
      { label: S, y: data.map(scaled), color: PALETTE.blue, dash: '5 4' },
    ];
    const jacTop = Math.max(...data.map((r) => Math.max(r.jacScaled, r.jacUnscaled))) * 1.1;
    return el(
      'div',
      { class: 'grid' },
      chart(t('scaling.variance'), [
        { label: t('scaling.variance'), y: data.map((r) => r.variance), color: PALETTE.vermillion },
        { label: 'd_k', y: x, color: PALETTE.blue, dash: '5 4' },
      ], { yLog: true, yTicks: [1, 10, 100, 1000] }),
      chart(t('scaling.maxWeight'), pair((r) => r.maxUnscaled, (r) => r.maxScaled), { yRange: [0, 1] }),
      chart(t('scaling.jacobian'), pair((r) => r.jacUnscaled, (r) => r.jacScaled), { yRange: [0, jacTop] }),
    );
  }

  /** The same numbers as a table, in a closed section. */
  #table(data) {
    const t = this.t;
    const U = t('scaling.unscaled');
    const S = t('scaling.scaled');
    const details = el('details', { part: 'data' });
    details.append(el('summary', { text: t('scaling.table') }));
    const table = el('table', { class: 'stats' });
    const head = el('tr');
    for (const h of [t('scaling.dk'), t('scaling.variance'), `${t('scaling.maxWeight')} (${U})`, `${t('scaling.maxWeight')} (${S})`, `‖J‖ (${U})`, `‖J‖ (${S})`]) head.append(el('th', { scope: 'col', text: h }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    for (const r of data)
      body.append(el('tr', { 'data-dk': String(r.d) }, el('th', { scope: 'row', text: String(r.d) }), ...[r.variance, r.maxUnscaled, r.maxScaled, r.jacUnscaled, r.jacScaled].map((v) => el('td', { text: v.toFixed(3) }))));
    table.append(body);
    details.append(el('div', { class: 'scroll' }, table));
    return details;
  }
}
