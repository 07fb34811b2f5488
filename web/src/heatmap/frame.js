// When heatmaps are drawn: every heatmap changed in a task and in the viewport is drawn in the next
// animation frame, before it is painted (all of them together: the theme is read once per shadow
// root, then the canvases are sized and drawn); one within a viewport's height of it when the page is
// next idle; one farther when it comes near (heatmap.js's observer). Where a figure is comes from its
// box. One out of the document waits until it is in, and is drawn again once placed if the theme or
// pixel ratio changed meanwhile. Before printing, and when a script asks (drawAll: a full-page
// capture), everything waiting is drawn.
import { later, onFrame } from '../scheduler.js';
import { canvasLang, cellImage, draw, layout, readTheme, size } from './canvas.js';

const dirty = new Set();
let requested = false;
// Every heatmap drawn so far (weakly: a figure the page dropped is not kept alive), drawn again
// when the theme (colours, cell size, fonts) or the pixel ratio they were drawn for change while
// the page is open.
const drawn = new Set();
const known = new WeakSet();

/** The live, connected heatmaps drawn so far. */
function* live() {
  for (const ref of drawn) {
    const view = ref.deref();
    if (!view) drawn.delete(ref);
    else if (view.figure.isConnected) yield view;
  }
}

/** The drawn heatmaps out of the document (a step not shown): marked to be drawn again when next placed (heatmap.js). */
function outdateAway() {
  for (const ref of drawn) {
    const view = ref.deref();
    if (view && !view.figure.isConnected) view.dirty = true;
  }
}

function redrawAll() {
  outdateAway();
  for (const view of live()) requestDraw(view);
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
  onFrame(frame);
}

function frame() {
  requested = false;
  const themes = new Map();
  const now = [];
  // Read every theme and box first: a canvas resized after would make the next read lay out again.
  for (const view of dirty) {
    // Out of the document, or not drawn now: it keeps its `dirty` mark, which the render that
    // places it, the idle follow-up, its observer or drawAll acts on.
    dirty.delete(view);
    if (!view.figure.isConnected) continue;
    // Its observer's word as well as its box: a canvas resized in this frame may move it near
    // without the observer seeing it come near.
    const byBox = whereIs(view);
    const where = byBox === 'far' && view.near ? 'near' : byBox;
    // Near the viewport: when the page is idle, so that a scroll finds it drawn. Far from it: when
    // its observer sees it come near (heatmap.js), or drawAll (print, a full-page capture).
    if (where === 'near') later(view.canvas, () => drawIfDirty(view));
    if (where !== 'in') continue;
    themeOf(view, themes);
    now.push(view);
  }
  for (const view of now) paint(view, themeOf(view, themes));
}

/**
 * Where a figure is now, by its box (the layout this frame's paint needs anyway): 'in' the
 * viewport, 'near' it (within a viewport's height) or 'far'. Its observer's last word may be a
 * frame old (a figure just placed, a panel just shown), and a new figure has none yet. Drawing every
 * new figure in the frame cost the heads panel's first visit at 32 tokens 100 ms (ten canvases of
 * about 600 × 600, one of them on screen), and drawing the far ones when idle kept it busy 100 ms
 * more (the decoding panel: 13 canvases down to 12,000 px below). Canvases not yet sized are
 * smaller than they will be, so figures below them count as higher: drawn sooner, never later.
 */
function whereIs(view) {
  const r = view.figure.getBoundingClientRect();
  const h = innerHeight;
  // A figure in a hidden panel has no box: drawn when its panel is shown and it is seen.
  if ((r.width === 0 && r.height === 0) || r.right <= 0 || r.left >= innerWidth) return 'far';
  if (r.bottom > 0 && r.top < h) return 'in';
  return r.bottom > -h && r.top < 2 * h ? 'near' : 'far';
}

const themeOf = (view, themes) => {
  const root = view.figure.getRootNode();
  if (!themes.has(root)) themes.set(root, readTheme(view.canvas));
  return themes.get(root);
};

/** Draw `view` now if it waits and is in the document (the idle follow-up, or it came near or into view). */
export function drawIfDirty(view) {
  if (view.dirty && view.figure.isConnected) paint(view, readTheme(view.canvas));
}

/**
 * Draw now, wherever they are, every heatmap that waits and every one drawn for another theme (a
 * page switched to dark, a print, a new --attn-cell-size): for print and full-page captures.
 */
export function drawAll() {
  const themes = new Map();
  const views = [...live()];
  for (const view of views) themeOf(view, themes);
  for (const view of views) {
    const theme = themeOf(view, themes);
    if (view.dirty || view.themeKey !== theme.key) paint(view, theme);
  }
}

let checking = false;
/** In the next frame, redraw the heatmaps drawn for another theme than their root's now (it may have changed). */
export function recheckThemes() {
  if (checking) return;
  checking = true;
  onFrame(() => {
    checking = false;
    const themes = new Map();
    let changed = false;
    for (const view of live())
      if (themeOf(view, themes).key !== view.themeKey) {
        changed = true;
        requestDraw(view);
      }
    // Those out of the document may belong to a root whose theme changed too.
    if (changed) outdateAway();
  });
}

function paint(view, theme) {
  // The text's language, set on the context (not 'inherit', see canvasLang); resizing resets it.
  const lang = canvasLang(view.canvas);
  dirty.delete(view);
  view.dirty = false;
  view.themeKey = theme.key;
  const { cells, labels } = view;
  const key = [cells.rows, cells.cols, view.compact, labels.rowKey, labels.colKey, theme.rem, theme.cell, theme.font, theme.dpr].join('\u0001');
  view.g ??= view.canvas.getContext('2d');
  view.g.lang = lang;
  view.drawnLang = lang;
  if (view.geoKey !== key) {
    view.geo = layout(view.g, { rows: cells.rows, cols: cells.cols, rowLabels: labels.rowLabels, colLabels: labels.colLabels, compact: view.compact }, theme);
    view.geoKey = key;
    size(view.canvas, view.geo, theme.dpr);
    // Where cell (0, 0) is and the cells' pitch (CSS px), and the shape drawn, for scripts and tests
    // that point at a cell (a kept canvas shows its last drawing until it is drawn for a new shape).
    const { left, top, cw, ch } = view.geo;
    view.canvas.dataset.cells = `${left} ${top} ${cw} ${ch}`;
    view.canvas.dataset.shape = `${cells.rows}×${cells.cols}`;
    view.g.lang = lang;
  }
  if (view.imageOf !== cells) {
    view.image = cellImage(cells, view.image);
    view.imageOf = cells;
  }
  draw(view.g, view, theme);
}

/** Printing: every canvas in the light colours (paper is light), drawn before the page is laid out for print. */
function printing(on) {
  for (const view of live()) {
    if (on) view.canvas.dataset.print = '';
    else delete view.canvas.dataset.print;
  }
  drawAll();
}

if (typeof matchMedia === 'function') {
  // The OS switched between light and dark: the elements that follow it (theme auto, a page with
  // color-scheme: light dark) have new colours.
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', recheckThemes);
  // A new pixel ratio (a zoom, a move to another screen) changes the media query's answer.
  const watchRatio = () => matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener?.('change', () => (redrawAll(), watchRatio()), { once: true });
  watchRatio();
  // window.print() fires beforeprint; a print preview or PDF that only switches the media to print does not.
  matchMedia('print').addEventListener?.('change', (e) => printing(e.matches));
  addEventListener('beforeprint', () => printing(true));
  addEventListener('afterprint', () => printing(false));
  // A page whose root font size or --attn-cell-size follows the viewport (a media query) changes
  // them on a resize: the canvases drawn for the old sizes are drawn again.
  addEventListener('resize', recheckThemes);
}
// A class-themed page switches by an attribute of <html> or <body> (class="dark", data-theme…,
// a style setting --attn-cell-size); other attributes (the demo's data-url-pending, lang) change
// often and never the theme.
const THEME_ATTRIBUTES = ['class', 'style', 'theme', 'data-theme', 'data-bs-theme', 'data-color-scheme', 'data-mode'];
if (typeof MutationObserver === 'function' && typeof document !== 'undefined') {
  const watcher = new MutationObserver(recheckThemes);
  const watch = () => [document.documentElement, document.body].forEach((node) => node && watcher.observe(node, { attributes: true, attributeFilter: THEME_ATTRIBUTES }));
  if (document.body) watch();
  else document.addEventListener('DOMContentLoaded', watch, { once: true });
}
