// <attention-pooling>: Nadaraya-Watson kernel regression, the oldest attention
// pooling, on Dive into Deep Learning's data. Predictions and weights come from
// lab.nadarayaWatson; the reader picks the kernel, the bandwidth and a query.
import { AttentionElement } from '../../base.js';
import { PALETTE, legendItem, lineChart, svg } from '../../chart.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { poolingData, truth } from '../../pooling-data.js';
import { renderTexCached } from '../../tex.js';

export const KERNELS = ['gaussian', 'boxcar', 'epanechnikov', 'constant'];

const fmt = (v) => Number(v.toFixed(2)).toString();
// Parametric pooling: gradient descent on w from w = 1 (bandwidth 1), ten steps.
const FIT = { w: 1, epochs: 10 };
const RATES = ['0.02', '0.1', '0.5'];

export class AttentionPooling extends AttentionElement {
  static tag = 'attention-pooling';

  static get observedAttributes() {
    return [...super.observedAttributes, 'query'];
  }

  get kernel() {
    const k = this.getAttribute('kernel');
    return KERNELS.includes(k) ? k : 'gaussian';
  }
  get bandwidth() {
    const b = Number(this.getAttribute('bandwidth'));
    return b > 0 && b <= 10 ? b : 1;
  }
  get query() {
    const q = Number(this.getAttribute('query'));
    return this.hasAttribute('query') && q >= 0 && q <= 5 ? q : 2.5;
  }

  outOfRange() {
    const changed = super.outOfRange();
    for (const name of ['kernel', 'bandwidth', 'query']) this.noteAttribute(changed, name, this[name]);
    return changed;
  }

  changed() {
    this.emit('attention-pooling', { kernel: this.kernel, bandwidth: this.bandwidth, query: this.query });
  }

  render(lab) {
    const t = this.t;
    const seed = this.config().seed;
    const { xTrain, yTrain, xTest } = poolingData(seed);
    const options = { kernel: this.kernel, bandwidth: this.bandwidth };
    // The 50×50 weights depend on the data, kernel and bandwidth only: dragging the query reuses them.
    const dataKey = `${seed}|${options.kernel}|${options.bandwidth}|${this.language}`;
    if (this._allKey !== dataKey) {
      this._allKey = dataKey;
      this._all = lab.nadarayaWatson(xTrain, yTrain, xTest, options);
    }
    const all = this._all;
    const xq = this.query;
    const one = lab.nadarayaWatson(xTrain, yTrain, [xq], options);

    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so the kept heatmaps and formula stay where they are.
    const out = [el('h2', { text: t('pooling.heading') }), el('p', { class: 'intro', text: t('pooling.intro') })];
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, (this._texCache ??= new Map()), `f(x) = \\sum_{i=1}^{50} \\alpha(x, x_i)\\, y_i, \\qquad \\alpha(x, x_i) = \\frac{K\\big(\\frac{x - x_i}{${fmt(this.bandwidth)}}\\big)}{\\sum_{j} K\\big(\\frac{x - x_j}{${fmt(this.bandwidth)}}\\big)}`);
    out.push(formula);

    // The controls are kept (a reader may be dragging a slider: a new one would end the drag);
    // their values and labels follow the attributes.
    const ui = this.controls();
    if (ui.kernel._lang !== this.language) {
      ui.kernel.replaceChildren(...KERNELS.map((k) => el('option', { value: k, text: t(`kernel.${k}`) })));
      ui.kernel._lang = this.language;
    }
    const sync = (input, value) => input.value !== value && (input.value = value);
    sync(ui.kernel, this.kernel);
    sync(ui.bw, String(this.bandwidth));
    sync(ui.q, String(xq));
    const text = (node, value) => node.textContent !== value && (node.textContent = value);
    text(ui.labels.kernel, t('pooling.kernel'));
    text(ui.labels.bw, `${t('pooling.bandwidth')}: ${fmt(this.bandwidth)}`);
    text(ui.labels.q, `${t('pooling.query')}: ${fmt(xq)}`);
    text(ui.labels.help, t('pooling.queryHelp'));
    const controls = ui.box;
    out.push(controls);

    // The chart: truth, training points sized by the query's weights, prediction, query line.
    const grid = Array.from({ length: 101 }, (_, k) => k * 0.05);
    const w = one.weights.data;
    const wmax = Math.max(...w) || 1;
    const ys = [...yTrain, ...all.predictions];
    const chart = lineChart({
      title: t('pooling.heading'),
      width: 560,
      height: 300,
      x: Array.from(xTest),
      xRange: [0, 5],
      yRange: [Math.floor(Math.min(0, ...ys)), Math.ceil(Math.max(...ys))],
      yTicks: Array.from({ length: Math.ceil(Math.max(...ys)) - Math.floor(Math.min(0, ...ys)) + 1 }, (_, k) => Math.floor(Math.min(0, ...ys)) + k),
      xTicks: [0, 1, 2, 3, 4, 5],
      series: [
        { label: t('pooling.truth'), x: grid, y: grid.map(truth), color: PALETTE.blue, dash: '6 4' },
        { label: t('pooling.train'), x: Array.from(xTrain), y: Array.from(yTrain), color: PALETTE.orange, points: true, stroke: '#000', r: Array.from(w, (v) => 2.5 + 6 * Math.sqrt(v / wmax)) },
        { label: t('pooling.pred'), y: Array.from(all.predictions), color: PALETTE.vermillion },
      ],
    });
    const X = chart.scaleX(xq);
    chart.append(svg('line', { x1: X, x2: X, y1: 12, y2: 266, stroke: PALETTE.green, 'stroke-width': 2 }));
    chart.append(svg('circle', { cx: X, cy: chart.scaleY(one.predictions[0]), r: 7, fill: PALETTE.green, stroke: '#000', class: 'handle', style: 'cursor: ew-resize' }));
    chart.style.touchAction = 'none';
    const drag = (e) => {
      const pt = chart.createSVGPoint();
      pt.x = e.clientX;
      pt.y = e.clientY;
      const local = pt.matrixTransform(chart.getScreenCTM().inverse());
      const v = Math.min(5, Math.max(0, chart.invertX(local.x)));
      this.setAttribute('query', String(Math.round(v * 100) / 100));
    };
    chart.addEventListener('pointerdown', (e) => {
      this._dragging = true;
      drag(e);
    });
    chart.addEventListener('pointermove', (e) => this._dragging && e.buttons && drag(e));
    chart.addEventListener('pointerup', () => (this._dragging = false));
    const figure = el('figure', { class: 'chart chart-wrap', part: 'chart' }, chart);
    const key = el('div', { class: 'key' });
    key.append(legendItem(t('pooling.truth'), PALETTE.blue, true), legendItem(t('pooling.train'), PALETTE.orange), legendItem(t('pooling.pred'), PALETTE.vermillion), legendItem(t('pooling.query'), PALETTE.green));
    figure.append(key, el('p', { class: 'readout', 'data-role': 'prediction', text: t('pooling.predAt', { x: fmt(xq), y: one.predictions[0].toFixed(4) }) }));
    out.push(figure);

    out.push(this.renderFit(lab, xTrain, yTrain));

    const trainLabels = Array.from(xTrain, fmt);
    const pool = (this._pool ??= new Map());
    out.push(
      createHeatmap({ t, name: t('pooling.weightsOf', { x: fmt(xq) }), file: 'pooling-query-weights', matrix: one.weights, rowLabels: [`x=${fmt(xq)}`], colLabels: trainLabels, compact: true, pool, slot: 'query' }).el,
      createHeatmap({ t, name: t('pooling.heatmap'), file: 'pooling-weights', matrix: all.weights, rowLabels: Array.from(xTest, fmt), colLabels: trainLabels, compact: true, pool, slot: 'all' }).el,
    );
    place(root, out);
  }

  /** The kernel choice and the bandwidth and query sliders, built once. */
  controls() {
    if (this._controls) return this._controls;
    const kernel = el('select', { id: 'kernel', 'data-key': 'kernel' });
    kernel.addEventListener('change', () => {
      this.setAttribute('kernel', kernel.value);
      this.changed();
    });
    const bw = el('input', { type: 'range', id: 'bandwidth', 'data-key': 'bandwidth', min: '0.05', max: '3', step: '0.05' });
    bw.addEventListener('input', () => {
      this.setAttribute('bandwidth', bw.value);
      this.changed();
    });
    const q = el('input', { type: 'range', id: 'query', 'data-key': 'query', min: '0', max: '5', step: '0.05', 'aria-describedby': 'query-help' });
    q.addEventListener('input', () => this.setAttribute('query', q.value));
    const labels = { kernel: el('label', { for: 'kernel' }), bw: el('label', { for: 'bandwidth' }), q: el('label', { for: 'query' }), help: el('small', { id: 'query-help', class: 'muted' }) };
    const box = el('div', { class: 'controls' }, el('div', { class: 'field' }, labels.kernel, kernel), el('div', { class: 'field' }, labels.bw, bw), el('div', { class: 'field' }, labels.q, q, labels.help));
    return (this._controls = { box, kernel, bw, q, labels });
  }

  /** Parametric pooling (D2L 10.2.4): w of the Gaussian kernel learned by lab.fitParametricPooling. */
  renderFit(lab, xTrain, yTrain) {
    const t = this.t;
    this._rate ??= '0.1';
    // The fit depends on the data and the rate only: dragging the query or changing the kernel reuses it.
    const key = `${this.config().seed}|${this._rate}|${this.language}`;
    if (this._fitKey === key) return this._fitSection;
    this._fitKey = key;
    const fit = lab.fitParametricPooling(xTrain, yTrain, { ...FIT, learningRate: Number(this._rate) });
    const section = el('section', { class: 'fit', part: 'fit', 'aria-labelledby': 'fit-heading' });
    section.append(el('h3', { id: 'fit-heading', text: t('pooling.fitHeading') }), el('p', { class: 'intro', text: t('pooling.fitIntro') }));
    const formula = el('div', { class: 'formula', part: 'formula' });
    renderTexCached(formula, (this._texCache ??= new Map()), String.raw`f(x) = \sum_{i} \operatorname{softmax}\Big(-\tfrac{1}{2}\big((x - x_i)\,w\big)^2\Big)\, y_i, \qquad L(w) = \tfrac{1}{2} \sum_{i} \big(f_{-i}(x_i) - y_i\big)^2`);
    const rate = el('select', { id: 'rate', 'data-key': 'rate' }, ...RATES.map((r) => el('option', { value: r, text: r })));
    rate.value = this._rate;
    rate.addEventListener('change', () => {
      this._rate = rate.value;
      this.requestRender();
    });
    const use = el('button', { type: 'button', id: 'use-learned', 'data-key': 'use-learned', text: t('pooling.useLearned', { h: fit.bandwidth.toFixed(2) }) });
    use.addEventListener('click', () => {
      this.setAttribute('kernel', 'gaussian');
      this.setAttribute('bandwidth', String(Math.min(10, Math.max(0.01, Number(fit.bandwidth.toFixed(2))))));
      this.changed();
    });
    const losses = Array.from(fit.losses);
    const chart = lineChart({
      title: t('pooling.lossTitle'),
      width: 420,
      height: 200,
      x: losses.map((_, e) => e),
      xLabel: t('pooling.epoch'),
      yRange: [0, Math.ceil(Math.max(...losses))],
      series: [{ label: t('pooling.loss'), y: losses, color: PALETTE.vermillion }, { label: t('pooling.loss'), y: losses, color: PALETTE.vermillion, points: true }],
    });
    section.append(
      formula,
      el('div', { class: 'controls' }, el('div', { class: 'field' }, el('label', { for: 'rate', text: t('pooling.rate') }), rate), use),
      el('figure', { class: 'chart chart-wrap', part: 'chart' }, chart),
      el('p', { class: 'readout', 'data-role': 'fit', text: t('pooling.fitResult', { w: fit.w.toFixed(3), h: fit.bandwidth.toFixed(3), first: losses[0].toFixed(2), last: losses.at(-1).toFixed(2), epochs: losses.length }) }),
    );
    this._fitSection = section;
    return section;
  }
}
