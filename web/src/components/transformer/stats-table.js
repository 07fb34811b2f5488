// Each token's mean and variance over its d_model features, before and after a
// LayerNorm step of <attention-transformer>, with a one-line summary.
import { el } from '../../dom.js';
import { exact } from '../../format.js';
import { place } from '../../heatmap.js';
import { statsOf } from './block-model.js';

const fmtMean = (v) => (v === 0 ? '0' : Math.abs(v) < 1e-3 ? v.toExponential(1) : v.toFixed(3)).replace(/-/g, '−');
const fmtVar = (v) => v.toFixed(6).replace('-', '−');

/** Fill `details` (kept per step by the caller) with the table of step `before` → `after` of trace `c`. */
export function fillStatsTable(details, c, before, after, t) {
  const a = statsOf(c, before);
  const b = statsOf(c, after);
  details.firstChild.textContent = t('transformer.statsShow');
  place(details, [details.firstChild, statsSummary(a, b, c.model.tokens, t), statsTable(a, b, c, before, after, t)]);
  return details;
}

function statsTable(a, b, c, before, after, t) {
  const table = el('table', { class: 'stats', 'data-role': 'stats' });
  table.append(el('caption', { text: t('transformer.statsCaption', { d: c.model.config.dModel }) }));
  const head = el('tr', {}, el('th', { scope: 'col', text: t('transformer.token') }));
  const names = { before: t(`transformer.short.${before}`), after: t(`transformer.short.${after}`) };
  for (const k of ['meanBefore', 'varBefore', 'meanAfter', 'varAfter']) head.append(el('th', { scope: 'col', text: t(`transformer.${k}`, names) }));
  const body = el('tbody');
  c.model.tokens.forEach((tok, i) => {
    const tr = el('tr', {}, el('th', { scope: 'row', text: tok }));
    for (const [v, f] of [[a[i].mean, fmtMean], [a[i].variance, fmtVar], [b[i].mean, fmtMean], [b[i].variance, fmtVar]]) tr.append(el('td', { class: 'num', text: f(v), 'data-value': String(v) }));
    body.append(tr);
  });
  table.append(el('thead', {}, head), body);
  return table;
}

/**
 * The largest |mean| and the range of variances after the norm. A row that was constant has
 * nothing to rescale: LayerNorm gives β (0 here), variance 0; with d_model = 1 every row is.
 */
function statsSummary(a, b, tokens, t) {
  const flat = [];
  const normal = [];
  b.forEach((st, i) => (a[i].variance === 0 ? flat.push(tokens[i]) : normal.push(st)));
  const parts = [];
  if (normal.length) {
    const maxMean = Math.max(...normal.map((st) => Math.abs(st.mean)));
    const lo = Math.min(...normal.map((st) => st.variance));
    const hi = Math.max(...normal.map((st) => st.variance));
    parts.push(t('transformer.statsSummary', { m: exact(Math.fround(maxMean)), lo: fmtVar(lo), hi: fmtVar(hi) }));
  }
  if (flat.length) parts.push(t('transformer.statsFlat', { rows: flat.join(', ') }));
  return el('p', { class: 'note', 'data-role': 'stats-summary', text: parts.join(' ') });
}
