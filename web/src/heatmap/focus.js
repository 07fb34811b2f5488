// Pointing at and focusing a heatmap's cells. The pointer over the canvas shows the cell under it
// (its exact value in the readout, the panel's onCell). The keyboard moves one focused cell (arrow
// keys, Home, End): a roving tab stop in the screen-reader table, or the canvas itself when the
// matrix is too large for a table; the canvas outlines the focused cell.
import { now } from '../scheduler.js';
import { requestDraw } from './frame.js';

/** The cell index under a point of the canvas (CSS px from its corner), or -1. */
export function cellAt(view, x, y) {
  const geo = view.geo;
  if (!geo) return -1;
  const j = Math.floor((x - geo.left) / geo.cw);
  const i = Math.floor((y - geo.top) / geo.ch);
  return i >= 0 && i < view.cells.rows && j >= 0 && j < view.cells.cols ? i * view.cells.cols + j : -1;
}

/** The full text of the row or column label under a point (a drawn label may be cut), or ''. */
export function labelAt(view, x, y) {
  const geo = view.geo;
  if (!geo || !view.labels) return '';
  if (y < geo.top && x >= geo.left) return view.labels.colLabels[Math.floor((x - geo.left) / geo.cw)] ?? '';
  if (x < geo.left && y >= geo.top) return view.labels.rowLabels[Math.floor((y - geo.top) / geo.ch)] ?? '';
  return '';
}

/** The listeners, installed once per kept figure; they read the latest render's `view`. */
export function listen(view) {
  const { canvas, scroll } = view;
  let hovered = -1;
  const point = (e) => {
    const box = canvas.getBoundingClientRect();
    return cellAt(view, e.clientX - box.left, e.clientY - box.top);
  };
  canvas.addEventListener('pointermove', (e) => {
    const k = point(e);
    // Over a label: its full text as the tooltip.
    const box = canvas.getBoundingClientRect();
    const label = k < 0 ? labelAt(view, e.clientX - box.left, e.clientY - box.top) : '';
    if (canvas.title !== label) canvas.title = label;
    if (k === hovered) return;
    hovered = k;
    if (k < 0) view.leave();
    else view.show(k);
  });
  canvas.addEventListener('pointerleave', () => {
    hovered = -1;
    view.leave();
  });
  // A tap (touch, pen) shows the cell as hovering does; its compatibility mousedown then focuses it.
  canvas.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'mouse') return;
    const k = point(e);
    if (k < 0 || k === hovered) return;
    hovered = k;
    view.show(k);
  });
  // A click focuses the cell (not the page's body: the default is prevented).
  canvas.addEventListener('mousedown', (e) => {
    const k = point(e);
    if (k < 0 || e.button !== 0) return;
    e.preventDefault();
    move(view, k, false);
  });
  scroll.addEventListener('keydown', (e) => {
    const { rows, cols } = view.cells;
    const i = Math.floor(view.current / cols);
    const j = view.current % cols;
    const moves = { ArrowRight: j < cols - 1 ? 1 : 0, ArrowLeft: j > 0 ? -1 : 0, ArrowDown: i < rows - 1 ? cols : 0, ArrowUp: i > 0 ? -cols : 0, Home: -j, End: cols - 1 - j };
    if (!(e.key in moves)) return;
    e.preventDefault();
    e.stopPropagation();
    move(view, view.current + moves[e.key], true);
  });
  scroll.addEventListener('focusin', (e) => {
    const td = e.target.closest?.('td[data-i]');
    if (td) view.current = Number(td.dataset.i) * view.cells.cols + Number(td.dataset.j);
    else if (e.target !== canvas) return;
    view.focusVisible = e.target.matches(':focus-visible');
    view.show(view.current);
    requestDraw(view);
  });
  scroll.addEventListener('focusout', () => {
    view.focusVisible = false;
    requestDraw(view);
  });
}

/** Focus cell `k` (by keyboard: its outline shows) and keep it in view. */
function move(view, k, byKeyboard) {
  if (k < 0 || k >= view.cells.rows * view.cells.cols) return;
  now(view); // clicked before the page was idle: its table is made now
  const cells = view.table.hasCells ? view.table.cells : null;
  if (cells) {
    cells[view.current].tabIndex = -1;
    cells[k].tabIndex = 0;
  }
  view.current = k;
  (cells ? cells[k] : view.canvas).focus({ preventScroll: true });
  view.focusVisible = byKeyboard;
  view.show(k);
  requestDraw(view);
  if (byKeyboard) reveal(view, k);
}

/** Scroll the figure's box so that cell `k` is seen. */
function reveal({ scroll, geo, cells }, k) {
  if (!geo) return;
  const x = geo.left + (k % cells.cols) * geo.cw;
  const y = geo.top + Math.floor(k / cells.cols) * geo.ch;
  if (x < scroll.scrollLeft + geo.left) scroll.scrollLeft = x - geo.left;
  else if (x + geo.cw > scroll.scrollLeft + scroll.clientWidth) scroll.scrollLeft = x + geo.cw - scroll.clientWidth;
  if (y < scroll.scrollTop + geo.top) scroll.scrollTop = y - geo.top;
  else if (y + geo.ch > scroll.scrollTop + scroll.clientHeight) scroll.scrollTop = y + geo.ch - scroll.clientHeight;
}
