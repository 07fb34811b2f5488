// <attention-compare>: additive vs scaled dot-product vs unscaled dot-product
// on the same Q, K, V and mask; entropy per row, parameters, FLOPs and the
// time each WASM call took; and queries whose width differs from the keys'.
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { firstColumns } from '../first-columns.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { randomMatrix } from '../random.js';
import { renderTexCached } from '../tex.js';
import { traceMatrix } from '../trace-view.js';

/** Shannon entropy (nats) of each row of a weight matrix. */
export function rowEntropy(weights) {
  const out = [];
  for (let i = 0; i < weights.rows; i++) {
    let h = 0;
    for (let j = 0; j < weights.cols; j++) {
      const p = weights.data[i * weights.cols + j];
      if (p > 0) h -= p * Math.log(p);
    }
    out.push(h);
  }
  return out;
}

/** Operation counts (a multiply-add is 2 FLOPs; exp and tanh count 1). */
export function costs({ n, m, dq, dk, dv, h }) {
  const softmax = 4 * n * m;
  const mix = 2 * n * m * dv;
  return {
    additive: { params: dq * h + dk * h + h, flops: 2 * n * dq * h + 2 * m * dk * h + n * m * (h + h + 2 * h) + softmax + mix },
    scaled: { params: 0, flops: 2 * n * m * dk + n * m + softmax + mix },
    dot: { params: 0, flops: 2 * n * m * dk + softmax + mix },
  };
}

const timed = (fn) => {
  const start = performance.now();
  const value = fn();
  return [value, performance.now() - start];
};

export class AttentionCompare extends AttentionElement {
  static tag = 'attention-compare';

  #pool = new Map();
  #texCache = new Map();
  #formula = null;
  #slider = null;
  #grid = null;

  static get observedAttributes() {
    return [...super.observedAttributes, 'hidden-size'];
  }

  get hiddenSize() {
    return Math.min(64, Math.max(1, Number(this.getAttribute('hidden-size')) || 8));
  }

  outOfRange() {
    return this.noteAttribute(super.outOfRange(), 'hidden-size', this.hiddenSize);
  }

  render(lab) {
    const model = buildModel(this.config(), this.inputs);
    const run = this.#compare(lab, model);
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    place(root, [...this.#heading(), this.#hiddenSlider(run.h), this.#weights(run, model.tokens), this.#statsTable(run, model), ...this.#mismatch(lab, run, model)]);
  }

  /**
   * The three scoring functions on the first head's queries, keys and values (from the library's
   * self-attention trace), each call timed; the additive one with seeded W_q, W_k, w_v.
   */
  #compare(lab, model) {
    const { config, mask } = model;
    const first = (W) => firstColumns(W, config.dK);
    const trace = lab.selfAttention(model.X, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv), trace: true });
    const [Q, K, V] = ['Q', 'K', 'V'].map((id) => traceMatrix(trace, id));
    const h = this.hiddenSize;
    const seed = config.seed;
    const Wq = randomMatrix(config.dK, h, seed * 7 + 11, 1 / Math.sqrt(config.dK));
    const Wk = randomMatrix(config.dK, h, seed * 7 + 12, 1 / Math.sqrt(config.dK));
    const wv = randomMatrix(1, h, seed * 7 + 13, 1).data;
    const [additive, tAdd] = timed(() => lab.additiveAttention(Q, K, V, { Wq, Wk, wv, mask }));
    const [scaled, tScaled] = timed(() => lab.scaledDotProductAttention(Q, K, V, { mask }));
    const [dot, tDot] = timed(() => lab.scaledDotProductAttention(Q, K, V, { mask, scale: 1 }));
    const methods = [
      ['additive', additive, tAdd],
      ['scaled', scaled, tScaled],
      ['dot', dot, tDot],
    ];
    return { Q, K, V, h, n: Q.rows, Wk, wv, methods };
  }

  #heading() {
    const { t, language: lang } = this;
    const formula = (this.#formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, this.#texCache, `a(\\mathbf q,\\mathbf k) = \\mathbf w_v^{\\top}\\tanh(\\mathbf W_q\\mathbf q + \\mathbf W_k\\mathbf k) \\quad\\text{vs}\\quad \\frac{\\mathbf q^{\\top}\\mathbf k}{\\sqrt{d_k}} \\quad\\text{vs}\\quad \\mathbf q^{\\top}\\mathbf k`);
    return [this.keep('h2', lang, () => el('h2', { text: t('compare.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('compare.intro') })), formula];
  }

  /** The hidden-size slider is kept (a reader may be dragging it); its value and label follow the attribute. */
  #hiddenSlider(h) {
    if (!this.#slider) {
      const slider = el('input', { type: 'range', min: '1', max: '64', step: '1', id: 'hidden', 'data-key': 'hidden' });
      slider.addEventListener('input', () => this.setAttribute('hidden-size', slider.value));
      const label = el('label', { for: 'hidden' });
      this.#slider = { slider, label, box: el('div', { class: 'controls' }, el('div', { class: 'field' }, label, slider)) };
    }
    const { slider, label, box } = this.#slider;
    const text = `${this.t('compare.hidden')}: ${h}`;
    if (slider.value !== String(h)) slider.value = String(h);
    if (label.textContent !== text) label.textContent = text;
    return box;
  }

  /** The three weight matrices side by side. */
  #weights({ methods, n }, tokens) {
    const t = this.t;
    const grid = (this.#grid ??= el('div', { class: 'grid' }));
    const figures = methods.map(([key, result]) => {
      const heat = createHeatmap({ t, name: t(`compare.${key}`), file: `compare-${key}-weights`, matrix: result.weights, rowLabels: tokens, colLabels: tokens, compact: n > 8, pool: this.#pool, slot: key });
      heat.el.dataset.method = key;
      return heat.el;
    });
    place(grid, figures);
    return grid;
  }

  /** Parameters, FLOPs, time per call and each row's entropy, per method. */
  #statsTable({ methods, n, h }, { tokens, config }) {
    const t = this.t;
    const cost = costs({ n, m: n, dq: config.dK, dk: config.dK, dv: config.dK, h });
    const entropies = methods.map(([, r]) => rowEntropy(r.weights));
    const table = el('table', { class: 'stats', part: 'stats' });
    table.append(el('caption', { class: 'sr-only', text: t('compare.heading') }));
    const head = el('tr', {}, el('th', { scope: 'col', text: t('compare.metric') }));
    for (const [key] of methods) head.append(el('th', { scope: 'col', text: t(`compare.${key}`) }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    const row = (label, values) => body.append(el('tr', {}, el('th', { scope: 'row', text: label }), ...values.map((v) => el('td', { text: v }))));
    row(t('compare.params'), methods.map(([key]) => cost[key].params.toLocaleString('en')));
    row(t('compare.flops'), methods.map(([key]) => cost[key].flops.toLocaleString('en')));
    row(t('compare.time'), methods.map(([, , ms]) => `${(ms * 1000).toFixed(0)} µs`));
    tokens.forEach((tok, i) => row(`${t('compare.entropy')} · ${tok}`, entropies.map((e) => e[i].toFixed(3))));
    table.append(body);
    return el('div', { class: 'scroll' }, table);
  }

  /** Queries of another width: the dot product cannot apply (the library's error is shown), additive can. */
  #mismatch(lab, { K, V, h, n, Wk, wv }, { tokens, mask, config }) {
    const t = this.t;
    const dq = config.dK + 3;
    const Qwide = randomMatrix(n, dq, config.seed * 7 + 17, 1);
    const WqWide = randomMatrix(dq, h, config.seed * 7 + 18, 1 / Math.sqrt(dq));
    let failure = '';
    try {
      lab.scaledDotProductAttention(Qwide, K, V);
    } catch (error) {
      failure = error.message;
    }
    const wide = lab.additiveAttention(Qwide, K, V, { Wq: WqWide, Wk, wv, mask });
    const name = `${t('compare.additive')} (d_q = ${dq}, d_k = ${config.dK})`;
    return [
      el('h3', { text: t('compare.mismatch') }),
      el('p', { class: 'muted', text: t('compare.mismatchIntro', { dq, dk: config.dK }) }),
      el('p', { text: t('compare.dotFails') }),
      el('p', { class: 'error', 'data-role': 'dot-error', text: failure || '—' }),
      el('p', { text: t('compare.additiveWorks', { n, m: n }) }),
      createHeatmap({ t, name, file: 'additive-wide-weights', matrix: wide.weights, rowLabels: tokens, colLabels: tokens, compact: n > 8, pool: this.#pool, slot: 'wide' }).el,
    ];
  }
}
