// A head view (as in BertViz): the rows' tokens on the left, the columns' tokens on the right, and
// a line from row token i to column token j whose opacity is the attention weight A[i][j] (the
// library's, as posted). Drawn beside the heatmaps of the reader's input, for one layer and head.
import { svg } from '../../chart.js';

const ROW = 18;
const WIDTH = 320;

/** An SVG head view of `matrix` ({ rows, cols, data }) labelled by rowLabels / colLabels; `title`: its accessible name. */
export function headView(matrix, rowLabels, colLabels, title) {
  const height = Math.max(matrix.rows, matrix.cols) * ROW + 8;
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, class: 'head-view', role: 'img', 'aria-label': title });
  root.append(svg('title', {}, title));
  const left = 90;
  const right = WIDTH - 90;
  const y = (k) => 4 + ROW * k + ROW / 2;
  const lines = svg('g', { class: 'links' });
  for (let i = 0; i < matrix.rows; i++)
    for (let j = 0; j < matrix.cols; j++) {
      const w = matrix.data[i * matrix.cols + j];
      if (w < 0.02) continue;
      lines.append(svg('line', { x1: left, y1: y(i), x2: right, y2: y(j), 'stroke-opacity': w.toFixed(3), 'stroke-width': (1 + 2 * w).toFixed(2) }));
    }
  root.append(lines);
  rowLabels.slice(0, matrix.rows).forEach((text, i) => root.append(svg('text', { x: left - 6, y: y(i) + 4, 'text-anchor': 'end' }, text)));
  colLabels.slice(0, matrix.cols).forEach((text, j) => root.append(svg('text', { x: right + 6, y: y(j) + 4, 'text-anchor': 'start' }, text)));
  return root;
}
