// A matrix drawn as a heatmap that is also a real data table: row and column
// headers for screen readers, one focusable cell at a time (arrow keys move),
// the exact float32 value on hover or focus, a legend, and exports.
import { scaleFor } from './colors.js';
import { download, heatmapPng, heatmapSvg, matrixCsv, matrixJson } from './export.js';
import { exact, isMaskedValue, short } from './format.js';
import { texMatrix } from './tex.js';

const escapeText = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    // Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows (a style attribute it blocks).
    else if (key === 'style') node.style.cssText = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
};
export { el };

/**
 * @param {object} o
 * @param {(key: string, vars?: object) => string} o.t  translator
 * @param {string} o.name      matrix name shown in captions and file names (plain text)
 * @param {{rows:number, cols:number, data:Float32Array}} o.matrix
 * @param {string[]} o.rowLabels / o.colLabels   header texts (user tokens: set as text)
 * @param {Uint8Array} [o.mask] 1 = visible; 0 cells are drawn as masked
 * @param {string} [o.maskedText] text in masked cells (default −∞; '0' for weights)
 * @param {boolean} [o.compact] hide the numbers inside cells
 * @param {string} [o.tex] formula to export as TeX with the numbers
 * @param {string} [o.file] base file name for downloads
 * @param {(i:number|null, j:number|null) => void} [o.onCell]
 */
export function createHeatmap(o) {
  const { t, matrix, name } = o;
  const { rows, cols, data } = matrix;
  const isMasked = o.mask ? (k) => o.mask[k] === 0 : (k) => isMaskedValue(data[k]);
  const scale = scaleFor(data, isMasked);
  const compact = o.compact ?? cols > 10;
  const rowLabels = o.rowLabels ?? Array.from({ length: rows }, (_, i) => String(i));
  const colLabels = o.colLabels ?? Array.from({ length: cols }, (_, j) => String(j));
  const file = (o.file ?? name).replace(/[^\w.-]+/g, '_');

  const figure = el('figure', { class: `heatmap${compact ? ' compact' : ''}`, part: 'heatmap' });
  const caption = el('figcaption', { part: 'heatmap-caption' });
  caption.append(el('span', { class: 'name', text: name }), el('span', { class: 'shape', text: ` ${rows}×${cols}` }));
  figure.append(caption);

  const table = el('table', { role: 'grid', 'aria-label': t('heatmap.table', { name, rows, cols }), part: 'heatmap-table' });
  table.append(el('caption', { class: 'sr-only', text: t('heatmap.table', { name, rows, cols }) }));
  const head = el('tr', {}, el('td', { class: 'corner' }));
  colLabels.forEach((label) => head.append(el('th', { scope: 'col', text: label })));
  table.append(el('thead', {}, head));
  // The cells hold only numbers we format, so they are built as one HTML string
  // (fast for 32×64 matrices); header texts (user tokens) are set as text below.
  const body = el('tbody');
  const html = [];
  // Colours are quantised to 256 levels (one colour computation per level, shared by its cells).
  const levels = new Map();
  const level = (v) => {
    const q = Math.round(((v - scale.min) / (scale.max - scale.min || 1)) * 255);
    if (!levels.has(q)) levels.set(q, scale.color(scale.min + ((scale.max - scale.min) * q) / 255));
    return q;
  };
  for (let i = 0; i < rows; i++) {
    html.push('<tr><th scope="row"></th>');
    for (let j = 0; j < cols; j++) {
      const k = i * cols + j;
      const v = data[k];
      const value = isMaskedValue(v) ? '-Infinity' : String(v);
      if (isMasked(k)) {
        const text = o.maskedText ?? '−∞';
        html.push(`<td class="masked" data-i="${i}" data-j="${j}" data-value="${value}" aria-label="${text}, ${escapeText(t('heatmap.masked'))}">${text}</td>`);
      } else {
        html.push(`<td class="c${level(v)}" data-i="${i}" data-j="${j}" data-value="${value}">${short(v)}</td>`);
      }
    }
    html.push('</tr>');
  }
  body.innerHTML = html.join('');
  body.querySelectorAll('th').forEach((th, i) => (th.textContent = rowLabels[i]));
  const cells = [...body.querySelectorAll('td')];
  // Colours through the CSSOM (no <style> element, so a strict style-src 'self' policy allows them).
  for (const td of cells) {
    const q = td.className[0] === 'c' ? Number(td.className.slice(1)) : -1;
    if (q < 0) continue;
    const { bg, fg } = levels.get(q);
    td.style.background = bg;
    td.style.color = fg;
  }
  table.append(body);
  if (cells[0]) cells[0].tabIndex = 0;
  const scroller = el('div', { class: 'scroll', part: 'heatmap-scroll' }, table);
  figure.append(scroller);

  const readout = el('p', { class: 'readout', 'aria-live': 'polite', text: t('heatmap.readoutIdle') });
  const show = (i, j) => {
    const k = i * cols + j;
    readout.textContent = t('heatmap.readout', { name, i, j, ri: rowLabels[i], cj: colLabels[j], v: isMasked(k) ? `${exact(data[k])} (${t('heatmap.masked')})` : exact(data[k]) });
    o.onCell?.(i, j);
  };
  let current = 0;
  // Roving focus: only the current cell is in the tab order; a cell gets tabindex when focused.
  const move = (k) => {
    if (k < 0 || k >= cells.length) return;
    cells[current].tabIndex = -1;
    current = k;
    cells[k].tabIndex = 0;
    cells[k].focus();
  };
  table.addEventListener('pointerover', (e) => {
    const td = e.target.closest?.('td[data-i]');
    if (td) show(Number(td.dataset.i), Number(td.dataset.j));
  });
  table.addEventListener('pointerleave', () => o.onCell?.(null, null));
  table.addEventListener('focusin', (e) => {
    const td = e.target.closest?.('td[data-i]');
    if (!td) return;
    current = cells.indexOf(td);
    show(Number(td.dataset.i), Number(td.dataset.j));
  });
  table.addEventListener('keydown', (e) => {
    const i = Math.floor(current / cols);
    const j = current % cols;
    const moves = { ArrowRight: j < cols - 1 ? 1 : 0, ArrowLeft: j > 0 ? -1 : 0, ArrowDown: i < rows - 1 ? cols : 0, ArrowUp: i > 0 ? -cols : 0, Home: -j, End: cols - 1 - j };
    if (e.key in moves) {
      e.preventDefault();
      e.stopPropagation();
      move(current + moves[e.key]);
    }
  });

  const legend = el('div', { class: 'legend', part: 'legend', 'aria-label': t('heatmap.legend'), role: 'img' });
  legend.append(
    el('span', { text: short(scale.min) }),
    el('span', { class: 'bar', style: `background: ${scale.gradient}` }),
    el('span', { text: short(scale.max) }),
  );
  legend.setAttribute('aria-label', `${t('heatmap.legend')}: ${short(scale.min)} … ${short(scale.max)}`);
  if (cells.some((c) => c.classList.contains('masked'))) legend.append(el('span', { class: 'masked-key', 'aria-hidden': 'true' }), el('span', { text: t('heatmap.masked') }));
  figure.append(legend, readout);

  if (o.exportable !== false) {
    const bar = el('div', { class: 'export', role: 'group', 'aria-label': `${t('heatmap.export')}: ${name}`, part: 'export' });
    const button = (fmt, action) =>
      bar.append(el('button', { type: 'button', part: 'button export-button', 'aria-label': t('export.label', { name, fmt: fmt.toUpperCase() }), text: t(`export.${fmt}`), onclick: action }));
    bar.append(el('span', { class: 'export-label', 'aria-hidden': 'true', text: `${t('heatmap.export')}:` }));
    button('png', async () => download(`${file}.png`, await heatmapPng(matrix, rowLabels, colLabels, isMasked)));
    button('svg', () => download(`${file}.svg`, new Blob([heatmapSvg(matrix, rowLabels, colLabels, isMasked)], { type: 'image/svg+xml' })));
    button('csv', () => download(`${file}.csv`, new Blob([matrixCsv(matrix, rowLabels, colLabels)], { type: 'text/csv' })));
    button('json', () => download(`${file}.json`, new Blob([matrixJson(matrix, rowLabels, colLabels)], { type: 'application/json' })));
    if (o.tex) button('tex', () => download(`${file}.tex`, new Blob([`${o.tex} = ${texMatrix(matrix)}\n`], { type: 'application/x-tex' })));
    figure.append(bar);
  }

  /** Mark rows, columns or single cells (e.g. the q_i and k_j behind score[i][j]). */
  function highlight({ rows: hr = [], cols: hc = [], cells: hcells = [] } = {}) {
    for (const td of cells) {
      const i = Number(td.dataset.i);
      const j = Number(td.dataset.j);
      const on = hr.includes(i) || hc.includes(j) || hcells.some(([a, b]) => a === i && b === j);
      td.classList.toggle('hl', on);
    }
  }
  return { el: figure, highlight, cells };
}
