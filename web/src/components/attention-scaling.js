// <attention-scaling>: why scores are divided by √d_k (and not by d_k). The variance of q·k is
// sampled for growing d_k; softmax rows of unscaled and scaled scores come from the library, and
// their largest weight and Jacobian norm are shown.
//
// The panel is built once; a change of seed writes the tables' numbers and the charts' lines in
// place, a change of language only the texts (replacing the whole panel cost one 67 ms style and
// layout).
import { AttentionElement } from '../base.js';
import { PALETTE, legendItem, lineChart, redrawSeries } from '../chart.js';
import { el } from '../dom.js';
import { renderTexCached } from '../tex.js';
import { KEYS, PAIRS, WIDTHS, jacobianNorm, scalingData } from './scaling-data.js';

export { WIDTHS, jacobianNorm, scalingData };

const fixed = (v) => v.toFixed(3);

export class AttentionScaling extends AttentionElement {
  static tag = 'attention-scaling';

  #seed = null;
  #data = null;
  #parts = null;
  #texCache = new Map();
  /** Texts that follow the language: [node, text(t), attribute?]. */
  #texts = [];
  /** The charts, in order: { figure, svg, texts } (texts: the chart's own, as in #texts). */
  #charts = [];

  render(lab) {
    const seed = this.config().seed;
    this.#parts ??= this.#build();
    if (this.#seed !== seed) {
      this.#data = scalingData(lab, seed);
      this.#seed = seed;
      this.#fill(this.#data);
    }
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    const t = this.t;
    for (const [node, text, attribute] of [...this.#texts, ...this.#charts.flatMap((chart) => chart.texts)]) {
      const value = text(t);
      if (attribute ? node.getAttribute(attribute) !== value : node.textContent !== value) attribute ? node.setAttribute(attribute, value) : (node.textContent = value);
    }
  }

  /** A node whose text (or `attribute`) is `text(t)` in the current language. */
  #text(node, text, attribute, list = this.#texts) {
    list.push([node, text, attribute]);
    return node;
  }

  /**
   * The panel's parts, made once: headings, texts, the formula, the tables' headers and rows (a
   * row per width, its cells filled by #fill) and the box of the charts.
   */
  #build() {
    const formula = el('div', { class: 'formula', part: 'formula' });
    // No live numbers in the formula: typeset once.
    renderTexCached(formula, this.#texCache, `\\operatorname{Var}(\\mathbf q\\cdot\\mathbf k) = \\sum_{i=1}^{d_k} \\operatorname{Var}(q_i k_i) = d_k, \\qquad \\operatorname{Var}\\Big(\\frac{\\mathbf q\\cdot\\mathbf k}{\\sqrt{d_k}}\\Big) = 1, \\qquad \\operatorname{Var}\\Big(\\frac{\\mathbf q\\cdot\\mathbf k}{d_k}\\Big) = \\frac{1}{d_k}`);
    const U = (t) => t('scaling.unscaled');
    const S = (t) => t('scaling.scaled');
    const L = (t) => t('scaling.linear');
    const dk = (t) => t('scaling.dk');
    const weight = (kind) => (t) => `${t('scaling.maxWeight')} (${kind(t)})`;
    const parts = {
      charts: el('div', { class: 'grid' }),
      data: this.#rows('data-dk', 5),
      divide: this.#rows('data-divide-dk', 5),
    };
    const table = (labels, rows, role) => {
      const head = el('tr', {}, ...labels.map((label) => this.#text(el('th', { scope: 'col' }), label)));
      return el('div', { class: 'scroll' }, el('table', { class: 'stats', 'data-role': role }, el('thead', {}, head), rows.body));
    };
    const samples = this.#text(el('p', { class: 'note' }), (t) => t('scaling.samples', { n: PAIRS, m: KEYS, seed: this.#seed }));
    const dataTable = table([dk, (t) => t('scaling.variance'), weight(U), weight(S), (t) => `‖J‖ (${U(t)})`, (t) => `‖J‖ (${S(t)})`], parts.data, 'data');
    const details = el('details', { part: 'data' }, this.#text(el('summary'), (t) => t('scaling.table')), dataTable);
    this.root.replaceChildren(
      this.#text(el('h2'), (t) => t('scaling.heading')),
      this.#text(el('p', { class: 'intro' }), (t) => t('scaling.intro')),
      formula,
      parts.charts,
      samples,
      this.#text(el('h3'), (t) => t('scaling.whyHeading')),
      this.#text(el('p', { class: 'note' }), (t) => t('scaling.why', { m: KEYS, n: PAIRS })),
      table([dk, (t) => t('scaling.varSqrt'), (t) => t('scaling.varLinear'), () => '1 / d_k', weight(S), weight(L)], parts.divide, 'divide'),
      details,
    );
    return parts;
  }

  /** A table body with a row per width d_k (`attribute` = d_k) and `columns` cells for #fill. */
  #rows(attribute, columns) {
    const cells = [];
    const row = (d) => {
      const tds = Array.from({ length: columns }, () => el('td'));
      cells.push(tds);
      return el('tr', { [attribute]: String(d) }, el('th', { scope: 'row', text: String(d) }), ...tds);
    };
    return { body: el('tbody', {}, ...WIDTHS.map(row)), cells };
  }

  /**
   * The charts and tables of `data` (a new seed), in place: the cells' numbers, and the charts'
   * lines where their axes stay (replacing them all cost the seed's frame some 5 ms of script,
   * style and layout).
   */
  #fill(data) {
    const put = ({ cells }, values) =>
      cells.forEach((tds, i) =>
        values(data[i]).forEach((v, j) => {
          if (tds[j].textContent !== fixed(v)) tds[j].textContent = fixed(v);
        }),
      );
    put(this.#parts.data, (r) => [r.variance, r.maxUnscaled, r.maxScaled, r.jacUnscaled, r.jacScaled]);
    put(this.#parts.divide, (r) => [r.varianceSqrt, r.varianceLinear, 1 / r.d, r.maxScaled, r.maxLinear]);
    const t = this.t;
    const x = data.map((r) => r.d);
    chartSpecs(data).forEach((spec, k) => {
      const o = { title: spec.title(t), x, series: spec.series.map((s) => ({ ...s, label: s.label(t) })), xLog: true, xLabel: 'd_k', ...spec.axes };
      const kept = this.#charts[k];
      if (kept && redrawSeries(kept.svg, o)) return;
      const made = this.#chart(spec, o);
      if (kept) kept.figure.replaceWith(made.figure);
      else this.#parts.charts.append(made.figure);
      this.#charts[k] = made;
    });
  }

  /** A chart's figure: caption, the chart lineChart draws from `o`, and its key. */
  #chart(spec, o) {
    const t = this.t;
    const texts = [];
    const svg = this.#text(lineChart(o), spec.title, 'aria-label', texts);
    this.#text(svg.querySelector('title'), spec.title, undefined, texts);
    const items = spec.series.map((s) => {
      const item = legendItem(s.label(t), s.color, s.dash);
      this.#text(item.lastChild, s.label, undefined, texts); // its text node: the swatch stays
      return item;
    });
    const figure = el('figure', { class: 'chart chart-wrap', part: 'chart' }, this.#text(el('figcaption'), spec.title, undefined, texts), svg, el('div', { class: 'key' }, ...items));
    return { figure, svg, texts };
  }
}

/**
 * The three charts of `data` against d_k: the variance of the scores, the largest weight and the
 * Jacobian's norm; texts as functions of the translator. The Jacobian's axis goes to the first
 * tenth at or above 1.1 times its largest value (0.4 for almost every seed), so a new seed keeps
 * the axes.
 */
function chartSpecs(data) {
  const U = { label: (tr) => tr('scaling.unscaled'), color: PALETTE.vermillion };
  const S = { label: (tr) => tr('scaling.scaled'), color: PALETTE.blue, dash: '5 4' };
  const L = { label: (tr) => tr('scaling.linear'), color: PALETTE.green, dash: '2 3' };
  const jacTop = Math.ceil(Math.max(...data.map((r) => Math.max(r.jacScaled, r.jacUnscaled))) * 1.1 * 10) / 10;
  const series = (kind, key) => ({ ...kind, y: data.map((r) => r[key]) });
  return [
    { title: (tr) => tr('scaling.varianceChart'), series: [series(U, 'variance'), series(S, 'varianceSqrt'), series(L, 'varianceLinear')], axes: { yLog: true, yRange: [0.001, 1000], yTicks: [0.01, 0.1, 1, 10, 100, 1000] } },
    { title: (tr) => tr('scaling.maxWeight'), series: [series(U, 'maxUnscaled'), series(S, 'maxScaled'), series(L, 'maxLinear')], axes: { yRange: [0, 1] } },
    { title: (tr) => tr('scaling.jacobian'), series: [series(U, 'jacUnscaled'), series(S, 'jacScaled')], axes: { yRange: [0, jacTop] } },
  ];
}
