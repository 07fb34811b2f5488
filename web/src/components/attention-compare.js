// <attention-compare>: additive vs scaled dot-product vs unscaled dot-product
// on the same Q, K, V and mask; entropy per row, parameters, FLOPs and the
// time each WASM call took; and queries whose width differs from the keys'.
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { randomMatrix } from '../random.js';
import { renderTexCached } from '../tex.js';

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
    const t = this.t;
    const model = buildModel(this.config(), this.inputs);
    const { tokens, mask, config } = model;
    // The first head's projections give the queries, keys and values (library results).
    const first = (W) => firstColumns(W, config.dK);
    const trace = lab.selfAttention(model.X, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv), trace: true }).steps;
    const get = (id) => trace.find((s) => s.id === id).matrix;
    const Q = get('Q');
    const K = get('K');
    const V = get('V');
    const h = this.hiddenSize;
    const n = Q.rows;
    const seed = config.seed;
    const Wq = randomMatrix(config.dK, h, seed * 7 + 11, 1 / Math.sqrt(config.dK));
    const Wk = randomMatrix(config.dK, h, seed * 7 + 12, 1 / Math.sqrt(config.dK));
    const wv = randomMatrix(1, h, seed * 7 + 13, 1).data;

    const [additive, tAdd] = timed(() => lab.additiveAttention(Q, K, V, { Wq, Wk, wv, mask }));
    const [scaled, tScaled] = timed(() => lab.scaledDotProductAttention(Q, K, V, { mask }));
    const [dot, tDot] = timed(() => lab.scaledDotProductAttention(Q, K, V, { mask, scale: 1 }));

    const root = this.root;
    const pool = (this._pool ??= new Map());
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    const lang = this.language;
    const out = [this.keep('h2', lang, () => el('h2', { text: t('compare.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('compare.intro') }))];
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, (this._texCache ??= new Map()), `a(\\mathbf q,\\mathbf k) = \\mathbf w_v^{\\top}\\tanh(\\mathbf W_q\\mathbf q + \\mathbf W_k\\mathbf k) \\quad\\text{vs}\\quad \\frac{\\mathbf q^{\\top}\\mathbf k}{\\sqrt{d_k}} \\quad\\text{vs}\\quad \\mathbf q^{\\top}\\mathbf k`);
    out.push(formula);

    // The slider is kept (a reader may be dragging it); its value and label follow the attribute.
    if (!this._slider) {
      const slider = el('input', { type: 'range', min: '1', max: '64', step: '1', id: 'hidden', 'data-key': 'hidden' });
      slider.addEventListener('input', () => this.setAttribute('hidden-size', slider.value));
      const label = el('label', { for: 'hidden' });
      this._slider = { slider, label, box: el('div', { class: 'controls' }, el('div', { class: 'field' }, label, slider)) };
    }
    const { slider, label, box } = this._slider;
    if (slider.value !== String(h)) slider.value = String(h);
    if (label.textContent !== `${t('compare.hidden')}: ${h}`) label.textContent = `${t('compare.hidden')}: ${h}`;
    out.push(box);

    const compact = n > 8;
    const methods = [
      ['additive', additive, tAdd],
      ['scaled', scaled, tScaled],
      ['dot', dot, tDot],
    ];
    const grid = (this._grid ??= el('div', { class: 'grid' }));
    const figures = [];
    for (const [key, result] of methods) {
      const heat = createHeatmap({ t, name: t(`compare.${key}`), file: `compare-${key}-weights`, matrix: result.weights, rowLabels: tokens, colLabels: tokens, compact, pool, slot: key });
      heat.el.dataset.method = key;
      figures.push(heat.el);
    }
    place(grid, figures);
    out.push(grid);

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
    out.push(el('div', { class: 'scroll' }, table));

    // Queries of another width: the dot product cannot apply, additive can.
    const dq = config.dK + 3;
    const Qwide = randomMatrix(n, dq, seed * 7 + 17, 1);
    const WqWide = randomMatrix(dq, h, seed * 7 + 18, 1 / Math.sqrt(dq));
    out.push(el('h3', { text: t('compare.mismatch') }), el('p', { class: 'muted', text: t('compare.mismatchIntro', { dq, dk: config.dK }) }));
    let failure = '';
    try {
      lab.scaledDotProductAttention(Qwide, K, V);
    } catch (error) {
      failure = error.message;
    }
    out.push(el('p', { text: t('compare.dotFails') }), el('p', { class: 'error', 'data-role': 'dot-error', text: failure || '—' }));
    const wide = lab.additiveAttention(Qwide, K, V, { Wq: WqWide, Wk, wv, mask });
    out.push(el('p', { text: t('compare.additiveWorks', { n, m: n }) }));
    out.push(createHeatmap({ t, name: `${t('compare.additive')} (d_q = ${dq}, d_k = ${config.dK})`, file: 'additive-wide-weights', matrix: wide.weights, rowLabels: tokens, colLabels: tokens, compact, pool, slot: 'wide' }).el);
    place(root, out);
  }
}

/** The first `keep` columns of a weight matrix (an input, copied, not computed). */
function firstColumns(W, keep) {
  if (W.cols === keep) return W;
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
}
