// <attention-train>'s read-outs, from a TrainSession's fields: the status line and progress bar,
// the loss and accuracy curves (SVG, web/src/chart.js) and a grid of small heatmaps, one per
// layer × head (like BertViz's model view). Nothing here computes a number: each is the library's,
// as the worker posted it.
import { PALETTE, lineChart } from '../../chart.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { morph } from './morph.js';

// Number formats are slow to make: one per language and kind, kept.
const FORMATS = new Map();
const format = (lang, kind, options) => {
  const key = `${lang} ${kind}`;
  if (!FORMATS.has(key)) FORMATS.set(key, new Intl.NumberFormat(lang, options));
  return FORMATS.get(key);
};
const percent = (v, lang) => (v === null || v === undefined ? '—' : format(lang, 'percent', { style: 'percent', maximumFractionDigits: 1 }).format(v));
const fixed = (v, digits, lang) => format(lang, `fixed${digits}`, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(v);

/**
 * Make, while the page is idle before training, what the first report's redraw would make cold:
 * the number formats of `lang` and a chart (its code run once). In a fresh tab the worker's start
 * (the WASM build compiling on every core) leaves the page's thread little CPU; a first redraw that
 * does less stays short.
 */
export function warmUp(t, lang) {
  percent(0.5, lang);
  fixed(1, 0, lang);
  fixed(1, 4, lang);
  chart(t, [{ step: 0, loss: 1 }, { step: 1, loss: 0.5 }], 'loss', '', PALETTE.blue, [0, 1]);
}

/** The state line: what the session is doing, and the error of a failed one in the page's language. */
export function stateText(t, session, lang) {
  const { state, last, info, error } = session;
  const goal = percent(info?.goal ?? null, lang);
  if (state === 'failed') {
    const key = `train.error.${error?.code}`;
    const said = t(key, { message: error?.message ?? '', seconds: error?.seconds, step: error?.step });
    return t('train.state.failed', { message: said === key ? error?.message ?? '' : said });
  }
  return t(`train.state.${state}`, { step: last?.step ?? 0, accuracy: percent(last?.accuracy, lang), goal });
}

/** Step, loss, validation exact match, steps per second and learning rate of the last report. */
export function statusText(t, session, lang) {
  const p = session.last;
  if (!p) return '';
  const sps = fixed(p.stepsPerSecond, 0, lang);
  return t('train.status', { step: p.step, loss: fixed(p.loss, 4, lang), accuracy: percent(p.accuracy, lang), sps, lr: p.learningRate.toPrecision(3) });
}

/** The progress bar's value: the last validation exact match, out of the goal. */
export function syncProgress(bar, t, session, lang) {
  const goal = session.info?.goal ?? 1;
  bar.max = goal;
  bar.value = Math.min(goal, session.last?.accuracy ?? 0);
  bar.setAttribute('aria-label', t('train.progress', { goal: percent(goal, lang) }));
  bar.setAttribute('aria-valuetext', percent(session.last?.accuracy ?? 0, lang));
}

function chart(t, points, key, title, color, yRange) {
  const x = points.map((p) => p.step);
  const y = points.map((p) => p[key]);
  const last = x.at(-1) ?? 1;
  const ticks = [0, Math.round(last / 2), last];
  return lineChart({ x, series: [{ label: t(`train.${key}`), y, color }], xRange: [0, last], xTicks: ticks, yRange, title, xLabel: t('train.step'), width: 360, height: 200 });
}

// Each curves box's figures by chart key ({ figure, caption, chart }), kept between redraws.
const CHARTS = new WeakMap();

/**
 * The two curves of the session (or a note before the first step) into `box`: a chart drawn before
 * is brought up to date in place (its path's d, its ticks' texts: morph.js), not made anew, so a
 * redraw every 400 ms touches a few attributes.
 */
export function syncCurves(box, t, session) {
  if (!CHARTS.has(box)) CHARTS.set(box, { note: el('p', { class: 'muted', 'data-role': 'no-curve' }), figures: new Map() });
  const kept = CHARTS.get(box);
  if (!session.losses.length) {
    kept.note.textContent = t('train.noCurve');
    return place(box, [kept.note]);
  }
  const top = Math.max(...session.losses.map((p) => p.loss));
  const wanted = [['loss', t('train.lossChart'), () => chart(t, session.losses, 'loss', t('train.lossChart'), PALETTE.blue, [0, top])]];
  if (session.accuracies.length) wanted.push(['accuracy', t('train.accuracyChart'), () => chart(t, session.accuracies, 'accuracy', t('train.accuracyChart'), PALETTE.vermillion, [0, 1])]);
  const figures = wanted.map(([key, title, make]) => {
    let f = kept.figures.get(key);
    if (!f) {
      const caption = el('figcaption', {});
      f = { caption, chart: make(), figure: null };
      f.figure = el('figure', { class: 'chart', 'data-chart': key }, caption, f.chart);
      kept.figures.set(key, f);
    } else f.chart = morph(f.chart, make());
    if (f.caption.textContent !== title) f.caption.textContent = title;
    return f.figure;
  });
  place(box, figures);
}

// Each grid's row elements (one per layer) and the shape drawn in each slot, kept with the grid.
const KEPT = new WeakMap();
/** New figures made per call of syncGrid: a new figure (its canvas, table, first paint) is the costly part. */
export const NEW_PER_FRAME = 1;

/**
 * `grid` (a kept element) made a grid of one small heatmap per layer (a row) and head (a column) of
 * `a` (an attention message: maps [layer][head] { rows, cols, data }, rowLabels, colLabels). `pool`
 * keeps the figures between redraws and `prefix` names their slots (two grids in one panel): a map
 * of the same shape changes its cells in place. At most NEW_PER_FRAME maps of a new shape are made
 * per call (the others keep their last figure, and the grid is aria-busy): returns false while some
 * wait, for another call in the next frame, so no frame does all the work.
 */
export function syncGrid(grid, t, a, pool, prefix) {
  if (!KEPT.has(grid)) KEPT.set(grid, { rows: [], shapes: new Map(), figures: new Map() });
  const { rows, shapes, figures } = KEPT.get(grid);
  let fresh = 0;
  let done = true;
  a.maps.forEach((layer, l) => {
    rows[l] ??= el('div', { class: 'grid-row', role: 'group' });
    rows[l].setAttribute('aria-label', t('train.layer', { layer: l + 1 }));
    const cells = layer.flatMap((matrix, h) => {
      const slot = `${prefix}-${l}-${h}`;
      const shape = `${matrix.rows}×${matrix.cols}`;
      if (shapes.get(slot) !== shape && fresh++ >= NEW_PER_FRAME) {
        done = false;
        return figures.get(slot) ?? [];
      }
      shapes.set(slot, shape);
      const name = t('train.mapName', { layer: l + 1, head: h + 1 });
      const map = createHeatmap({ t, name, file: `${prefix}-l${l + 1}-h${h + 1}`, matrix, rowLabels: a.rowLabels.slice(0, matrix.rows), colLabels: a.colLabels.slice(0, matrix.cols), compact: true, exportable: false, pool, slot });
      map.el.dataset.map = `${l}-${h}`;
      figures.set(slot, map.el);
      return [map.el];
    });
    place(rows[l], cells);
  });
  place(grid, rows.slice(0, a.maps.length));
  // While some maps still show an earlier snapshot the grid says so (screen readers, tests).
  if (done) grid.removeAttribute('aria-busy');
  else grid.setAttribute('aria-busy', 'true');
  return done;
}

/** A new element for syncGrid. */
export const gridElement = (prefix) => el('div', { class: 'map-grid', part: 'attention-grid', 'data-role': `${prefix}-grid` });
