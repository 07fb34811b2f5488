// An exported heatmap figure drawn on a canvas, as a PNG blob: the same layout as the SVG, at
// twice the size or the device pixel ratio, whichever is larger (sharp on a high-DPI screen and
// when a paper scales it down).
import { FONTS, GAP, SIZES } from './figure-layout.js';
import { hatchPattern } from '../heatmap/hatch.js';
import { figureModel } from './figure.js';

/** The pixel ratio of an exported PNG: at least 2, more on a denser screen. */
export const pngScale = (dpr = globalThis.devicePixelRatio || 1) => Math.max(2, Math.ceil(dpr));

/** measure(text, font) backed by a canvas context (the SVG is laid out with it too). */
export function canvasMeasure(g = document.createElement('canvas').getContext('2d')) {
  return (text, font) => {
    g.font = font;
    return g.measureText(text).width;
  };
}

function drawTitle(g, { x, y, runs }) {
  g.textAlign = 'left';
  let at = x;
  for (const r of runs) {
    g.font = r.sub ? FONTS.sub : FONTS.title;
    g.fillText(r.text, at, r.sub ? y + 4 : y);
    at += g.measureText(r.text).width;
  }
}

function drawLabels(g, { columns, rowItems }) {
  g.font = FONTS.label;
  for (const it of columns.items) {
    if (!columns.rotated) {
      g.textAlign = 'center';
      g.fillText(it.text, it.x, it.y);
      continue;
    }
    g.save();
    g.translate(it.x + 0.35 * SIZES.label, it.y);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'left';
    g.fillText(it.text, 0, 0);
    g.restore();
  }
  g.textAlign = 'right';
  for (const it of rowItems) g.fillText(it.text, it.x, it.y);
}

function drawCells(g, { grid }, cells, pattern) {
  const side = grid.cell - (grid.cell >= 6 ? GAP : 0);
  g.font = FONTS.number;
  g.textAlign = 'center';
  for (const c of cells) {
    const x = grid.left + c.j * grid.cell;
    const y = grid.top + c.i * grid.cell;
    g.fillStyle = c.masked ? pattern : c.bg;
    g.fillRect(x, y, side, side);
    if (c.masked || !grid.numbers) continue;
    g.fillStyle = c.fg;
    g.fillText(c.text, x + side / 2, y + side / 2 + 0.35 * SIZES.number);
  }
}

function drawLegend(g, { legend, notes }, stops, pattern) {
  g.font = FONTS.small;
  g.textAlign = 'left';
  g.fillStyle = '#000';
  for (const item of [legend.name, legend.min, legend.max, legend.masked?.label, ...notes]) if (item) g.fillText(item.text, item.x, item.y);
  const { bar } = legend;
  const gradient = g.createLinearGradient(bar.x, 0, bar.x + bar.width, 0);
  stops.forEach((c, k) => gradient.addColorStop(k / (stops.length - 1), c));
  g.fillStyle = gradient;
  g.fillRect(bar.x, bar.y, bar.width, bar.height);
  if (legend.masked) {
    const s = legend.masked.swatch;
    g.fillStyle = pattern;
    g.fillRect(s.x, s.y, s.width, s.height);
  }
}

/** The figure as a PNG blob. `o` as figureModel's. */
export function figurePng(o, scale = pngScale()) {
  const canvas = document.createElement('canvas');
  const g = canvas.getContext('2d');
  const model = figureModel(o, canvasMeasure(g));
  const { layout } = model;
  canvas.width = Math.ceil(layout.width * scale);
  canvas.height = Math.ceil(layout.height * scale);
  g.scale(scale, scale);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, layout.width, layout.height);
  g.fillStyle = '#000';
  drawTitle(g, layout.title);
  g.fillStyle = '#333';
  drawLabels(g, layout);
  const pattern = hatchPattern(g);
  drawCells(g, layout, model.cells, pattern);
  drawLegend(g, layout, model.stops, pattern);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
