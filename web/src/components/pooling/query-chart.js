// <attention-pooling>'s chart: the truth, the training points sized by the query's weights, the
// prediction, and the query as a line with a handle the reader drags along x. Built once per data
// set and language, then updated in place (the prediction's path, the points' radii, the query's
// line and handle): a new SVG per change cost style and layout on every move of a slider.
import { PALETTE, legendItem, lineChart, svg } from '../../chart.js';
import { el } from '../../dom.js';
import { truth } from '../../pooling-data.js';
import { fmt } from './settings.js';

/**
 * The y axis: from 0 (or below) to above the largest target, a tick at each integer. Predictions
 * are averages of the targets with weights ≥ 0, so they stay inside it whatever the kernel.
 */
function yAxis(values) {
  const lo = Math.floor(Math.min(0, ...values));
  const hi = Math.ceil(Math.max(...values));
  return { yRange: [lo, hi], yTicks: Array.from({ length: hi - lo + 1 }, (_, k) => lo + k) };
}

/**
 * The prediction as an SVG path over the test points whose row of weights is not all zero:
 * a query with no key in the window has no prediction, so the line breaks there (a lone point
 * is a zero-length segment, drawn as a dot by the round caps).
 */
export function predictionPath(xTest, predictions, empty, sx, sy) {
  const skip = new Set(empty);
  let d = '';
  let open = false;
  for (let k = 0; k < xTest.length; k++) {
    if (skip.has(k)) {
      open = false;
      continue;
    }
    const point = `${sx(xTest[k]).toFixed(1)},${sy(predictions[k]).toFixed(1)}`;
    const lone = !open && (k + 1 >= xTest.length || skip.has(k + 1));
    d += open ? `L${point}` : lone ? `M${point}L${point}` : `M${point}`;
    open = true;
  }
  return d;
}

/** The chart's fixed parts for the data set `{ xTrain, yTrain }`, in `t`'s language. */
function build(t, { xTrain, yTrain }) {
  const grid = Array.from({ length: 101 }, (_, k) => k * 0.05);
  const chart = lineChart({
    title: t('pooling.heading'),
    width: 560,
    height: 300,
    x: grid,
    xRange: [0, 5],
    ...yAxis(yTrain),
    xTicks: [0, 1, 2, 3, 4, 5],
    series: [
      { label: t('pooling.truth'), y: grid.map(truth), color: PALETTE.blue, dash: '6 4' },
      { label: t('pooling.train'), x: Array.from(xTrain), y: Array.from(yTrain), color: PALETTE.orange, points: true, stroke: '#000' },
    ],
  });
  chart.classList.add('query-chart');
  const points = [...chart.querySelectorAll('g > circle')];
  const path = svg('path', { fill: 'none', stroke: PALETTE.vermillion, 'stroke-width': 2, 'stroke-linecap': 'round', 'data-role': 'prediction-line' });
  const line = svg('line', { y1: 12, y2: 266, stroke: PALETTE.green, 'stroke-width': 2 });
  const handle = svg('circle', { r: 7, stroke: '#000', class: 'handle' });
  chart.append(path, line, handle);
  const key = el('div', { class: 'key' }, legendItem(t('pooling.truth'), PALETTE.blue, true), legendItem(t('pooling.train'), PALETTE.orange), legendItem(t('pooling.pred'), PALETTE.vermillion), legendItem(t('pooling.query'), PALETTE.green));
  const readout = el('p', { class: 'readout', 'data-role': 'prediction' });
  const figure = el('figure', { class: 'chart chart-wrap', part: 'chart' }, chart, key, readout);
  return { figure, chart, points, path, line, handle, readout, radii: [], d: '' };
}

/**
 * Dragging on the chart moves the query: `onQuery()(x)` with x in [0, 5] (two decimals); `drag`
 * ({ active }) outlives a rebuilt chart, so a drag goes on across a change of language.
 */
function draggable(chart, drag, onQuery) {
  const move = (e) => {
    const pt = chart.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const local = pt.matrixTransform(chart.getScreenCTM().inverse());
    onQuery()(Math.round(Math.min(5, Math.max(0, chart.invertX(local.x))) * 100) / 100);
  };
  chart.addEventListener('pointerdown', (e) => {
    drag.active = true;
    move(e);
  });
  chart.addEventListener('pointermove', (e) => drag.active && e.buttons && move(e));
  chart.addEventListener('pointerup', () => (drag.active = false));
}

/** The chart kept by a host: `sync` rebuilds it only for new data or another language. */
export class QueryChart {
  #view = null;
  #key = '';
  #drag = { active: false };
  #setQuery = () => {};

  /**
   * The figure for `data` ({ xTrain, yTrain, xTest, all, one, empty }: the library's results for
   * every test point and for the query, and the test points with no key in the window), at
   * query `xq`; `key` names the data set and language; `setQuery(x)` moves the query.
   */
  sync(t, key, data, xq, setQuery) {
    this.#setQuery = setQuery;
    if (this.#key !== key || !this.#view) {
      this.#view = build(t, data);
      this.#key = key;
      draggable(this.#view.chart, this.#drag, () => this.#setQuery);
    }
    update(this.#view, t, data, xq);
    return this.#view.figure;
  }
}

/** This change's numbers into the kept chart; attributes written only when they differ. */
function update(view, t, { xTest, all, one, empty }, xq) {
  const { chart } = view;
  const d = predictionPath(xTest, all.predictions, empty, chart.scaleX, chart.scaleY);
  if (view.d !== d) view.path.setAttribute('d', (view.d = d));
  const w = one.weights.data;
  const wmax = Math.max(...w) || 1;
  view.points.forEach((circle, j) => {
    const r = (2.5 + 6 * Math.sqrt(w[j] / wmax)).toFixed(2);
    if (view.radii[j] !== r) circle.setAttribute('r', (view.radii[j] = r));
  });
  const X = chart.scaleX(xq).toFixed(1);
  // A query with no key in the window has no prediction: its handle is hollow, halfway up.
  const none = one.weights.data.every((v) => v === 0);
  const Y = none ? (12 + 266) / 2 : chart.scaleY(one.predictions[0]).toFixed(1);
  for (const [node, attrs] of [
    [view.line, { x1: X, x2: X }],
    [view.handle, { cx: X, cy: Y, fill: none ? 'none' : PALETTE.green, 'stroke-dasharray': none ? '3 2' : 'none' }],
  ])
    for (const [name, value] of Object.entries(attrs)) if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value);
  const text = none ? t('pooling.noPredAt', { x: fmt(xq) }) : t('pooling.predAt', { x: fmt(xq), y: one.predictions[0].toFixed(4) });
  if (view.readout.textContent !== text) view.readout.textContent = text;
}
