// A matrix drawn as a heatmap on a canvas, with a data table for screen readers behind it: the
// exact float32 value of a cell on hover or focus (arrow keys move), a legend, and exports.
import { el } from '../dom.js';
import { cancel, later } from '../scheduler.js';
import { canvasLang } from './canvas.js';
import { arithmeticLines } from './arithmetic.js';
import { createCells } from './cells.js';
import { listen } from './focus.js';
import { drawIfDirty, requestDraw } from './frame.js';
import { barKey, legendKey, makeBar, makeCaption, makeLegend } from './legend.js';
import { createTable, fillCells, fillHeaders } from './table.js';

/**
 * @param {object} o
 * @param {(key: string, vars?: object) => string} o.t  translator
 * @param {string} o.name      matrix name shown in captions and file names (plain text)
 * @param {{rows:number, cols:number, data:Float32Array}} o.matrix
 * @param {string[]} o.rowLabels / o.colLabels   header texts (user tokens: drawn and set as text)
 * @param {Uint8Array} [o.mask] 1 = visible; 0 cells are drawn as masked
 * @param {string} [o.maskedText] text in masked cells (default −∞; '0' for weights)
 * @param {boolean} [o.compact] hide the numbers inside cells
 * @param {string} [o.tex] formula to export as TeX with the numbers
 * @param {string} [o.file] base file name for downloads
 * @param {boolean} [o.exportable] false: no export buttons
 * @param {(i:number|null, j:number|null) => void} [o.onCell]
 * @param {(i:number, j:number) => object|null} [o.arithmetic]  how cell (i, j) was made (cell-arithmetic.js),
 *   written out under the readout (heatmap/arithmetic.js) when the cell is pointed at, tapped or focused
 * @param {object} [o.symbols]  the arithmetic's symbols, over heatmap/arithmetic.js's SYMBOLS
 * @param {number} [o.base]  the first row and column number shown in the readout (0, or 1 as the panels count)
 * @param {Map<string, object>} [o.pool]  kept between renders by the caller: figures to reuse
 * @param {string} [o.slot]   this heatmap's name in the pool (one heatmap per slot per render)
 * @param {boolean} [o.defer]  accepted for compatibility: every heatmap off screen is deferred
 *
 * The canvas is drawn in the next animation frame, before it is painted (a heatmap off screen but
 * within a viewport's height: when the page is idle; a farther one when it comes near, see frame.js);
 * a kept figure whose drawing did not
 * change is not drawn again (see drawingOf). The screen-reader table's cells (a new figure's
 * body, their labels and data-value) are written when the page is next idle, after the change's frame;
 * until then the figure is aria-busy, and `whenFilled` (scheduler.js) tells when nothing waits. A kept
 * figure (pool and slot) stays where it is, with its focused cell; given another shape, with a new
 * table (reshape). Exports always read this render's data.
 */
export function createHeatmap(o) {
  const cells = createCells(o.matrix, o.mask, o.maskedText ?? '−∞');
  const { rows, cols } = cells;
  const compact = o.compact ?? cols > 10;
  const shapeKey = `${rows}×${cols}${compact ? ' compact' : ''}`;
  let view = o.pool && o.slot ? o.pool.get(o.slot) : undefined;
  if (!view) view = createView(o, shapeKey, rows, cols);
  else if (view.shapeKey !== shapeKey) reshape(view, shapeKey, rows, cols);
  update(view, o, cells, compact);
  return { el: view.figure, highlight: (marks) => highlight(view, marks) };
}

/** A new figure's parts (the light ones come with the first update) and listeners. */
function createView(o, shapeKey, rows, cols) {
  const canvas = el('canvas', { part: 'heatmap-canvas' });
  const table = createTable(rows, cols);
  focusOn(canvas, table);
  const scroll = el('div', { class: 'scroll', part: 'heatmap-scroll' }, table.box, canvas);
  const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
  // How the pointed or focused number was made (the `arithmetic` option): empty without it.
  const arith = el('div', { class: 'arith', part: 'arithmetic', 'aria-live': 'polite', style: ARITH_STYLE });
  const figure = el('figure', { part: 'heatmap' }, scroll, readout, arith);
  // The canvas's context is made when it is first drawn (frame.js): one drawn only when idle costs
  // nothing in the change (a context is 0.1–0.2 ms).
  const view = { shapeKey, figure, canvas, g: null, scroll, table, readout, arith, parts: {}, keys: {}, exp: {}, lit: new Set(), current: 0, focusVisible: false, near: undefined, dirty: false };
  listen(view);
  watch(view);
  if (o.pool && o.slot) o.pool.set(o.slot, view);
  return view;
}

// The arithmetic's box, as the readout's type (styles.js `.readout`) in the text colour, lines wrapping.
// Its width is the figure's (inline-size containment): a long line wraps instead of widening the
// figure, so showing a cell's arithmetic never moves the figures beside it (the heads side by side).
const ARITH_STYLE = 'font-family: var(--_mono, monospace); font-size: 0.8rem; overflow-wrap: anywhere; contain: inline-size;';

/** Too large for a table of cells: the canvas takes the focus and the readout says each cell's value. */
function focusOn(canvas, table) {
  if (table.hasCells) {
    canvas.setAttribute('aria-hidden', 'true');
    canvas.removeAttribute('tabindex');
    canvas.removeAttribute('role');
    canvas.removeAttribute('aria-label');
  } else {
    canvas.removeAttribute('aria-hidden');
    Object.assign(canvas, { tabIndex: 0 }).setAttribute('role', 'img');
  }
}

/**
 * A kept figure given a matrix of another shape (a new d_k, a longer sentence) stays: its canvas
 * keeps its bitmap while the drawing fits (canvas.js; a new 600×400 bitmap cost 4–9 ms of the
 * change's frame), and its observers' last word (off screen, it waits until idle like before).
 * Its table for screen readers is new, with its body built when idle.
 */
function reshape(view, shapeKey, rows, cols) {
  cancel(view);
  busy(view, false);
  const table = createTable(rows, cols);
  view.table.box.replaceWith(table.box);
  focusOn(view.canvas, table);
  Object.assign(view, { shapeKey, table, current: 0, lit: new Set() });
}

/** This render's data into a (new or kept) figure: light parts whose texts changed, then the cells. */
function update(view, o, cells, compact) {
  const { t, name } = o;
  const { rows, cols } = cells;
  const rowLabels = o.rowLabels ?? Array.from({ length: rows }, (_, i) => String(i));
  const colLabels = o.colLabels ?? Array.from({ length: cols }, (_, j) => String(j));
  const file = (o.file ?? name).replace(/[^\w.-]+/g, '_');
  const figureClass = `heatmap ${cells.scale.kind === 'sequential' ? 'seq' : 'div'}${compact ? ' compact' : ''}`;
  if (view.figure.className !== figureClass) view.figure.className = figureClass;
  Object.assign(view.exp, { matrix: o.matrix, rowLabels, colLabels, isMasked: cells.isMasked, tex: o.tex, file });
  const more = t('heatmap.more');
  part(view, 'caption', `${name}\u0000${rows}×${cols}\u0000${more}`, () => makeCaption(name, rows, cols, more), (node) => view.scroll.before(node));
  part(view, 'legend', legendKey(t, cells), () => makeLegend(t, cells), (node) => view.readout.before(node));
  const bar = barKey(t, name, o);
  part(view, 'bar', bar, () => (bar ? makeBar(t, name, view.exp) : null), (node) => view.figure.append(node));
  const idle = t(o.arithmetic ? 'heatmap.readoutIdleArith' : 'heatmap.readoutIdle');
  if (view.readout.textContent !== idle) view.readout.textContent = idle;
  const label = t('heatmap.table', { name, rows, cols });
  fillHeaders(view.table, { label, rowLabels, colLabels });
  if (!view.table.hasCells && view.canvas.getAttribute('aria-label') !== label) view.canvas.setAttribute('aria-label', label);
  highlight(view, {});
  const labels = { rowLabels, colLabels, rowKey: rowLabels.join('\u0000'), colKey: colLabels.join('\u0000') };
  const drawing = drawingOf(cells, compact, labels);
  const redraw = !sameDrawing(view.drawing, drawing) || (!drawing.neutral && view.drawnLang !== canvasLang(view.canvas));
  Object.assign(view, { cells, compact, labels, drawing });
  const base = o.base ?? 0;
  view.show = (k) => {
    const i = Math.floor(k / cols);
    const j = k % cols;
    const v = cells.level[k] === -1 ? `${cells.exact(k)} (${t('heatmap.masked')})` : cells.exact(k);
    view.readout.textContent = t('heatmap.readout', { name, i: i + base, j: j + base, ri: rowLabels[i], cj: colLabels[j], v });
    explain(view, t, o, i, j);
    o.onCell?.(i, j);
  };
  explain(view, t, o, null, null);
  view.leave = () => o.onCell?.(null, null);
  // Still waiting to be drawn (a figure out of the document when it changed): the render that
  // places it asks for its frame.
  if (redraw || view.dirty) requestDraw(view);
  const maskedLabel = `${cells.maskedText}, ${t('heatmap.masked')}`;
  busy(view, true);
  later(view, () => {
    fillCells(view.table, cells, { compact, maskedLabel }, view.lit);
    busy(view, false);
  });
}

/** The arithmetic of cell (i, j) under the readout (i null, or none for this cell: the box is emptied). */
function explain(view, t, o, i, j) {
  const lines = o.arithmetic && i !== null ? arithmeticLines(t, o.arithmetic(i, j), o.symbols) : [];
  if (lines.length || view.arith.firstChild) view.arith.replaceChildren(...lines);
}

// Text drawn the same in every language: printable ASCII (a Han character's glyph, or a fallback
// font's − or ∞, may depend on the language).
const NEUTRAL = /^[\x20-\x7e\u0000]*$/;

/**
 * What the canvas shows: the cells' colour levels and its texts (the labels, and the numbers of a
 * heatmap that shows them, as drawn). When only the language changed (the page's language menu), a
 * heatmap whose texts are plain ASCII is not drawn again: 3 ms per switch on the steps panel.
 */
function drawingOf(cells, compact, labels) {
  const numbers = compact ? '' : Array.from(cells.level, (_, k) => cells.text(k)).join('\u0000');
  const text = `${labels.rowKey}\u0000${labels.colKey}\u0000${numbers}`;
  return { level: cells.level, key: `${compact}\u0001${text}`, neutral: NEUTRAL.test(text) };
}

/** The same levels, in a plain loop (a million cells: a few milliseconds, less than drawing them). */
function sameLevels(a, b) {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
const sameDrawing = (a, b) => Boolean(a) && a.key === b.key && sameLevels(a.level, b.level);

/** Replace the figure's part `name` when its key changes (`insert` puts a new one in place). */
function part(view, name, key, make, insert) {
  if (view.keys[name] === key) return;
  view.keys[name] = key;
  const node = make();
  const old = view.parts[name];
  if (old && node) old.replaceWith(node);
  else if (old) old.remove();
  else if (node) insert(node);
  view.parts[name] = node;
}

/** Mark rows, columns or single cells (e.g. the q_i and k_j behind score[i][j]). */
function highlight(view, { rows: hr = [], cols: hc = [], cells: marked = [] } = {}) {
  const { rows, cols } = view.cells ?? { rows: 0, cols: 0 };
  const on = new Set();
  for (const i of hr) if (i >= 0 && i < rows) for (let j = 0; j < cols; j++) on.add(i * cols + j);
  for (const j of hc) if (j >= 0 && j < cols) for (let i = 0; i < rows; i++) on.add(i * cols + j);
  for (const [i, j] of marked) if (i >= 0 && i < rows && j >= 0 && j < cols) on.add(i * cols + j);
  const changed = on.size !== view.lit.size || [...on].some((k) => !view.lit.has(k));
  if (!changed) return;
  // The table's cells carry the mark too (class hl), for scripts and tests; only changed ones are touched.
  const tds = view.table.cells;
  if (tds.length) {
    for (const k of view.lit) if (!on.has(k)) tds[k].classList.remove('hl');
    for (const k of on) if (!view.lit.has(k)) tds[k].classList.add('hl');
  }
  view.lit = on;
  requestDraw(view);
}

function busy(view, on) {
  if (view.busy === on) return;
  view.busy = on;
  for (const node of [view.figure, view.table.table]) on ? node.setAttribute('aria-busy', 'true') : node.removeAttribute('aria-busy');
}

// An observer of where each figure is: "near" is within one viewport height of the viewport (above
// or below). A figure coming near is drawn at once, so that a scroll finds it drawn (its table stays
// idle work); the frame after a change draws only the figures in view, by their boxes (frame.js).
const seen = new WeakMap();
const nearby =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            const view = seen.get(e.target);
            if (!view) continue;
            // A figure out of the document is neither near nor far: where the next render puts it is not known.
            view.near = e.target.isConnected ? e.isIntersecting : undefined;
            if (view.near) drawIfDirty(view);
          }
        },
        { rootMargin: '100% 0px' },
      )
    : null;
function watch(view) {
  seen.set(view.figure, view);
  nearby?.observe(view.figure);
}
