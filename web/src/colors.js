// Colour-blind-safe scales: viridis for values ≥ 0 (weights), purple–orange
// (PuOr) for signed values, centred on 0. Cell text is black or white,
// whichever contrasts more (always ≥ 4.5:1, WCAG AA).
const VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];
const PUOR = ['#2d004b', '#542788', '#8073ac', '#b2abd2', '#d8daeb', '#f7f7f7', '#fee0b6', '#fdb863', '#e08214', '#b35806', '#7f3b08'];

const hex = (h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16));

function interpolate(stops, t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x));
  const a = hex(stops[k]);
  const b = hex(stops[k + 1]);
  const f = x - k;
  return a.map((v, c) => Math.round(v + (b[c] - v) * f));
}

const toCss = ([r, g, b]) => `rgb(${r} ${g} ${b})`;

function luminance([r, g, b]) {
  const lin = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The text colour with the better contrast on background `rgb`. */
function textOn(rgb) {
  const L = luminance(rgb);
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? '#000' : '#fff';
}

// A range several figures share, carried by a matrix's data (onScale) to scaleFor: the heatmap
// (web/src/heatmap/cells.js) and the figure exports call scaleFor(data, isMasked) and pass no range.
const RANGE = Symbol('attention-lab shared range');

/**
 * The range { min, max } of the finite values of several matrices together (a cell ≤ −1e30, the
 * library's stand-in for a masked −∞, is skipped; so are the cells a `masks[i]` marks 0), for
 * figures of one quantity drawn side by side on one colour scale.
 */
export function sharedRange(matrices, masks = []) {
  let min = Infinity;
  let max = -Infinity;
  matrices.forEach(({ data }, i) => {
    const mask = masks[i];
    for (let k = 0; k < data.length; k++) {
      const v = data[k];
      if ((mask && mask[k] === 0) || !Number.isFinite(v) || v <= -1e30) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  });
  return min === Infinity ? { min: 0, max: 0 } : { min, max };
}

/** `matrix` (copied) to be drawn on the scale of `range` (sharedRange) with its neighbours. */
export function onScale(matrix, range) {
  const data = Float32Array.from(matrix.data);
  data[RANGE] = range;
  return { rows: matrix.rows, cols: matrix.cols, data };
}

/** Each of `matrices` on the one scale of them all (sharedRange; `masks` as there). */
export function onOneScale(matrices, masks) {
  const range = sharedRange(matrices, masks);
  return matrices.map((m) => onScale(m, range));
}

/**
 * As onOneScale, but `matrices` themselves are marked, not copied: for matrices the caller owns and
 * never changes (the reader's sixteen 128 × 128 maps: copying them cost 4 ms of a keystroke).
 */
export function markOneScale(matrices, masks) {
  const range = sharedRange(matrices, masks);
  for (const m of matrices) m.data[RANGE] = range;
  return matrices;
}

/**
 * A scale for the finite values of `data` (masked entries are skipped), widened to `range` when
 * one is given or carried (onScale): figures given the same range get the same scale and legend.
 * Returns { kind, min, max, color(v) → {bg, fg} } for cells and the legend (its bar: the kind's
 * STOPS as a gradient in styles.js).
 */
export function scaleFor(data, isMasked = () => false, range = data[RANGE]) {
  let min = range ? range.min : Infinity;
  let max = range ? range.max : -Infinity;
  for (let k = 0; k < data.length; k++) {
    if (isMasked(k)) continue;
    const v = data[k];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min === Infinity) min = max = 0;
  if (min >= 0) {
    const hi = max > 0 ? max : 1;
    const at = (v) => interpolate(VIRIDIS, v / hi);
    return { kind: 'sequential', min: 0, max: hi, color: (v) => paint(at(v)) };
  }
  const m = Math.max(Math.abs(min), Math.abs(max)) || 1;
  const at = (v) => interpolate(PUOR, (v / m + 1) / 2);
  return { kind: 'diverging', min: -m, max: m, color: (v) => paint(at(v)) };
}

const paint = (rgb) => ({ bg: toCss(rgb), fg: textOn(rgb), rgb });
export const STOPS = { VIRIDIS, PUOR };

/** A scale's colours quantised to 256 levels (level q shows q/255 of the range), for the canvas. */
export const LEVELS = {
  sequential: Array.from({ length: 256 }, (_, q) => paint(interpolate(VIRIDIS, q / 255))),
  diverging: Array.from({ length: 256 }, (_, q) => paint(interpolate(PUOR, q / 255))),
};

/**
 * The colour scheme an element is drawn in ('light' or 'dark'), from its computed `color-scheme`
 * (what light-dark() follows): the OS preference when the value lists it (`light dark`), else the
 * first scheme listed, and light for `normal` (a page that declares no scheme).
 */
export function usedScheme(colorScheme, prefersDark) {
  const listed = String(colorScheme ?? '').split(/\s+/).filter((w) => w === 'light' || w === 'dark');
  const preferred = prefersDark ? 'dark' : 'light';
  return listed.includes(preferred) ? preferred : (listed[0] ?? 'light');
}
