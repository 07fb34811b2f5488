// <attention-pooling>'s chart: the truth, the training points sized by the query's weights, the
// prediction, and the query as a line with a handle the reader drags along x.
import { PALETTE, legendItem, lineChart, svg } from '../../chart.js';
import { el } from '../../dom.js';
import { truth } from '../../pooling-data.js';
import { fmt } from './settings.js';

/** The y axis: from 0 (or below) to above the largest value, a tick at each integer. */
function yAxis(values) {
  const lo = Math.floor(Math.min(0, ...values));
  const hi = Math.ceil(Math.max(...values));
  return { yRange: [lo, hi], yTicks: Array.from({ length: hi - lo + 1 }, (_, k) => lo + k) };
}

/** The line chart of the data, the truth and the predictions `all`, the training points sized by the query's weights `one`. */
function poolingChart(t, { xTrain, yTrain, xTest, all, one }) {
  const grid = Array.from({ length: 101 }, (_, k) => k * 0.05);
  const w = one.weights.data;
  const wmax = Math.max(...w) || 1;
  return lineChart({
    title: t('pooling.heading'),
    width: 560,
    height: 300,
    x: Array.from(xTest),
    xRange: [0, 5],
    ...yAxis([...yTrain, ...all.predictions]),
    xTicks: [0, 1, 2, 3, 4, 5],
    series: [
      { label: t('pooling.truth'), x: grid, y: grid.map(truth), color: PALETTE.blue, dash: '6 4' },
      { label: t('pooling.train'), x: Array.from(xTrain), y: Array.from(yTrain), color: PALETTE.orange, points: true, stroke: '#000', r: Array.from(w, (v) => 2.5 + 6 * Math.sqrt(v / wmax)) },
      { label: t('pooling.pred'), y: Array.from(all.predictions), color: PALETTE.vermillion },
    ],
  });
}

/**
 * Dragging on the chart moves the query: `setQuery(x)` with x in [0, 5] (two decimals). `drag`
 * ({ active }) is the host's, so a drag goes on across the chart a re-render draws anew.
 */
function draggable(chart, drag, setQuery) {
  const move = (e) => {
    const pt = chart.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const local = pt.matrixTransform(chart.getScreenCTM().inverse());
    setQuery(Math.round(Math.min(5, Math.max(0, chart.invertX(local.x))) * 100) / 100);
  };
  chart.addEventListener('pointerdown', (e) => {
    drag.active = true;
    move(e);
  });
  chart.addEventListener('pointermove', (e) => drag.active && e.buttons && move(e));
  chart.addEventListener('pointerup', () => (drag.active = false));
}

/** The chart at query x = `xq` (its prediction `one`), with its key and the prediction in words, in a figure. */
export function queryChart(t, data, xq, drag, setQuery) {
  const chart = poolingChart(t, data);
  chart.classList.add('query-chart');
  const X = chart.scaleX(xq);
  chart.append(svg('line', { x1: X, x2: X, y1: 12, y2: 266, stroke: PALETTE.green, 'stroke-width': 2 }));
  chart.append(svg('circle', { cx: X, cy: chart.scaleY(data.one.predictions[0]), r: 7, fill: PALETTE.green, stroke: '#000', class: 'handle' }));
  draggable(chart, drag, setQuery);
  const key = el('div', { class: 'key' }, legendItem(t('pooling.truth'), PALETTE.blue, true), legendItem(t('pooling.train'), PALETTE.orange), legendItem(t('pooling.pred'), PALETTE.vermillion), legendItem(t('pooling.query'), PALETTE.green));
  const readout = el('p', { class: 'readout', 'data-role': 'prediction', text: t('pooling.predAt', { x: fmt(xq), y: data.one.predictions[0].toFixed(4) }) });
  return el('figure', { class: 'chart chart-wrap', part: 'chart' }, chart, key, readout);
}
