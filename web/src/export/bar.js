// The export buttons under a heatmap: downloads (PNG and SVG figures with title, labels, legend
// and masked cells; CSV, JSON, TeX of the numbers) and "copy as LaTeX" (a table of the values, or
// a figure environment including the PNG). Each reads the latest render's data from `exp`.
import { el } from '../dom.js';
import { texMatrix } from '../tex.js';
import { copyWithFeedback } from './clipboard.js';
import { download, matrixCsv, matrixJson } from './files.js';
import { canvasMeasure, figurePng } from './figure-png.js';
import { figureSvg } from './figure-svg.js';
import { latexFigure, latexTable } from './latex.js';

/** What the figure exports draw, from the bar's inputs: `name` is the heatmap's title. */
export function figureInput(t, name, exp) {
  return { title: name, matrix: exp.matrix, rowLabels: exp.rowLabels, colLabels: exp.colLabels, isMasked: exp.isMasked, file: exp.file, words: { legend: t('export.legendName', { legend: t('heatmap.legend') }), masked: t('heatmap.masked'), hatched: t('export.hatched') } };
}

function anyMasked({ matrix, isMasked }) {
  for (let k = 0; k < matrix.rows * matrix.cols; k++) if (isMasked(k)) return true;
  return false;
}

/** The bar (part "export"); `exp` holds the latest render's matrix, labels, mask, formula and file name. */
export function exportBar(t, name, exp) {
  const bar = el('div', { class: 'export', role: 'group', 'aria-label': `${t('heatmap.export')}: ${name}`, part: 'export' });
  const button = (key, label, action, part = 'export-button') => bar.append(el('button', { type: 'button', part: `button ${part}`, 'data-export': key, 'aria-label': label, text: t(`export.${key}`), onclick: action }));
  const save = (ext, type, text) => download(`${exp.file}.${ext}`, new Blob([text], { type }));
  const figure = () => figureInput(t, name, exp);
  const download_ = (fmt) => t('export.label', { name, fmt: fmt.toUpperCase() });
  bar.append(el('span', { class: 'export-label', 'aria-hidden': 'true', text: `${t('heatmap.export')}:` }));
  button('png', download_('png'), async () => download(`${exp.file}.png`, await figurePng(figure())));
  button('svg', download_('svg'), () => save('svg', 'image/svg+xml', figureSvg(figure(), canvasMeasure())));
  button('csv', download_('csv'), () => save('csv', 'text/csv', matrixCsv(exp.matrix, exp.rowLabels, exp.colLabels)));
  button('json', download_('json'), () => save('json', 'application/json', matrixJson(exp.matrix, exp.rowLabels, exp.colLabels)));
  if (exp.tex) button('tex', download_('tex'), () => save('tex', 'application/x-tex', `${exp.tex} = ${texMatrix(exp.matrix)}\n`));
  // Copy as LaTeX: a status line says what was copied, or shows the text when the clipboard is not there.
  const status = el('span', { class: 'export-status', part: 'export-status', role: 'status', 'data-role': 'export-status' });
  const copy = (kind, make) => {
    const words = { copied: t('export.copied', { name, kind: t(`export.${kind}`) }), manual: t('export.manual'), close: t('export.close') };
    button(kind, t('export.copyLabel', { name, kind: t(`export.${kind}`) }), () => copyWithFeedback(make(), status, words), 'copy-button');
  };
  bar.append(el('span', { class: 'export-label', part: 'copy-label', 'aria-hidden': 'true', text: `${t('export.copy')}:` }));
  copy('latexTable', () => latexTable(figure()));
  copy('latexFigure', () => latexFigure({ ...figure(), anyMasked: anyMasked(exp) }));
  bar.append(status);
  return bar;
}
