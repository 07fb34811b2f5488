// <attention-positions>: sinusoidal positional encoding. P as a heatmap, a few
// of its columns against position (falling frequencies), P Pᵀ (constant along
// diagonals, and symmetric: it depends on |i − j| only), P_{i+δ} as a rotation
// of P_i (rotation-section.js), and attention with and without P when two
// tokens swap: without P the weights only permute (permutation equivariance).
// P and X + P come from lab.positionalEncoding / lab.addPositionalEncoding,
// P Pᵀ from the scores step of a traced scaled dot-product call (encoding.js).
import { AttentionElement } from '../../base.js';
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { exact } from '../../format.js';
import { createHeatmap, filled, place } from '../../heatmap.js';
import { buildModel } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { renderTexCached } from '../../tex.js';
import { columnsChart } from './columns-chart.js';
import { encodingOf, sameUpToRounding, swapExperiment, swapPair } from './encoding.js';
import { RotationSection } from './rotation-section.js';
import { rotationChoice } from './rotation.js';
import { POSITIONS_CSS } from './styles.js';
import { SwapControls } from './swap-controls.js';

export { CHART_POSITIONS, chartColumns, permutedDifference, swapPair } from './encoding.js';

export class AttentionPositions extends AttentionElement {
  static tag = 'attention-positions';

  /** P, its chart rows and P Pᵀ, which depend only on n and d: { n, d, lab, P, chart, PPt }. */
  #encoding = null;
  /** The chart of P's columns, kept while d and the language stay: { key, data, el }. */
  #chart = null;
  /** The pair swapped in the last render, or null (fewer than two tokens). */
  #swap = null;
  #controls = new SwapControls(this);
  #rotation = new RotationSection(this);
  #pool = new Map();
  #texCache = new Map();
  #formula = null;
  #top = null;
  #mid = null;
  #grids = null;
  /** The rotation and swap sections' boxes, kept from one render to the next. */
  #parts = { rotation: el('div', { 'data-part': 'rotation' }), swap: el('div', { 'data-part': 'swap' }) };
  #details = null;

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, POSITIONS_CSS);
  }

  outOfRange() {
    const changed = super.outOfRange();
    const given = this.getAttribute('swap');
    if (given !== null && given.trim() !== '' && this.#swap) {
      const parts = given.trim().split(/[\s,;]+/).map(Number);
      if (parts.length !== 2 || parts[0] !== this.#swap[0] || parts[1] !== this.#swap[1]) changed.push({ name: 'swap', given, used: this.#swap.join(' ') });
    }
    const d = this.#encoding?.d;
    if (d !== undefined) {
      const used = rotationChoice(this.getAttribute('shift'), this.getAttribute('pair'), d);
      for (const [name, value] of [['shift', used.delta], ['pair', used.pair]]) {
        const text = this.getAttribute(name);
        if (text !== null && text.trim() !== '' && Number(text) !== value) changed.push({ name, given: text, used: String(value) });
      }
    }
    return changed;
  }

  /** What the panel shows above its swap section (computed there, see #swapSection), from the library. */
  #compute(lab) {
    const model = buildModel(this.config(), this.inputs);
    const { n } = model;
    const d = model.config.dModel;
    if (this.#encoding?.n !== n || this.#encoding.d !== d || this.#encoding.lab !== lab) this.#encoding = { n, d, lab, ...encodingOf(lab, n, d) };
    const { P, chart, PPt } = this.#encoding;
    const shown = { model, n, d, P, chart, PPt, positions: Array.from({ length: n }, (_, i) => String(i)), columns: Array.from({ length: d }, (_, j) => `${j}`) };
    this.#swap = n < 2 ? null : swapPair(this.getAttribute('swap'), n);
    return shown;
  }

  render(lab) {
    const t = this.t;
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    if (typeof lab.positionalEncoding !== 'function' || typeof lab.addPositionalEncoding !== 'function') {
      this.root.replaceChildren(el('h2', { text: t('positions.heading') }), el('p', { class: 'error', 'data-role': 'pending', text: t('positions.pending') }));
      return;
    }
    const c = this.#compute(lab);
    this.#formula ??= el('div', { class: 'formula', part: 'formula' });
    renderTexCached(this.#formula, this.#texCache, String.raw`P_{i,2j} = \sin\Big(\frac{i}{10000^{2j/d}}\Big),\quad P_{i,2j+1} = \cos\Big(\frac{i}{10000^{2j/d}}\Big),\quad \underbrace{P}_{\scriptstyle ${c.n}\times ${c.d}}\ (n\times d_{\text{model}})`);
    place(this.root, [el('h2', { text: t('positions.heading') }), el('p', { class: 'intro', text: t('positions.intro') }), this.#formula, ...this.#encodingSection(c), filled(this.#parts.rotation, this.#rotation.build(t, c.chart, rotationChoice(this.getAttribute('shift'), this.getAttribute('pair'), c.d))), filled(this.#parts.swap, this.#swapSection(lab, c))]);
  }

  /** One heatmap of this render, kept in its slot between renders, its figure marked data-matrix=slot. */
  #heat(slot, name, matrix, rowLabels, colLabels, extra = {}) {
    const h = createHeatmap({ t: this.t, name, file: `positions-${slot}`, matrix, rowLabels, colLabels, pool: this.#pool, slot, defer: true, ...extra });
    h.el.dataset.matrix = slot;
    return h;
  }

  /** P beside the chart of its columns; P Pᵀ (constant along diagonals) with a note comparing two of them. */
  #encodingSection(c) {
    const t = this.t;
    const { n, d, PPt } = c;
    // The chart depends only on d (its data) and the language: kept while they stay.
    const chartKey = `${d}|${this.language}`;
    if (this.#chart?.key !== chartKey || this.#chart.data !== c.chart) this.#chart = { key: chartKey, data: c.chart, el: columnsChart(t, c.chart, d) };
    this.#top ??= el('div', { class: 'grid' });
    place(this.#top, [this.#heat('P', t('positions.P'), c.P, c.positions, c.columns).el, this.#chart.el]);
    this.#mid ??= el('div', { class: 'grid' });
    place(this.#mid, [this.#heat('PPt', t('positions.PPt'), PPt, c.positions, c.positions, { compact: n > 10 }).el]);
    const out = [this.#top, el('p', { class: 'note', text: t('positions.Pnote') }), this.#mid];
    if (n >= 3) {
      const k = Math.min(2, n - 1);
      const [a, b, cc, dd] = [0, k, n - 1 - k, n - 1];
      out.push(el('p', { class: 'note', 'data-role': 'relative', text: t('positions.PPtNote', { a, b, c: cc, d: dd, k, x: exact(PPt.data[a * n + b]), y: exact(PPt.data[cc * n + dd]) }) }));
      // Distance, not direction: the position k after c and the one k before give the same dot product.
      const m = Math.floor((n - 1) / 2);
      const s = Math.min(2, m);
      out.push(el('p', { class: 'note', 'data-role': 'direction', text: t('positions.PPtDirection', { c: m, after: m + s, before: m - s, x: exact(PPt.data[m * n + m + s]), y: exact(PPt.data[m * n + m - s]) }) }));
    }
    return out;
  }

  /**
   * Attention with and without P, two tokens swapped, the swapped rows and columns outlined; X + P
   * on demand. Computed here: when the section is far off screen, that waits until the page is idle.
   */
  #swapSection(lab, shown) {
    const t = this.t;
    const heading = el('h3', { text: t('positions.attention') });
    if (!this.#swap) return [heading, el('p', { class: 'note', text: t('positions.oneToken') })];
    const c = { ...shown, ...swapExperiment(lab, shown.model, ...this.#swap) };
    const { i, j, model } = c;
    const tokens = model.tokens;
    const form = this.#controls.sync(t, tokens, i, j);
    const marked = (slot, name, matrix, labels) => {
      const h = this.#heat(slot, name, matrix, labels, labels, { compact: c.n > 10 });
      h.highlight({ rows: [i, j], cols: [i, j] });
      return h.el;
    };
    this.#grids ??= [el('div', { class: 'grid' }), el('div', { class: 'grid' })];
    const [without, withP] = this.#grids;
    // Four figures of one quantity (weights), compared with each other: one colour scale and legend.
    const [noP, noPs, withPw, withPs] = onOneScale([c.noP, c.noPs, c.withP, c.withPs]);
    place(without, [marked('noP', t('positions.noP'), noP, tokens), marked('noPs', t('positions.noPSwapped', { i, j }), noPs, c.swappedTokens)]);
    place(withP, [marked('withP', t('positions.withP'), withPw, tokens), marked('withPs', t('positions.withPSwapped', { i, j }), withPs, c.swappedTokens)]);
    return [
      heading,
      el('p', { class: 'intro', text: t('positions.attentionIntro', { i, j }) }),
      form,
      without,
      // Each sentence says what its numbers show: equal up to float32 rounding, or not.
      el('p', { class: 'note', 'data-role': 'equivariant', 'data-same': String(sameUpToRounding(c.diffNoP)), text: t(sameUpToRounding(c.diffNoP) ? 'positions.equivariant' : 'positions.noPDiffers', { d: exact(c.diffNoP) }) }),
      withP,
      el('p', { class: 'note', 'data-role': 'not-equivariant', 'data-same': String(sameUpToRounding(c.diffWithP)), text: t(sameUpToRounding(c.diffWithP) ? 'positions.withPSame' : 'positions.notEquivariant', { d: exact(c.diffWithP) }) }),
      this.#xpSection(c),
    ];
  }

  /** X + P, drawn only while its section is open. */
  #xpSection(c) {
    const t = this.t;
    this.#details ??= el('details', { part: 'data', ontoggle: () => this.requestRender() }, el('summary'));
    const details = this.#details;
    details.firstChild.textContent = t('positions.XP');
    place(details, details.open ? [details.firstChild, this.#heat('XP', t('positions.XP'), c.XP, c.model.tokens, c.columns).el] : [details.firstChild]);
    return details;
  }
}
