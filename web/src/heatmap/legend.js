// A heatmap figure's light parts: caption, colour legend, export buttons. Each is made again only
// when its text changes (a key of its inputs); the export buttons read the latest render's data.
import { download, heatmapPng, heatmapSvg, matrixCsv, matrixJson } from '../export.js';
import { short } from '../format.js';
import { texMatrix } from '../tex.js';
import { el } from '../dom.js';

export function makeCaption(name, rows, cols) {
  const caption = el('figcaption', { part: 'heatmap-caption' });
  caption.append(el('span', { class: 'name', text: name }), el('span', { class: 'shape', text: ` ${rows}×${cols}` }));
  return caption;
}

export const legendKey = (t, cells) => [short(cells.scale.min), short(cells.scale.max), cells.scale.gradient, cells.anyMasked, t('heatmap.legend'), t('heatmap.masked')].join('\u0000');

export function makeLegend(t, { scale, anyMasked }) {
  const range = `${short(scale.min)} … ${short(scale.max)}`;
  const legend = el('div', { class: 'legend', part: 'legend', role: 'img', 'aria-label': `${t('heatmap.legend')}: ${range}` });
  legend.append(el('span', { text: short(scale.min) }), el('span', { class: 'bar', style: `background: ${scale.gradient}` }), el('span', { text: short(scale.max) }));
  if (anyMasked) legend.append(el('span', { class: 'masked-key', 'aria-hidden': 'true' }), el('span', { text: t('heatmap.masked') }));
  return legend;
}

export const barKey = (t, name, o) => (o.exportable === false ? '' : [name, Boolean(o.tex), t('heatmap.export'), t('export.png'), t('export.label', { name, fmt: '' })].join('\u0000'));

/** The export buttons; `exp` holds the latest render's matrix, labels, mask, formula and file name. */
export function makeBar(t, name, exp) {
  const bar = el('div', { class: 'export', role: 'group', 'aria-label': `${t('heatmap.export')}: ${name}`, part: 'export' });
  const button = (fmt, action) =>
    bar.append(el('button', { type: 'button', part: 'button export-button', 'aria-label': t('export.label', { name, fmt: fmt.toUpperCase() }), text: t(`export.${fmt}`), onclick: action }));
  const save = (ext, type, text) => download(`${exp.file}.${ext}`, new Blob([text], { type }));
  bar.append(el('span', { class: 'export-label', 'aria-hidden': 'true', text: `${t('heatmap.export')}:` }));
  button('png', async () => download(`${exp.file}.png`, await heatmapPng(exp.matrix, exp.rowLabels, exp.colLabels, exp.isMasked)));
  button('svg', () => save('svg', 'image/svg+xml', heatmapSvg(exp.matrix, exp.rowLabels, exp.colLabels, exp.isMasked)));
  button('csv', () => save('csv', 'text/csv', matrixCsv(exp.matrix, exp.rowLabels, exp.colLabels)));
  button('json', () => save('json', 'application/json', matrixJson(exp.matrix, exp.rowLabels, exp.colLabels)));
  if (exp.tex) button('tex', () => save('tex', 'application/x-tex', `${exp.tex} = ${texMatrix(exp.matrix)}\n`));
  return bar;
}
