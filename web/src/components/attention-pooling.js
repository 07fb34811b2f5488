// <attention-pooling>: Nadaraya-Watson kernel regression, the oldest attention
// pooling, on Dive into Deep Learning's data. Predictions and weights come from
// lab.nadarayaWatson; the reader picks the kernel, the bandwidth and a query.
import { AttentionElement } from '../base.js';
import { PALETTE, legendItem, lineChart, svg } from '../chart.js';
import { el, createHeatmap } from '../heatmap.js';
import { mulberry32, normals } from '../random.js';
import { renderTex } from '../tex.js';

export const KERNELS = ['gaussian', 'boxcar', 'epanechnikov', 'constant'];
const truth = (x) => 2 * Math.sin(x) + x ** 0.8;

/** 50 sorted training points x ~ U(0, 5), y = 2 sin x + x^0.8 + N(0, 0.5²); test x = 0, 0.1, …, 4.9. */
export function poolingData(seed) {
  const uniform = mulberry32((seed ^ 0x5eed) >>> 0);
  const gauss = normals(uniform);
  const xTrain = Float32Array.from({ length: 50 }, () => uniform() * 5).sort();
  const yTrain = xTrain.map((x) => truth(x) + gauss() * 0.5);
  const xTest = Float32Array.from({ length: 50 }, (_, k) => k * 0.1);
  return { xTrain, yTrain, xTest };
}

const fmt = (v) => Number(v.toFixed(2)).toString();

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
      this._allHeat = null;
    }
    const all = this._all;
    const xq = this.query;
    const one = lab.nadarayaWatson(xTrain, yTrain, [xq], options);

    const root = this.root;
    root.replaceChildren();
    root.setAttribute('lang', this.language);
    root.append(el('h2', { text: t('pooling.heading') }), el('p', { class: 'intro', text: t('pooling.intro') }));
    const formula = el('div', { class: 'formula', part: 'formula' });
    renderTex(formula, `f(x) = \\sum_{i=1}^{50} \\alpha(x, x_i)\\, y_i, \\qquad \\alpha(x, x_i) = \\frac{K\\big(\\frac{x - x_i}{${fmt(this.bandwidth)}}\\big)}{\\sum_{j} K\\big(\\frac{x - x_j}{${fmt(this.bandwidth)}}\\big)}`);
    root.append(formula);

    const controls = el('div', { class: 'controls' });
    const kernel = el('select', { id: 'kernel', 'data-key': 'kernel' }, ...KERNELS.map((k) => el('option', { value: k, text: t(`kernel.${k}`) })));
    kernel.value = this.kernel;
    kernel.addEventListener('change', () => {
      this.setAttribute('kernel', kernel.value);
      this.changed();
    });
    const bw = el('input', { type: 'range', id: 'bandwidth', 'data-key': 'bandwidth', min: '0.05', max: '3', step: '0.05', value: String(this.bandwidth) });
    bw.addEventListener('input', () => {
      this.setAttribute('bandwidth', bw.value);
      this.changed();
    });
    const q = el('input', { type: 'range', id: 'query', 'data-key': 'query', min: '0', max: '5', step: '0.05', value: String(xq), 'aria-describedby': 'query-help' });
    q.addEventListener('input', () => this.setAttribute('query', q.value));
    controls.append(
      el('div', { class: 'field' }, el('label', { for: 'kernel', text: t('pooling.kernel') }), kernel),
      el('div', { class: 'field' }, el('label', { for: 'bandwidth', text: `${t('pooling.bandwidth')}: ${fmt(this.bandwidth)}` }), bw),
      el('div', { class: 'field' }, el('label', { for: 'query', text: `${t('pooling.query')}: ${fmt(xq)}` }), q, el('small', { id: 'query-help', class: 'muted', text: t('pooling.queryHelp') })),
    );
    root.append(controls);

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
    root.append(figure);

    const trainLabels = Array.from(xTrain, fmt);
    root.append(
      createHeatmap({ t, name: t('pooling.weightsOf', { x: fmt(xq) }), file: 'pooling-query-weights', matrix: one.weights, rowLabels: [`x=${fmt(xq)}`], colLabels: trainLabels, compact: true }).el,
      (this._allHeat ??= createHeatmap({ t, name: t('pooling.heatmap'), file: 'pooling-weights', matrix: all.weights, rowLabels: Array.from(xTest, fmt), colLabels: trainLabels, compact: true }).el),
    );
  }
}
