// A heatmap figure's light parts: caption, colour legend, export buttons. Each is made again only
// when its text changes (a key of its inputs); the export buttons read the latest render's data.
import { short } from '../format.js';
import { el } from '../dom.js';

export function makeCaption(name, rows, cols, more) {
  // `more`: the cue shown after the shape while the figure is wider than its box (styles.js).
  const caption = el('figcaption', { part: 'heatmap-caption', 'data-more': more });
  caption.append(el('span', { class: 'name', text: name }), el('span', { class: 'shape', text: ` ${rows}×${cols}` }));
  return caption;
}

export const legendKey = (t, cells) => [short(cells.scale.min), short(cells.scale.max), cells.scale.kind, cells.anyMasked, t('heatmap.legend'), t('heatmap.masked')].join('\u0000');

// The bar's gradient is the stylesheet's, by the scale's kind (styles.js): parsing it from a style
// attribute per legend cost 0.2 ms each.
export function makeLegend(t, { scale, anyMasked }) {
  const range = `${short(scale.min)} … ${short(scale.max)}`;
  const legend = el('div', { class: 'legend', part: 'legend', role: 'img', 'aria-label': `${t('heatmap.legend')}: ${range}` });
  legend.append(el('span', { text: short(scale.min) }), el('span', { class: `bar ${scale.kind}` }), el('span', { text: short(scale.max) }));
  if (anyMasked) legend.append(el('span', { class: 'masked-key', 'aria-hidden': 'true' }), el('span', { text: t('heatmap.masked') }));
  return legend;
}

export const barKey = (t, name, o) => (o.exportable === false ? '' : [name, Boolean(o.tex), t('heatmap.export'), t('export.png'), t('export.label', { name, fmt: '' })].join('\u0000'));

// The export buttons are built with the exports (web/src/export/bar.js).
export { exportBar as makeBar } from '../export.js';
