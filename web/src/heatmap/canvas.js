// Drawing a heatmap on a <canvas> at the device pixel ratio: row and column labels, the cells'
// colours (one pixel per cell, scaled up without smoothing), masked cells hatched, the numbers in
// a non-compact heatmap, highlighted cells and the focused one outlined.
import { LEVELS } from '../colors.js';
import { blankCanvas, hatchPattern } from './hatch.js';

const GAP = 1; // px between cells, as the table's border-spacing was

/**
 * The theme's lengths and colours, read from the canvas's computed style (once per frame and root):
 * its colour properties hold the theme's colours resolved for the element's colour scheme
 * (styles.js), so a light, dark or printed page gives the labels and outlines their colours.
 */
export function readTheme(canvas) {
  const cs = getComputedStyle(canvas);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const prop = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  const length = (text, fallback) => {
    const x = parseFloat(text);
    if (!Number.isFinite(x) || x <= 0) return fallback;
    return text.endsWith('rem') ? x * rem : text.endsWith('em') ? x * parseFloat(cs.fontSize) : x;
  };
  const theme = {
    rem,
    cell: length(prop('--_cell', ''), 2.6 * rem),
    fg: cs.textDecorationColor || '#1a1a1a',
    muted: cs.color || '#4a4f57',
    hl: cs.caretColor || '#d1008f',
    focus: cs.columnRuleColor || '#c2410c',
    font: prop('--_font', 'sans-serif'),
    mono: prop('--_mono', 'monospace'),
    dpr: globalThis.devicePixelRatio || 1,
  };
  // Everything above that a drawing depends on (the pixel ratio is watched on its own): a drawing
  // made for another key is out of date (a dark page, a new --attn-cell-size or --attn-font).
  theme.key = [theme.fg, theme.muted, theme.hl, theme.focus, theme.rem, theme.cell, theme.font, theme.mono].join('\u0001');
  return theme;
}

/**
 * The language a canvas's text is drawn in: its nearest `lang` attribute, across shadow roots (a
 * panel's root carries one), else the document's. The drawing sets it on the context instead of
 * leaving the default 'inherit': with 'inherit', Chromium recomputes styles synchronously whenever
 * a `lang` above a canvas changes, so the language menu's switch paid a forced style recalculation
 * inside the steps panel's render (a Chromium trace: 10 ms; 0.3 ms with the language set).
 */
export function canvasLang(canvas) {
  for (let node = canvas; node; node = node.getRootNode().host) {
    const marked = node.closest('[lang]');
    if (marked) return marked.lang;
  }
  return document.documentElement.lang;
}

const MIN_CELL = 12; // px: the smallest compact cell, still one a pointer or a finger can pick out

/**
 * Cell sizes (CSS px) of a heatmap: number cells as wide as --attn-cell-size, compact ones small;
 * large matrices smaller, to fit a desktop panel's width (about 1,100 px), but never under
 * MIN_CELL: a wider figure scrolls sideways, and its caption says so (styles.js).
 */
function cellSize(rows, cols, compact, theme) {
  // Whole CSS pixels: crisp edges at any device pixel ratio.
  if (!compact) return { cw: Math.round(theme.cell), ch: Math.round(theme.cell * 0.7) };
  const side = Math.max(MIN_CELL, Math.min(Math.round(1.05 * theme.rem) + GAP, Math.floor(1100 / Math.max(rows, cols))));
  return { cw: side, ch: side };
}

/** `text`, cut with an ellipsis to at most `max` px wide (a binary search: a token may be 1,600 characters). */
function fitted(g, text, max) {
  if (g.measureText(text).width <= max) return text;
  let lo = 0;
  let hi = Math.min(text.length, Math.ceil(max)); // no glyph is under a pixel wide
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (g.measureText(`${text.slice(0, mid)}…`).width <= max) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

// A label in a CJK script (ideographs, kana, hangul, full-width forms) is stacked upright down its
// column, as vertical Chinese is written, rather than turned on its side.
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]+$/u;
const STACK = 1.1; // line pitch of stacked characters, in font sizes

/**
 * How a compact heatmap's column label is drawn in a column `room` px wide with `band` px above
 * the cells: flat when it fits the column (a character, a short number), stacked upright when it
 * is CJK (cut with ⋮ when longer than the band), else turned to read bottom to top (cut with …).
 * `extent`: the height it takes above the cells.
 */
export function columnLabel(g, text, room, band, size) {
  if (!text) return null;
  if (g.measureText(text).width <= room) return { mode: 'flat', text, extent: Math.ceil(size * 1.2) };
  const fit = Math.max(1, Math.floor(band / (size * STACK)));
  const chars = [...text.slice(0, 2 * fit + 2)];
  if (CJK.test(text) && chars.slice(0, fit).every((c) => g.measureText(c).width <= room)) {
    const shown = [...text].length <= fit ? chars : [...chars.slice(0, fit - 1), '⋮'];
    return { mode: 'stack', text: shown.join(''), chars: shown, extent: Math.ceil(shown.length * size * STACK) };
  }
  const cut = fitted(g, text, band);
  return { mode: 'turn', text: cut, extent: Math.ceil(g.measureText(cut).width) };
}

/** Where everything goes (CSS px): label areas, cell pitch, which labels are drawn and how. */
export function layout(g, { rows, cols, rowLabels, colLabels, compact }, theme) {
  const { cw, ch } = cellSize(rows, cols, compact, theme);
  const colSize = (compact ? 0.65 : 0.72) * theme.rem;
  const rowFont = `600 ${(compact ? 0.65 : 0.72) * theme.rem}px ${theme.font}`;
  const colFont = `600 ${colSize}px ${theme.font}`;
  const lineOf = (font) => parseFloat(font.split(' ')[1]) * 1.3;
  // Labels closer than a line apart are thinned out: every rowEvery-th row, colEvery-th column.
  const rowEvery = Math.ceil(lineOf(rowFont) / ch);
  const colEvery = Math.ceil(lineOf(colFont) / (compact ? cw : 4 * cw));
  g.font = rowFont;
  const rowTexts = rowLabels.map((l, i) => (i % rowEvery ? '' : fitted(g, l, 7 * theme.rem)));
  const left = Math.ceil(Math.max(8, ...rowTexts.map((l) => g.measureText(l).width)) + 8);
  g.font = colFont;
  let colTexts;
  let top;
  if (compact) {
    // A band as tall as the longest label drawn, up to 9 rem (12 stacked Chinese characters).
    const band = 9 * theme.rem;
    colTexts = colLabels.map((l, j) => (j % colEvery ? null : columnLabel(g, l, colEvery * cw - 3, band, colSize)));
    top = Math.ceil(Math.max(8, ...colTexts.map((c) => c?.extent ?? 0)) + 6);
  } else {
    colTexts = colLabels.map((l, j) => (j % colEvery ? null : { mode: 'flat', text: fitted(g, l, cw), extent: lineOf(colFont) }));
    top = Math.ceil(lineOf(colFont) + 4);
  }
  const width = left + cols * cw;
  const height = top + rows * ch;
  return { cw, ch, left, top, width, height, rowFont, colFont, colSize, rowTexts, colTexts, compact };
}

/**
 * The cells' colours as a cols×rows image, one pixel per cell (masked cells transparent), in
 * `reuse` when it is an image of that size (a new canvas's context costs more than its pixels).
 */
export function cellImage(cells, reuse) {
  const { rows, cols, level, scale } = cells;
  const fits = reuse && reuse.width === Math.max(1, cols) && reuse.height === Math.max(1, rows);
  const image = fits ? reuse : blankCanvas(cols, rows);
  const ctx = image.getContext('2d');
  const pixels = ctx.createImageData(cols, rows);
  const palette = LEVELS[scale.kind];
  const out = pixels.data;
  for (let k = 0; k < level.length; k++) {
    const q = level[k];
    if (q < 0) continue;
    const [r, gr, b] = palette[q].rgb;
    out[4 * k] = r;
    out[4 * k + 1] = gr;
    out[4 * k + 2] = b;
    out[4 * k + 3] = 255;
  }
  ctx.putImageData(pixels, 0, 0);
  return image;
}

/**
 * Whether the browser shows part of a canvas's bitmap (CSS object-view-box). Then a canvas whose
 * shape changes keeps its bitmap when the new drawing fits (the view box crops it): a new bitmap
 * costs in proportion to its pixels (a 600×400 one 4–9 ms in Chromium, in the change's frame).
 * Elsewhere the bitmap is always the drawing's exact size.
 */
const CROPS = typeof CSS !== 'undefined' && Boolean(CSS.supports?.('object-view-box', 'inset(0px 1px 2px 0px)'));
/** A new bitmap for a drawing that outgrew the last one leaves room for a few more rows and columns. */
const HEADROOM = 1.25;
/** Per canvas this module sized: its view box as last set (the CSSOM reads it back shortened). */
const viewBoxes = new WeakMap();

/**
 * The bitmap size for a `w`×`h` drawing: the canvas's own while it fits and is not four times too
 * big. Outgrown, the new one has headroom and keeps the old one's width or height where that is
 * larger still (a drawing that grew taller but narrower, then wider again, needs one new bitmap,
 * not two).
 */
function bitmapFor(canvas, w, h) {
  if (!CROPS || !viewBoxes.has(canvas)) return [w, h];
  const { width, height } = canvas;
  const fits = w <= width && h <= height;
  if (fits && width * height <= 4 * w * h) return [width, height];
  if (fits) return [w, h];
  const grown = [Math.max(width, Math.ceil(w * HEADROOM)), Math.max(height, Math.ceil(h * HEADROOM))];
  return grown[0] * grown[1] <= 4 * w * h ? grown : [Math.ceil(w * HEADROOM), Math.ceil(h * HEADROOM)];
}

/** Size the canvas for `geo` at the device pixel ratio (a new bitmap only when it must). */
export function size(canvas, geo, dpr) {
  const w = Math.round(geo.width * dpr);
  const h = Math.round(geo.height * dpr);
  const [width, height] = bitmapFor(canvas, w, h);
  if (canvas.width !== width || canvas.height !== height) Object.assign(canvas, { width, height });
  const box = `inset(0px ${width - w}px ${height - h}px 0px)`;
  if (CROPS && viewBoxes.get(canvas) !== box) canvas.style.objectViewBox = box;
  viewBoxes.set(canvas, box);
  const css = `${geo.width}px`;
  if (canvas.style.width !== css) canvas.style.width = css;
  if (canvas.style.height !== `${geo.height}px`) canvas.style.height = `${geo.height}px`;
}

/** Draw one heatmap: `view` holds its cells, image, layout, highlighted cells and focused cell. */
export function draw(g, view, theme) {
  const { cells, geo, image } = view;
  const { cw, ch, left, top } = geo;
  // The whole bitmap: one kept from a larger drawing shows only its top-left part (size above).
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, g.canvas.width, g.canvas.height);
  g.setTransform(theme.dpr, 0, 0, theme.dpr, 0, 0);
  drawLabels(g, geo, theme);
  g.imageSmoothingEnabled = false;
  g.drawImage(image, left, top, cells.cols * cw, cells.rows * ch);
  if (cw >= 6) {
    // The gaps between cells show what is behind the canvas.
    for (let j = 1; j <= cells.cols; j++) g.clearRect(left + j * cw - GAP, top, GAP, cells.rows * ch);
    for (let i = 1; i <= cells.rows; i++) g.clearRect(left, top + i * ch - GAP, cells.cols * cw, GAP);
  }
  if (cells.anyMasked) hatch(g, cells, geo, cw >= 6 ? GAP : 0);
  if (!geo.compact) drawNumbers(g, cells, geo, theme);
  const line = Math.max(1, Math.min(3, cw / 4));
  g.lineWidth = line;
  g.strokeStyle = theme.hl;
  for (const k of view.lit) outline(g, geo, cells.cols, k, line / 2 + 0.5);
  if (view.focusVisible && view.current !== null) {
    g.strokeStyle = theme.focus;
    g.lineWidth = 3;
    outline(g, geo, cells.cols, view.current, -1.5);
  }
}

function outline(g, { cw, ch, left, top }, cols, k, inset) {
  const x = left + (k % cols) * cw;
  const y = top + Math.floor(k / cols) * ch;
  g.strokeRect(x + inset, y + inset, cw - GAP - 2 * inset, ch - GAP - 2 * inset);
}

function drawLabels(g, geo, theme) {
  const { cw, ch, left, top } = geo;
  g.fillStyle = theme.muted;
  g.font = geo.rowFont;
  g.textAlign = 'right';
  g.textBaseline = 'middle';
  geo.rowTexts.forEach((text, i) => text && g.fillText(text, left - 6, top + i * ch + ch / 2));
  g.font = geo.colFont;
  g.textAlign = 'center';
  geo.colTexts.forEach((label, j) => {
    if (!label) return;
    const x = left + j * cw + (cw - GAP) / 2;
    if (label.mode === 'flat') {
      g.textBaseline = geo.compact ? 'alphabetic' : 'middle';
      g.fillText(label.text, x, geo.compact ? top - 5 : top / 2);
    } else if (label.mode === 'stack') {
      g.textBaseline = 'middle';
      const pitch = label.extent / label.chars.length;
      label.chars.forEach((c, k) => g.fillText(c, x, top - 4 - label.extent + (k + 0.5) * pitch));
    } else {
      // Turned, read bottom to top, as the table's vertical headers were.
      g.save();
      g.translate(x, top - 4);
      g.rotate(-Math.PI / 2);
      g.textAlign = 'left';
      g.textBaseline = 'middle';
      g.fillText(label.text, 0, 0);
      g.restore();
    }
  });
}

let pattern = null;
function hatch(g, { rows, cols, level }, { cw, ch, left, top }, gap) {
  pattern ??= hatchPattern(g);
  // One rectangle per run of masked cells in a row (a causal mask: one per row).
  g.beginPath();
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      if (level[i * cols + j] !== -1) continue;
      const start = j;
      while (j + 1 < cols && level[i * cols + j + 1] === -1) j++;
      if (gap) for (let c = start; c <= j; c++) g.rect(left + c * cw, top + i * ch, cw - gap, ch - gap);
      else g.rect(left + start * cw, top + i * ch, (j - start + 1) * cw, ch);
    }
  g.fillStyle = pattern;
  g.fill();
}

function drawNumbers(g, cells, { cw, ch, left, top }, theme) {
  const palette = LEVELS[cells.scale.kind];
  const size = 0.72 * theme.rem;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  const fonts = [`${size}px ${theme.mono}`, `700 ${size}px ${theme.mono}`];
  let bold = -1;
  for (let k = 0; k < cells.level.length; k++) {
    const q = cells.level[k];
    if (bold !== (q === -1 ? 1 : 0)) g.font = fonts[(bold = q === -1 ? 1 : 0)];
    g.fillStyle = q === -1 ? '#000' : palette[q].fg;
    g.fillText(cells.text(k), left + (k % cells.cols) * cw + (cw - GAP) / 2, top + Math.floor(k / cells.cols) * ch + (ch - GAP) / 2, cw - 2);
  }
}
