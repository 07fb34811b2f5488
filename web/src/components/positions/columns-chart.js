// A few of P's columns against position (falling frequencies), for <attention-positions>.
import { PALETTE, legendItem, lineChart } from '../../chart.js';
import { el } from '../../dom.js';
import { CHART_POSITIONS, chartColumns } from './encoding.js';

const SERIES = [
  { color: PALETTE.blue },
  { color: PALETTE.vermillion, dash: '6 4' },
  { color: PALETTE.green, dash: '2 3' },
  { color: PALETTE.purple, dash: '10 3 2 3' },
];

/** The chart of `chart` (CHART_POSITIONS×d, the encoding's first rows) with its key, in a figure. */
export function columnsChart(t, chart, d) {
  const title = t('positions.chart', { max: CHART_POSITIONS - 1 });
  const x = Array.from({ length: CHART_POSITIONS }, (_, i) => i);
  const series = chartColumns(d).map((j, k) => ({
    label: t('positions.column', { j, fn: j % 2 === 0 ? 'sin' : 'cos', w: j < 2 ? '1' : `10000^(−${2 * Math.floor(j / 2)}/${d})` }),
    y: x.map((i) => chart.data[i * d + j]),
    ...SERIES[k],
  }));
  const key = el('div', { class: 'key' }, ...series.map((s) => legendItem(s.label, s.color, s.dash)));
  const plot = lineChart({ title, x, series, yRange: [-1, 1], yTicks: [-1, -0.5, 0, 0.5, 1], xTicks: [0, 8, 16, 24, 32, 40, 48, 56, 63], xLabel: t('positions.position') });
  return el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': 'chart' }, el('figcaption', { text: title }), plot, key);
}
