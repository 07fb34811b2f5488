// <attention-positions>: sinusoidal positional encoding. P as a heatmap, a few
// of its columns against position (falling frequencies), P Pᵀ (constant along
// diagonals: relative position), and attention with and without P when two
// tokens swap: without P the weights only permute (permutation equivariance).
// P and X + P come from lab.positionalEncoding / lab.addPositionalEncoding,
// P Pᵀ from the scores step of a traced scaled dot-product call.
import { AttentionElement } from '../base.js';
import { adoptPanelStyles } from '../panel-styles.js';
import { PALETTE, legendItem, lineChart } from '../chart.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel, copyMatrixOrNull } from '../model.js';
import { exact } from '../format.js';
import { renderTexCached } from '../tex.js';

export const CHART_POSITIONS = 64;
const SERIES = [
  { color: PALETTE.blue },
  { color: PALETTE.vermillion, dash: '6 4' },
  { color: PALETTE.green, dash: '2 3' },
  { color: PALETTE.purple, dash: '10 3 2 3' },
];

/** The columns plotted against position: two of the fastest pair, then slower sines. */
export function chartColumns(d) {
  return [0, 1, 2, 4].filter((j) => j < d);
}

/** The two positions to swap from the `swap` attribute ("i j"), clamped to 0…n−1 and distinct. */
export function swapPair(text, n) {
  const parts = String(text ?? '').trim().split(/[\s,;]+/).filter(Boolean).map(Number);
  const clamp = (v, fallback) => (Number.isFinite(v) ? Math.min(n - 1, Math.max(0, Math.round(v))) : fallback);
  // Default: the second and third tokens (the first two when there are only two).
  const first = n >= 3 ? 1 : 0;
  let i = clamp(parts[0], first);
  let j = clamp(parts[1], first + 1);
  if (i === j) j = i === n - 1 ? Math.max(0, i - 1) : i + 1;
  return [Math.min(i, j), Math.max(i, j)];
}

/** Rows i and j of M exchanged (a rearrangement: no number is computed). */
function swapRows(M, i, j) {
  const data = Float32Array.from(M.data);
  data.set(M.data.subarray(i * M.cols, (i + 1) * M.cols), j * M.cols);
  data.set(M.data.subarray(j * M.cols, (j + 1) * M.cols), i * M.cols);
  return { rows: M.rows, cols: M.cols, data };
}

/** Largest |B[π(a)][π(b)] − A[a][b]| for the transposition π = (i j): 0 when B is A permuted. */
export function permutedDifference(A, B, i, j) {
  const p = (k) => (k === i ? j : k === j ? i : k);
  let worst = 0;
  for (let a = 0; a < A.rows; a++) for (let b = 0; b < A.cols; b++) worst = Math.max(worst, Math.abs(B.data[p(a) * B.cols + p(b)] - A.data[a * A.cols + b]));
  return worst;
}

function firstColumns(W, keep) {
  if (W.cols === keep) return W;
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
}

export class AttentionPositions extends AttentionElement {
  static tag = 'attention-positions';


  static get observedAttributes() {
    return [...super.observedAttributes, 'swap'];
  }

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, 'fieldset.controls { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.4rem 0.8rem 0.6rem; } fieldset.controls legend { font-weight: 600; font-size: 0.9rem; padding: 0 0.3rem; }');
  }

  outOfRange() {
    const changed = super.outOfRange();
    const given = this.getAttribute('swap');
    if (given !== null && given.trim() !== '' && this._swap) {
      const parts = given.trim().split(/[\s,;]+/).map(Number);
      if (parts.length !== 2 || parts[0] !== this._swap[0] || parts[1] !== this._swap[1]) changed.push({ name: 'swap', given, used: this._swap.join(' ') });
    }
    return changed;
  }

  /** Everything the panel shows, from the library. */
  compute(lab) {
    const model = buildModel(this.config(), this.inputs);
    const { X, config, tokens, n } = model;
    const d = config.dModel;
    // P, the chart's columns and P Pᵀ depend only on n and d: kept while they stay.
    if (this._enc?.n !== n || this._enc.d !== d || this._enc.lab !== lab) {
      const P = copyMatrixOrNull(lab.positionalEncoding(n, d));
      const chart = copyMatrixOrNull(lab.positionalEncoding(CHART_POSITIONS, d));
      // P Pᵀ: the scores step (QKᵀ with scale 1) of attention with Q = K = V = P.
      const PPt = lab.scaledDotProductAttention(P, P, P, { scale: 1, trace: true }).steps.find((s) => s.id === 'scores').matrix;
      this._enc = { n, d, lab, P, chart, PPt };
    }
    const { P, chart, PPt } = this._enc;
    const Wq = firstColumns(model.Wq, config.dK);
    const Wk = firstColumns(model.Wk, config.dK);
    const Wv = firstColumns(model.Wv, config.dK);
    const result = { model, n, d, P, chart, PPt };
    this._swap = null;
    if (n < 2) return result;
    const [i, j] = swapPair(this.getAttribute('swap'), n);
    this._swap = [i, j];
    const Xs = swapRows(X, i, j);
    const XP = copyMatrixOrNull(lab.addPositionalEncoding(X));
    const XsP = copyMatrixOrNull(lab.addPositionalEncoding(Xs));
    const attend = (M) => lab.selfAttention(M, { Wq, Wk, Wv }).weights;
    const swappedTokens = tokens.slice();
    [swappedTokens[i], swappedTokens[j]] = [tokens[j], tokens[i]];
    const noP = attend(X);
    const noPs = attend(Xs);
    const withP = attend(XP);
    const withPs = attend(XsP);
    return { ...result, i, j, XP, swappedTokens, noP, noPs, withP, withPs, diffNoP: permutedDifference(noP, noPs, i, j), diffWithP: permutedDifference(withP, withPs, i, j) };
  }

  swapControls() {
    if (this._swapUi) return this._swapUi;
    const make = (id) => {
      const select = el('select', { id, 'data-key': id });
      select.addEventListener('change', () => {
        this.setAttribute('swap', `${first.value} ${second.value}`);
        this.emit('attention-positions', { swap: this.getAttribute('swap') });
      });
      return select;
    };
    const first = make('swap-i');
    const second = make('swap-j');
    const labels = { i: el('label', { for: 'swap-i' }), j: el('label', { for: 'swap-j' }), legend: el('legend') };
    const form = el('fieldset', { class: 'controls', part: 'controls' }, labels.legend, el('div', { class: 'field' }, labels.i, first), el('div', { class: 'field' }, labels.j, second));
    this._swapUi = { form, first, second, labels };
    return this._swapUi;
  }

  render(lab) {
    const t = this.t;
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    if (typeof lab.positionalEncoding !== 'function' || typeof lab.addPositionalEncoding !== 'function') {
      root.replaceChildren(el('h2', { text: t('positions.heading') }), el('p', { class: 'error', 'data-role': 'pending', text: t('positions.pending') }));
      return;
    }
    const c = this.compute(lab);
    const { n, d, P, PPt, model } = c;
    const tokens = model.tokens;
    const pool = (this._pool ??= new Map());
    const positions = Array.from({ length: n }, (_, i) => String(i));
    const columns = Array.from({ length: d }, (_, j) => `${j}`);
    const heat = (slot, name, matrix, rowLabels, colLabels, extra = {}) => {
      const h = createHeatmap({ t, name, file: `positions-${slot}`, matrix, rowLabels, colLabels, pool, slot, defer: true, ...extra });
      h.el.dataset.matrix = slot;
      return h.el;
    };

    const out = [el('h2', { text: t('positions.heading') }), el('p', { class: 'intro', text: t('positions.intro') })];
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, (this._texCache ??= new Map()), `P_{i,2j} = \\sin\\Big(\\frac{i}{10000^{2j/d}}\\Big),\\quad P_{i,2j+1} = \\cos\\Big(\\frac{i}{10000^{2j/d}}\\Big),\\quad \\underbrace{P}_{\\scriptstyle ${n}\\times ${d}}\\ (n\\times d_{\\text{model}})`);
    out.push(formula);

    // P and its columns against position.
    const top = (this._top ??= el('div', { class: 'grid' }));
    const pFigure = heat('P', t('positions.P'), P, positions, columns);
    // The chart depends only on d (its data) and the language: kept while they stay.
    const chartKey = `${d}|${this.language}`;
    if (this._chart?.key !== chartKey || this._chart.data !== c.chart) {
      const chartWrap = el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': 'chart' });
      const title = t('positions.chart', { max: CHART_POSITIONS - 1 });
      const x = Array.from({ length: CHART_POSITIONS }, (_, i) => i);
      const series = chartColumns(d).map((j, k) => {
        return {
          label: t('positions.column', { j, fn: j % 2 === 0 ? 'sin' : 'cos', w: j < 2 ? '1' : `10000^(−${2 * Math.floor(j / 2)}/${d})` }),
          y: x.map((i) => c.chart.data[i * d + j]),
          ...SERIES[k],
        };
      });
      chartWrap.append(el('figcaption', { text: title }), lineChart({ title, x, series, yRange: [-1, 1], yTicks: [-1, -0.5, 0, 0.5, 1], xTicks: [0, 8, 16, 24, 32, 40, 48, 56, 63], xLabel: t('positions.position') }));
      const key = el('div', { class: 'key' });
      for (const s of series) key.append(legendItem(s.label, s.color, s.dash));
      chartWrap.append(key);
      this._chart = { key: chartKey, data: c.chart, el: chartWrap };
    }
    place(top, [pFigure, this._chart.el]);
    out.push(top, el('p', { class: 'note', text: t('positions.Pnote') }));

    // P Pᵀ: constant along diagonals.
    const mid = (this._mid ??= el('div', { class: 'grid' }));
    place(mid, [heat('PPt', t('positions.PPt'), PPt, positions, positions, { compact: n > 10 })]);
    out.push(mid);
    if (n >= 3) {
      const k = Math.min(2, n - 1);
      const [a, b, cc, dd] = [0, k, n - 1 - k, n - 1];
      out.push(el('p', { class: 'note', 'data-role': 'relative', text: t('positions.PPtNote', { a, b, c: cc, d: dd, k, x: exact(PPt.data[a * n + b]), y: exact(PPt.data[cc * n + dd]) }) }));
    }

    // Attention with and without P, two tokens swapped.
    out.push(el('h3', { text: t('positions.attention') }));
    if (n < 2) {
      out.push(el('p', { class: 'note', text: t('positions.oneToken') }));
      place(root, out);
      return;
    }
    const { i, j } = c;
    const ui = this.swapControls();
    ui.labels.legend.textContent = t('positions.swap');
    ui.labels.i.textContent = t('positions.swapFirst');
    ui.labels.j.textContent = t('positions.swapSecond');
    // The options are rebuilt only when the tokens change.
    const optionsKey = tokens.join('\u0000');
    for (const [select, value] of [[ui.first, i], [ui.second, j]]) {
      if (select._optionsKey !== optionsKey) {
        select.replaceChildren(...tokens.map((tok, k) => el('option', { value: String(k), text: `${k}: ${tok}` })));
        select._optionsKey = optionsKey;
      }
      if (select.value !== String(value)) select.value = String(value);
    }
    out.push(el('p', { class: 'intro', text: t('positions.attentionIntro', { i, j }) }), ui.form);
    const compact = n > 10;
    const grid = (this._grid ??= el('div', { class: 'grid' }));
    // The swapped rows and columns are outlined in every weight matrix.
    const marked = (slot, name, matrix, labels) => {
      const h = createHeatmap({ t, name, file: `positions-${slot}`, matrix, rowLabels: labels, colLabels: labels, compact, pool, slot, defer: true });
      h.highlight({ rows: [i, j], cols: [i, j] });
      h.el.dataset.matrix = slot;
      return h.el;
    };
    place(grid, [marked('noP', t('positions.noP'), c.noP, tokens), marked('noPs', t('positions.noPSwapped', { i, j }), c.noPs, c.swappedTokens)]);
    const grid2 = (this._grid2 ??= el('div', { class: 'grid' }));
    place(grid2, [marked('withP', t('positions.withP'), c.withP, tokens), marked('withPs', t('positions.withPSwapped', { i, j }), c.withPs, c.swappedTokens)]);
    out.push(grid, el('p', { class: 'note', 'data-role': 'equivariant', text: t('positions.equivariant', { d: exact(c.diffNoP) }) }));
    out.push(grid2, el('p', { class: 'note', 'data-role': 'not-equivariant', text: t('positions.notEquivariant', { d: exact(c.diffWithP) }) }));
    // X + P is drawn only while its section is open.
    const details = (this._details ??= el('details', { part: 'data', ontoggle: () => this.requestRender() }, el('summary')));
    details.firstChild.textContent = t('positions.XP');
    place(details, details.open ? [details.firstChild, heat('XP', t('positions.XP'), c.XP, tokens, columns)] : [details.firstChild]);
    out.push(details);
    place(root, out);
  }
}
