// What an exported figure shows, apart from how it is drawn: the heatmap's title, labels,
// cells (colour, the number, or masked), the colour scale and the legend's words, laid out once
// (figure-layout.js) for the SVG and the PNG.
import { scaleFor } from '../colors.js';
import { short } from '../format.js';
import { figureLayout } from './figure-layout.js';

const hex = (rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/**
 * @param {object} o { title, matrix, rowLabels, colLabels, isMasked, words: { legend, masked } }
 * @param {(text: string, font: string) => number} measure
 * @returns { layout, cells: [{ i, j, masked, bg, fg, text }], scale, stops }
 */
export function figureModel(o, measure) {
  const { matrix, isMasked } = o;
  const scale = scaleFor(matrix.data, isMasked);
  const cells = [];
  let anyMasked = false;
  for (let i = 0; i < matrix.rows; i++)
    for (let j = 0; j < matrix.cols; j++) {
      const k = i * matrix.cols + j;
      if (isMasked(k)) {
        anyMasked = true;
        cells.push({ i, j, masked: true });
        continue;
      }
      const { rgb, fg } = scale.color(matrix.data[k]);
      cells.push({ i, j, masked: false, bg: hex(rgb), fg, text: short(matrix.data[k]) });
    }
  const legend = { label: o.words.legend, masked: o.words.masked, min: short(scale.min), max: short(scale.max) };
  const spec = { title: o.title, rows: matrix.rows, cols: matrix.cols, rowLabels: o.rowLabels, colLabels: o.colLabels, anyMasked, legend };
  const layout = figureLayout(spec, measure);
  // The legend bar's colours, left to right, as gradient stops.
  const stops = Array.from({ length: 11 }, (_, k) => hex(scale.color(scale.min + ((scale.max - scale.min) * k) / 10).rgb));
  return { layout, cells, scale, stops, anyMasked };
}
