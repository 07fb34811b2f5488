// The long-sequences panel's measured figures: the time-against-n chart with each variant's
// fitted exponent, the table of times behind it, and the bytes of each attention pattern if it
// were stored. Each is built whole from a run's rows (cost/measure.js) and the settings.
import { PALETTE, legendItem, lineChart } from '../../chart.js';
import { el } from '../../dom.js';
import { MAX_OVERHEAD } from '../compare/timing.js';
import { fittedRows, growthExponent, shownTimes, storedKiB } from './measure.js';
import { fmt } from './sentence.js';

/** The variants, in the order drawn, with their line colours and dash patterns. */
const METHODS = [
  { key: 'full', color: PALETTE.vermillion, dash: undefined },
  { key: 'local', color: PALETTE.blue, dash: '7 3' },
  { key: 'linear', color: PALETTE.green, dash: '2 3' },
  { key: 'linformer', color: PALETTE.purple, dash: '9 3 2 3' },
];
const styleOf = Object.fromEntries(METHODS.map((m) => [m.key, m]));

/** Milliseconds with about two significant digits. */
const ms = (v) => (v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toPrecision(2));

/** A log axis from the power of ten below the smallest value to the one above the largest, a tick at each. */
export function decades(values) {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  if (!positive.length) return {};
  const lo = Math.floor(Math.log10(Math.min(...positive)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive))));
  return { yRange: [10 ** lo, 10 ** hi], yTicks: Array.from({ length: hi - lo + 1 }, (_, e) => 10 ** (lo + e)) };
}

/** The series' names in the reader's language, for settings `s`. */
export function seriesLabels(t, s) {
  return { full: t('cost.seriesFull'), local: t('cost.seriesLocal', { w: s.w }), linear: t('cost.seriesLinear'), linformer: t('cost.seriesLinformer', { k: s.k }) };
}

/** A log-log chart over `sizes` in a figure (its data-role given), with a key below. */
function logLogFigure(role, title, sizes, x, series, key) {
  const chart = lineChart({ title, x, series, xLog: true, yLog: true, ...decades(series.flatMap((ser) => ser.y)), xRange: [sizes[0], sizes[sizes.length - 1] * 1.3], xTicks: sizes, xLabel: key.xLabel });
  return el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': role }, el('figcaption', { text: title }), chart, key.node);
}

/** How many of a row's times are shown. */
const shownCount = (r) => Object.values(shownTimes(r)).filter(Boolean).length;

/** Ms against n for each variant (lines and points), the key naming each fitted exponent. */
export function timeChart(t, rows, s, sizes) {
  const labels = seriesLabels(t, s);
  const fitted = fittedRows(rows);
  const series = [];
  const key = el('div', { class: 'key' });
  // Only the times worth showing (shownTimes: the empty call under a tenth of the call) are drawn and fitted.
  const time = (r, key) => (shownTimes(r)[key] ? r[key] : NaN);
  for (const meth of METHODS) {
    const kept = rows.filter((r) => shownTimes(r)[meth.key]);
    const x = kept.map((r) => r.n);
    const y = kept.map((r) => r[meth.key]);
    if (kept.length) series.push({ label: labels[meth.key], x, y, color: meth.color, dash: meth.dash }, { label: labels[meth.key], x, y, color: meth.color, points: true });
    const e = growthExponent(fitted.map((r) => r.n), fitted.map((r) => time(r, meth.key)));
    const item = legendItem(Number.isFinite(e) ? `${labels[meth.key]}: ${t('cost.slope', { e: e.toFixed(2) })}` : labels[meth.key], meth.color, meth.dash);
    item.dataset.method = meth.key;
    if (Number.isFinite(e)) item.dataset.exponent = e.toFixed(3);
    key.append(item);
  }
  // Nothing long enough to time yet (the first sizes): the note alone, no axes of no points.
  if (!series.length) return el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': 'time-chart' }, el('figcaption', { text: t('cost.timeChart') }), el('p', { class: 'note', 'data-role': 'not-timed', text: t('cost.notTimed', { share: MAX_OVERHEAD * 100 }) }));
  const figure = logLogFigure('time-chart', t('cost.timeChart'), sizes, rows.map((r) => r.n), series, { node: key, xLabel: t('cost.n') });
  figure.append(el('p', { class: 'note', text: t('cost.slopeNote', { from: fitted[0].n, to: fitted[fitted.length - 1].n }) }));
  if (rows.some((r) => shownCount(r) < METHODS.length)) figure.append(el('p', { class: 'note', 'data-role': 'not-timed', text: t('cost.notTimed', { share: MAX_OVERHEAD * 100 }) }));
  return figure;
}

/** The measured times as a table (with 4n², the bytes of the weights), in a details element opened when `open`. */
export function timesTable(t, rows, s, open) {
  const labels = seriesLabels(t, s);
  const head = el('tr', {}, el('th', { scope: 'col', text: 'n' }), ...METHODS.map((meth) => el('th', { scope: 'col', text: `${labels[meth.key]} (${t('cost.ms')})` })), el('th', { scope: 'col', text: '4n²' }));
  const body = el('tbody');
  for (const r of rows) {
    const shown = shownTimes(r);
    body.append(el('tr', { 'data-n': String(r.n) }, el('th', { scope: 'row', text: String(r.n) }), ...METHODS.map((meth) => el('td', { text: shown[meth.key] ? ms(r[meth.key]) : '—' })), el('td', { text: fmt(4 * r.n * r.n) })));
  }
  const table = el('table', { class: 'stats', 'data-role': 'times' }, el('thead', {}, head), body);
  const details = el('details', { part: 'data' }, el('summary', { text: t('cost.table') }), el('div', { class: 'scroll' }, table));
  if (open) details.open = true;
  return details;
}

/** KiB of the attention pattern if it were stored, from the shapes: full, local and Linformer. */
export function memoryChart(t, s, sizes) {
  const kib = sizes.map((n) => storedKiB(n, s));
  const series = [
    { key: 'full', label: t('cost.memFull') },
    { key: 'local', label: t('cost.memLocal') },
    { key: 'linformer', label: t('cost.memLinformer') },
  ].map((ser) => ({ ...ser, y: kib.map((b) => b[ser.key]), color: styleOf[ser.key].color, dash: styleOf[ser.key].dash }));
  const key = el('div', { class: 'key' });
  for (const ser of series) key.append(legendItem(ser.label, ser.color, ser.dash));
  const top = sizes[sizes.length - 1];
  const figure = logLogFigure('memory-chart', t('cost.memoryChart'), sizes, sizes, series, { node: key, xLabel: t('cost.n') });
  figure.append(el('p', { class: 'note', text: t('cost.memNote', { bytes: fmt(4 * s.d * s.d), n: fmt(top), mib: fmt((4 * top * top) / 2 ** 20) }) }));
  return figure;
}
