// <attention-scaling>: why scores are divided by √d_k (and not by d_k). The variance of q·k is
// sampled for growing d_k; softmax rows of unscaled and scaled scores come from the library, and
// their largest weight and Jacobian norm are shown.
//
// The panel is built once; a change of seed rebuilds the charts and tables, a change of language
// only rewrites their texts in place (replacing the whole panel cost one 67 ms style and layout).
import { AttentionElement } from '../base.js';
import { PALETTE, legendItem, lineChart } from '../chart.js';
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
  /** Texts that follow the language: [node, text(t), attribute?]; `#dataTexts` are the charts' and tables'. */
  #texts = [];
  #dataTexts = [];

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
    for (const [node, text, attribute] of [...this.#texts, ...this.#dataTexts]) {
      const value = text(t);
      if (attribute ? node.getAttribute(attribute) !== value : node.textContent !== value) attribute ? node.setAttribute(attribute, value) : (node.textContent = value);
    }
  }

  /** A node whose text (or `attribute`) is `text(t)` in the current language. */
  #text(node, text, attribute, list = this.#texts) {
    list.push([node, text, attribute]);
    return node;
  }

  /** The panel's parts, made once: headings, texts, the formula, and the boxes #fill fills. */
  #build() {
    const formula = el('div', { class: 'formula', part: 'formula' });
    // No live numbers in the formula: typeset once.
    renderTexCached(formula, this.#texCache, `\\operatorname{Var}(\\mathbf q\\cdot\\mathbf k) = \\sum_{i=1}^{d_k} \\operatorname{Var}(q_i k_i) = d_k, \\qquad \\operatorname{Var}\\Big(\\frac{\\mathbf q\\cdot\\mathbf k}{\\sqrt{d_k}}\\Big) = 1, \\qquad \\operatorname{Var}\\Big(\\frac{\\mathbf q\\cdot\\mathbf k}{d_k}\\Big) = \\frac{1}{d_k}`);
    const parts = { charts: el('div', { class: 'grid' }), divide: el('tbody'), data: el('tbody'), divideHead: el('tr'), dataHead: el('tr') };
    const samples = this.#text(el('p', { class: 'note' }), (t) => t('scaling.samples', { n: PAIRS, m: KEYS, seed: this.#seed }));
    const table = (head, body, role) => el('div', { class: 'scroll' }, el('table', { class: 'stats', 'data-role': role }, el('thead', {}, head), body));
    const details = el('details', { part: 'data' }, this.#text(el('summary'), (t) => t('scaling.table')), table(parts.dataHead, parts.data, 'data'));
    this.root.replaceChildren(
      this.#text(el('h2'), (t) => t('scaling.heading')),
      this.#text(el('p', { class: 'intro' }), (t) => t('scaling.intro')),
      formula,
      parts.charts,
      samples,
      this.#text(el('h3'), (t) => t('scaling.whyHeading')),
      this.#text(el('p', { class: 'note' }), (t) => t('scaling.why', { m: KEYS, n: PAIRS })),
      table(parts.divideHead, parts.divide, 'divide'),
      details,
    );
    return parts;
  }

  /** The charts and tables of `data` (a new seed); their texts follow the language through #dataTexts. */
  #fill(data) {
    this.#dataTexts = [];
    const { charts, divide, divideHead, data: body, dataHead } = this.#parts;
    charts.replaceChildren(...this.#charts(data));
    const header = (row, labels) => row.replaceChildren(...labels.map((label) => this.#text(el('th', { scope: 'col' }), label, undefined, this.#dataTexts)));
    const U = (t) => t('scaling.unscaled');
    const S = (t) => t('scaling.scaled');
    const L = (t) => t('scaling.linear');
    header(dataHead, [(t) => t('scaling.dk'), (t) => t('scaling.variance'), (t) => `${t('scaling.maxWeight')} (${U(t)})`, (t) => `${t('scaling.maxWeight')} (${S(t)})`, (t) => `‖J‖ (${U(t)})`, (t) => `‖J‖ (${S(t)})`]);
    const row = (attrs, r, values) => el('tr', attrs, el('th', { scope: 'row', text: String(r.d) }), ...values.map((v) => el('td', { text: fixed(v) })));
    body.replaceChildren(...data.map((r) => row({ 'data-dk': String(r.d) }, r, [r.variance, r.maxUnscaled, r.maxScaled, r.jacUnscaled, r.jacScaled])));
    header(divideHead, [(t) => t('scaling.dk'), (t) => t('scaling.varSqrt'), (t) => t('scaling.varLinear'), () => '1 / d_k', (t) => `${t('scaling.maxWeight')} (${S(t)})`, (t) => `${t('scaling.maxWeight')} (${L(t)})`]);
    divide.replaceChildren(...data.map((r) => row({ 'data-divide-dk': String(r.d) }, r, [r.varianceSqrt, r.varianceLinear, 1 / r.d, r.maxScaled, r.maxLinear])));
  }

  /** Variance of the scores, the largest weight and the Jacobian's norm against d_k. */
  #charts(data) {
    const t = this.t;
    const x = data.map((r) => r.d);
    const chart = (title, series, extra = {}) => {
      const svg = lineChart({ title: title(t), x, series: series.map((s) => ({ ...s, label: s.label(t) })), xLog: true, xLabel: 'd_k', ...extra });
      this.#text(svg, title, 'aria-label', this.#dataTexts);
      this.#text(svg.querySelector('title'), title, undefined, this.#dataTexts);
      const items = series.map((s) => {
        const item = legendItem(s.label(t), s.color, s.dash);
        this.#text(item.lastChild, s.label, undefined, this.#dataTexts); // its text node: the swatch stays
        return item;
      });
      const key = el('div', { class: 'key' }, ...items);
      return el('figure', { class: 'chart chart-wrap', part: 'chart' }, this.#text(el('figcaption'), title, undefined, this.#dataTexts), svg, key);
    };
    const U = { label: (tr) => tr('scaling.unscaled'), color: PALETTE.vermillion };
    const S = { label: (tr) => tr('scaling.scaled'), color: PALETTE.blue, dash: '5 4' };
    const L = { label: (tr) => tr('scaling.linear'), color: PALETTE.green, dash: '2 3' };
    const jacTop = Math.max(...data.map((r) => Math.max(r.jacScaled, r.jacUnscaled))) * 1.1;
    return [
      chart((tr) => tr('scaling.varianceChart'), [{ ...U, y: data.map((r) => r.variance) }, { ...S, y: data.map((r) => r.varianceSqrt) }, { ...L, y: data.map((r) => r.varianceLinear) }], { yLog: true, yRange: [0.001, 1000], yTicks: [0.01, 0.1, 1, 10, 100, 1000] }),
      chart((tr) => tr('scaling.maxWeight'), [{ ...U, y: data.map((r) => r.maxUnscaled) }, { ...S, y: data.map((r) => r.maxScaled) }, { ...L, y: data.map((r) => r.maxLinear) }], { yRange: [0, 1] }),
      chart((tr) => tr('scaling.jacobian'), [{ ...U, y: data.map((r) => r.jacUnscaled) }, { ...S, y: data.map((r) => r.jacScaled) }], { yRange: [0, jacTop] }),
    ];
  }
}
