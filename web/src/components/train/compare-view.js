// <attention-train>'s compare mode on the page: for the two runs of a RunPair, a status line each
// (its state, step, loss, gradient norm, exact match), the loss curves of both on one chart and the
// gradient norms of both on another (two Okabe–Ito colours, one line dashed, and a legend naming
// each: not colour alone), and what the reader should see. Each number is the workers'.
import { PALETTE, legendItem, lineChart } from '../../chart.js';
import { el } from '../../dom.js';
import { place } from '../../heatmap.js';
import { COMPARE_PAIRS } from './compare-runs.js';
import { morph } from './morph.js';
import { stateText, statusText } from './views.js';

/** The look of the first and the second run's lines. */
export const RUN_LOOKS = [{ color: PALETTE.blue }, { color: PALETTE.vermillion, dash: '6 4' }];

/** The name of a run in the page's language (its scoring). */
export const runName = (t, scoring) => t(`train.scoring.${scoring}`);

/** The legend of the two runs ([{ label, color, dash }]), as the PNG export draws it. */
export const runLegend = (t, runs) => runs.map((r, i) => ({ label: runName(t, r.scoring), ...RUN_LOOKS[i] }));

function chart(t, runs, key, title) {
  const all = runs.flatMap((r) => r.session.losses);
  const last = Math.max(1, ...all.map((p) => p.step));
  const top = Math.max(1e-9, ...all.map((p) => p[key]).filter(Number.isFinite));
  const series = runs.map((r, i) => ({ label: runName(t, r.scoring), x: r.session.losses.map((p) => p.step), y: r.session.losses.map((p) => p[key]), ...RUN_LOOKS[i] }));
  return lineChart({ x: [0, last], series, xRange: [0, last], xTicks: [0, Math.round(last / 2), last], yRange: [0, top], title, xLabel: t('train.step'), width: 360, height: 200 });
}

/** A kept box's parts, made once. */
function parts(box) {
  const figure = (key) => {
    const caption = el('figcaption', {});
    return { key, caption, chart: null, figure: el('figure', { class: 'chart', 'data-chart': key }, caption) };
  };
  return {
    lines: [0, 1].map((i) => el('p', { class: 'numbers', 'data-run': String(i), role: 'status' })),
    legend: el('p', { class: 'legend', 'data-role': 'compare-legend' }),
    figures: [figure('compare-loss'), figure('compare-gradient')],
    curves: el('div', { class: 'curves', part: 'curves', 'data-role': 'compare-curves' }),
    explain: el('p', { class: 'note', 'data-role': 'compare-explain' }),
    box,
  };
}

const KEPT = new WeakMap();

/** `box` made to show `pair` (a RunPair) for settings `s` (before the first Train, what will run), then `more` (nodes). */
export function syncCompare(box, t, pair, s, lang, more) {
  if (!KEPT.has(box)) KEPT.set(box, parts(box));
  const p = KEPT.get(box);
  const runs = pair.runs;
  p.explain.textContent = t(`train.compareExplain.${s.compare}`);
  if (!runs.length) {
    const [a, b] = COMPARE_PAIRS[s.compare].map((scoring) => runName(t, scoring));
    p.lines[0].textContent = t('train.compareIdle', { a, b });
    return place(box, [p.lines[0], p.explain]);
  }
  runs.forEach((r, i) => {
    const numbers = statusText(t, r.session, lang);
    const norm = r.session.last ? t('train.gradientNormIs', { norm: r.session.last.gradientNorm.toPrecision(4) }) : '';
    p.lines[i].textContent = t('train.runLine', { name: runName(t, r.scoring), state: stateText(t, r.session, lang), numbers: norm ? `${numbers} · ${norm}` : numbers });
  });
  place(p.legend, runLegend(t, runs).map((l) => legendItem(l.label, l.color, l.dash)));
  const has = runs.some((r) => r.session.losses.length);
  for (const [f, key, title] of [[p.figures[0], 'loss', t('train.compareLoss')], [p.figures[1], 'gradientNorm', t('train.compareGradient')]]) {
    if (f.caption.textContent !== title) f.caption.textContent = title;
    if (!has) continue;
    const next = chart(t, runs, key, title);
    if (f.chart) f.chart = morph(f.chart, next);
    else f.figure.append((f.chart = next));
  }
  place(p.curves, has ? p.figures.map((f) => f.figure) : []);
  place(box, [...p.lines, p.legend, p.curves, p.explain, ...more]);
}
