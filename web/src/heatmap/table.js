// The heatmap as a data table for screen readers (off screen, in a box whose style and layout the
// browser skips while it is off screen and not focused: content-visibility: auto; the canvas shows the cells):
// row and column headers, one focusable cell at a time, each cell's text (or aria-label when the
// heatmap is compact), `masked` class and exact `data-value` (read by scripts and tests). Its
// body is made when the page is idle, after the canvas is drawn (or when a cell is clicked before),
// and after that only the cells whose value, mask or label changed are written.
import { el } from '../dom.js';

/**
 * Matrices with more cells than this get a table of headers only (its rows and columns named, no
 * cells): the canvas takes the focus and the readout says each cell's value.
 */
export const TABLE_LIMIT = 4096;
const UNWRITTEN = 1e300; // no float32 equals it

/**
 * A new table of `rows`×`cols` cells (none beyond TABLE_LIMIT), and what it has written so far
 * (nothing). Its name comes now; its body (rows×cols cells: milliseconds per thousand) and column
 * headers come with `fillCells`' first call, when the page is idle or a cell is wanted.
 */
export function createTable(rows, cols) {
  const caption = el('caption', { class: 'sr-only' });
  const table = el('table', { role: 'grid', part: 'heatmap-table' }, caption, el('thead'));
  const n = rows * cols;
  return {
    box: el('div', { class: 'cells-table' }, table),
    table,
    caption,
    shape: { rows, cols: n <= TABLE_LIMIT ? cols : 0 },
    // Whether the body will have cells (else the canvas takes the focus).
    hasCells: n > 0 && n <= TABLE_LIMIT,
    cells: [],
    rowHeads: [],
    rowLabels: [],
    colLabels: [],
    columnsKey: undefined,
    // Per cell, what the table shows now: its value, whether masked (2: never written), its text.
    written: { value: new Float64Array(n).fill(UNWRITTEN), masked: new Uint8Array(n).fill(2), text: new Array(n) },
    keys: { label: undefined, cols: undefined, rows: undefined, maskedLabel: undefined },
  };
}

/** Bring the table's name and headers up to date (done in the change; a new table's column headers come with its body). */
export function fillHeaders(t, { label, rowLabels, colLabels }) {
  if (t.keys.label !== label) {
    t.table.setAttribute('aria-label', label);
    t.caption.textContent = label;
  }
  const rowKey = rowLabels.join('\u0000');
  t.rowLabels = rowLabels;
  t.colLabels = colLabels;
  if (t.keys.rows !== rowKey) nameRows(t);
  Object.assign(t.keys, { label, cols: colLabels.join('\u0000'), rows: rowKey });
  if (t.table.tBodies.length) writeColumns(t);
}

/** The column headers' row, when the body is built (a new table's comes with it). */
function writeColumns(t) {
  if (t.columnsKey === t.keys.cols) return;
  t.columnsKey = t.keys.cols;
  const head = el('tr', {}, el('td', { class: 'corner' }));
  for (const text of t.colLabels) head.append(el('th', { scope: 'col', text }));
  t.table.tHead.replaceChildren(head);
}

/** The row headers' texts, when the body is built. */
function nameRows(t) {
  t.rowHeads.forEach((th, i) => th.textContent !== t.rowLabels[i] && (th.textContent = t.rowLabels[i]));
}

/**
 * Bring the table's cells up to date with `cells` (a render's, see cells.js; done when idle): the
 * first time, its body is made with every cell written (one parse of its markup: a 32 × 32 table
 * took 10 ms as copied empty cells then written one by one, 4 ms this way); after, only the cells
 * whose value, mask or label changed. `marked`: the cells to give class hl.
 */
export function fillCells(t, cells, { compact, maskedLabel }, marked = new Set()) {
  if (!t.table.tBodies.length) return buildBody(t, cells, { compact, maskedLabel }, marked);
  // A masked cell's label (language, or −∞ against 0) may change while its value does not.
  const relabel = t.keys.maskedLabel !== maskedLabel;
  const { value, masked, text } = t.written;
  for (let k = 0; k < t.cells.length; k++) {
    const v = cells.data[k];
    const m = cells.level[k] === -1 ? 1 : 0;
    if (Object.is(value[k], v) && masked[k] === m && !(m && relabel)) continue;
    const td = t.cells[k];
    const shown = cells.text(k);
    if (compact) td.setAttribute('aria-label', m ? maskedLabel : shown);
    else {
      if (text[k] !== shown) td.firstChild.data = shown;
      if (m) td.setAttribute('aria-label', maskedLabel);
      else if (masked[k] === 1) td.removeAttribute('aria-label');
    }
    if (masked[k] !== m) td.classList.toggle('masked', m === 1);
    if (!Object.is(value[k], v)) td.setAttribute('data-value', cells.value(k));
    value[k] = v;
    masked[k] = m;
    text[k] = shown;
  }
  t.keys.maskedLabel = maskedLabel;
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** The body, every cell written (a table of headers only: its rows), its row and column headers named. */
function buildBody(t, cells, { compact, maskedLabel }, marked) {
  const { rows, cols } = t.shape;
  const { value, masked, text } = t.written;
  const label = escape(maskedLabel);
  const html = [];
  for (let i = 0, k = 0; i < rows; i++) {
    html.push('<tr><th scope="row"></th>');
    for (let j = 0; j < cols; j++, k++) {
      const m = cells.level[k] === -1 ? 1 : 0;
      const shown = cells.text(k);
      const classes = `${m ? 'masked' : ''}${m && marked.has(k) ? ' ' : ''}${marked.has(k) ? 'hl' : ''}`;
      const aria = compact ? (m ? label : escape(shown)) : m ? label : null;
      // A compact cell's text is a space (its number is its label); a cell always has a text node.
      html.push(`<td data-i="${i}" data-j="${j}" data-value="${cells.value(k)}"${classes ? ` class="${classes}"` : ''}${aria === null ? '' : ` aria-label="${aria}"`}>${compact ? ' ' : escape(shown)}</td>`);
      value[k] = cells.data[k];
      masked[k] = m;
      text[k] = shown;
    }
    html.push('</tr>');
  }
  const body = document.createElement('tbody');
  body.innerHTML = html.join('');
  t.table.append(body);
  t.cells = Array.from(body.getElementsByTagName('td'));
  if (t.cells[0]) t.cells[0].tabIndex = 0;
  t.rowHeads = Array.from(body.rows, (tr) => tr.cells[0]);
  t.keys.maskedLabel = maskedLabel;
  nameRows(t);
  writeColumns(t);
}
