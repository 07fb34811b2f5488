// A small SVG of one RoPE frequency pair: the pair's two coordinates of q rotated at positions
// 0 … P − 1, from the library, on the circle they all lie on (a rotation keeps the length), the
// positions numbered, a spoke to position 0 and to position 1 showing the angle per position θ_i.
import { PALETTE, svg } from '../../chart.js';

const SIZE = 150;
const R = 56;

/** The chart for pair `i` with its points [[x, y] per position] and θ_i; `title` is its accessible name. */
export function pairChart(points, { i, theta, title }) {
  const radius = Math.hypot(...points[0]) || 1;
  const c = SIZE / 2;
  const at = ([x, y], scale = 1) => [c + (x / radius) * R * scale, c - (y / radius) * R * scale];
  const root = svg('svg', { viewBox: `0 0 ${SIZE} ${SIZE + 18}`, width: SIZE, height: SIZE + 18, role: 'img', 'aria-label': title, 'data-pair': i });
  root.append(svg('title', {}, title));
  root.append(svg('circle', { cx: c, cy: c, r: R, fill: 'none', class: 'axis' }));
  for (const p of [0, 1].filter((q) => q < points.length)) {
    const [x, y] = at(points[p]);
    root.append(svg('line', { x1: c, y1: c, x2: x, y2: y, stroke: p ? PALETTE.vermillion : PALETTE.blue, 'stroke-width': 1.5 }));
  }
  // A position is numbered only where its label would not sit on an earlier one (slow pairs barely move).
  const labelled = [];
  points.forEach((point, p) => {
    const [x, y] = at(point);
    root.append(svg('circle', { cx: x, cy: y, r: 3, fill: p === 0 ? PALETTE.blue : PALETTE.vermillion, 'data-x': point[0], 'data-y': point[1] }));
    const [lx, ly] = at(point, 1.22);
    if (labelled.some(([ax, ay]) => Math.hypot(ax - lx, ay - ly) < 11)) return;
    labelled.push([lx, ly]);
    root.append(svg('text', { x: lx, y: ly + 3, 'text-anchor': 'middle' }, String(p)));
  });
  root.append(svg('text', { x: c, y: SIZE + 14, 'text-anchor': 'middle' }, `i = ${i}, θ = ${Number(theta.toPrecision(3))}`));
  return root;
}
