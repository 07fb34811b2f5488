// Where everything of an exported heatmap figure goes (CSS px), apart from any DOM: the title,
// the column labels (horizontal when they fit a cell, else rotated to read bottom to top), the
// row labels, the cells, the colour legend and the notes that keep abbreviated labels in full.
// `measure(text, font)` gives a text's width; the browser passes a canvas's measureText, the
// tests a stand-in. The SVG and the PNG are both drawn from this one layout.
import { mathRuns } from '../math-text.js';

export const FIGURE_FONT = 'Helvetica, Arial, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei", sans-serif';
export const FONTS = {
  title: `600 15px ${FIGURE_FONT}`,
  sub: `600 11px ${FIGURE_FONT}`,
  label: `12px ${FIGURE_FONT}`,
  number: `11px ${FIGURE_FONT}`,
  small: `11px ${FIGURE_FONT}`,
};
export const SIZES = { title: 15, sub: 11, label: 12, number: 11, small: 11 };
export const GAP = 1; // px between cells
export const LABEL_MAX = 160; // a longer label is abbreviated (and kept in full in the notes)
const PAD = 14;
const LINE = 1.3; // line height, in font sizes
const BAR = { width: 140, height: 10 };
const SWATCH = 14;

/** Side of a square cell: large enough for two decimals up to 12 rows and columns, smaller beyond. */
export function cellSide(rows, cols) {
  const n = Math.max(rows, cols);
  return n <= 12 ? 44 : Math.max(4, Math.min(30, Math.floor(760 / n)));
}

/** `text` cut with an ellipsis to at most `max` px wide (a binary search: a token may be 1,600 characters). */
export function abbreviate(text, max, measure, font) {
  if (measure(text, font) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${text.slice(0, mid)}…`, font) <= max) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

/** The width of a title's runs (subscripts in their smaller font). */
export function runsWidth(runs, measure) {
  return runs.reduce((w, r) => w + measure(r.text, r.sub ? FONTS.sub : FONTS.title), 0);
}

/** Lines of at most `max` px: broken at spaces, or inside a word too long for a line (Chinese has no spaces). */
export function wrap(text, max, measure, font) {
  const lines = [];
  let line = '';
  for (const piece of text.split(/(?<=\s)/)) {
    if (measure(line + piece, font) <= max) {
      line += piece;
      continue;
    }
    if (line.trim()) lines.push(line.trimEnd());
    line = '';
    for (const ch of piece) {
      if (line && measure(line + ch, font) > max) {
        lines.push(line);
        line = '';
      }
      line += ch;
    }
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/** Labels fitted to `max` px, every `every`-th one drawn: [{ index, text, full }] (full: the label when cut). */
function fitLabels(labels, max, every, measure) {
  const out = [];
  labels.forEach((label, index) => {
    if (index % every) return;
    const text = abbreviate(String(label), max, measure, FONTS.label);
    out.push({ index, text, ...(text !== String(label) ? { full: String(label) } : {}) });
  });
  return out;
}

/**
 * @param {object} spec { title, rows, cols, rowLabels, colLabels, anyMasked, legend: { label, min, max, masked } }
 *   (label: the legend's name with its colon; min and max as printed; masked: the hatched swatch's word)
 * @param {(text: string, font: string) => number} measure
 */
export function figureLayout(spec, measure) {
  const { rows, cols } = spec;
  const cell = cellSide(rows, cols);
  const line = SIZES.label * LINE;
  // Labels closer than a line apart are thinned out (the CSV and LaTeX exports keep every one).
  const every = Math.max(1, Math.ceil(line / cell));
  const rowItems = fitLabels(spec.rowLabels, LABEL_MAX, every, measure);
  const widest = (items) => Math.max(0, ...items.map((it) => measure(it.text, FONTS.label)));
  const left = PAD + Math.ceil(widest(rowItems)) + 8;
  const colFull = fitLabels(spec.colLabels, LABEL_MAX, every, measure);
  // Horizontal only when every label fits its own cell; otherwise all are rotated.
  const rotated = colFull.some((it) => measure(it.text, FONTS.label) > cell - 4);
  const titleRuns = mathRuns(spec.title);
  const titleY = PAD + SIZES.title;
  const headerTop = titleY + 10;
  const top = headerTop + (rotated ? Math.ceil(widest(colFull)) + 6 : Math.ceil(line) + 2);
  const colItems = colFull.map((it) => ({ ...it, x: left + it.index * cell + (cell - GAP) / 2, y: top - 6 }));
  const grid = { left, top, cell, width: cols * cell, height: rows * cell, numbers: cell >= 40 };
  const legend = legendLayout(spec, PAD, top + grid.height + 18, measure);
  const contentWidth = Math.max(left + grid.width, PAD + runsWidth(titleRuns, measure), legend.right);
  const width = Math.ceil(Math.max(contentWidth + PAD, 240));
  const notes = notesLayout(spec, [...rowItems, ...colFull], legend.bottom + 8, width - 2 * PAD, measure);
  const height = Math.ceil((notes.length ? notes.at(-1).y + 6 : legend.bottom) + PAD);
  return {
    width,
    height,
    title: { x: PAD, y: titleY, runs: titleRuns },
    columns: { rotated, items: colItems },
    rowItems: rowItems.map((it) => ({ ...it, x: left - 8, y: top + it.index * cell + (cell - GAP) / 2 + 0.35 * SIZES.label })),
    grid,
    legend,
    notes,
  };
}

/** One row under the cells: the legend's name, min, the gradient bar, max, and (any masked) the hatched swatch. */
function legendLayout({ legend, anyMasked }, x0, y, measure) {
  const base = y + SIZES.small; // text baseline
  let x = x0;
  const text = (s) => {
    const item = { x, y: base, text: s };
    x += measure(s, FONTS.small) + 6;
    return item;
  };
  const name = text(legend.label);
  const min = text(legend.min);
  const bar = { x, y: base - BAR.height + 1, width: BAR.width, height: BAR.height };
  x += BAR.width + 6;
  const max = text(legend.max);
  let masked = null;
  if (anyMasked) {
    x += 10;
    masked = { swatch: { x, y: base - BAR.height + 1, width: SWATCH, height: BAR.height } };
    x += SWATCH + 5;
    masked.label = text(legend.masked);
  }
  return { name, min, bar, max, masked, right: x, bottom: base + 4 };
}

/** The notes that give abbreviated labels in full, wrapped to the figure's width. */
function notesLayout(spec, items, y, width, measure) {
  const cut = items.filter((it) => it.full);
  const seen = new Set();
  const lines = [];
  for (const it of cut) {
    if (seen.has(it.full)) continue;
    seen.add(it.full);
    for (const text of wrap(`${it.text} = ${it.full}`, Math.max(200, width), measure, FONTS.small)) lines.push(text);
  }
  return lines.map((text, k) => ({ x: PAD, y: y + (k + 1) * SIZES.small * LINE, text }));
}
