// The hatching of a masked cell (a score set to −∞ before the softmax), one look for the heatmap on
// the page and for its exported figures (PNG from the same tile, SVG as the same pattern).

/** The stripe and background colours of the hatching. */
export const HATCH = { line: '#9aa0a8', fill: '#d9dce0' };

/** A blank canvas of w×h pixels: an OffscreenCanvas where the engine has one. */
export function blankCanvas(w, h) {
  if (typeof OffscreenCanvas === 'function') return new OffscreenCanvas(Math.max(1, w), Math.max(1, h));
  const c = document.createElement('canvas');
  c.width = Math.max(1, w);
  c.height = Math.max(1, h);
  return c;
}

/** A repeating 6×6 pattern of diagonal stripes for `context` to fill masked cells with. */
export function hatchPattern(context) {
  const tile = blankCanvas(6, 6);
  const t = tile.getContext('2d');
  t.fillStyle = HATCH.fill;
  t.fillRect(0, 0, 6, 6);
  t.strokeStyle = HATCH.line;
  t.lineWidth = 2.2;
  for (const o of [-6, 0, 6]) {
    t.beginPath();
    t.moveTo(o, 6);
    t.lineTo(o + 6, 0);
    t.stroke();
  }
  return context.createPattern(tile, 'repeat');
}
