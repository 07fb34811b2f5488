// When heatmaps are drawn: every heatmap changed in a task is drawn in the next animation frame,
// before it is painted (all of them together: the theme is read once per shadow root, then the
// canvases are sized and drawn). A heatmap known to be off screen waits until it comes near the
// viewport (or the page is idle, see heatmap.js); one out of the document waits until it is in.
import { cellImage, draw, layout, readTheme, size } from './canvas.js';

const dirty = new Set();
let requested = false;
// Every heatmap drawn so far (weakly: a figure the page dropped is not kept alive), drawn again
// when the colours or the pixel ratio they were drawn for change while the page is open.
const drawn = new Set();
const known = new WeakSet();

function redrawAll() {
  for (const ref of drawn) {
    const view = ref.deref();
    if (!view) drawn.delete(ref);
    else if (view.figure.isConnected) requestDraw(view);
  }
}
if (typeof matchMedia === 'function') {
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', redrawAll);
  // A new pixel ratio (a zoom, a move to another screen) changes the media query's answer.
  const watchRatio = () => matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener?.('change', () => (redrawAll(), watchRatio()), { once: true });
  watchRatio();
}

/** Draw `view` (see heatmap.js) in the next frame. */
export function requestDraw(view) {
  if (!known.has(view)) {
    known.add(view);
    // Forget the figures the page has dropped, so the set stays the size of what is alive.
    if (drawn.size >= 256) for (const ref of drawn) if (!ref.deref()) drawn.delete(ref);
    drawn.add(new WeakRef(view));
  }
  view.dirty = true;
  dirty.add(view);
  if (requested) return;
  requested = true;
  requestAnimationFrame(frame);
}

function frame() {
  requested = false;
  const themes = new Map();
  const now = [];
  for (const view of dirty) {
    if (!view.figure.isConnected || view.near === false) continue;
    const root = view.figure.getRootNode();
    // Read every theme first: a canvas resized after would make the next read recompute style.
    if (!themes.has(root)) themes.set(root, readTheme(view.figure));
    now.push(view);
  }
  for (const view of now) paint(view, themes.get(view.figure.getRootNode()));
}

/** Draw `view` now if it waits and is in the document (the idle follow-up, or it came near). */
export function drawIfDirty(view) {
  if (view.dirty && view.figure.isConnected) paint(view, readTheme(view.figure));
}

function paint(view, theme) {
  dirty.delete(view);
  view.dirty = false;
  const { cells, labels } = view;
  const key = [cells.rows, cells.cols, view.compact, labels.rowKey, labels.colKey, theme.rem, theme.cell, theme.font, theme.dpr].join('\u0001');
  if (view.geoKey !== key) {
    view.geo = layout(view.g, { rows: cells.rows, cols: cells.cols, rowLabels: labels.rowLabels, colLabels: labels.colLabels, compact: view.compact }, theme);
    view.geoKey = key;
    size(view.canvas, view.geo, theme.dpr);
    // Where cell (0, 0) is and the cells' pitch (CSS px), for scripts and tests that point at a cell.
    const { left, top, cw, ch } = view.geo;
    view.canvas.dataset.cells = `${left} ${top} ${cw} ${ch}`;
  }
  if (view.imageOf !== cells) {
    view.image = cellImage(cells);
    view.imageOf = cells;
  }
  draw(view.g, view, theme);
}
