// The cells of one render of a heatmap: its matrix, which cells are masked, the colour scale and
// each cell's colour level (what the canvas draws and the table describes).
import { scaleFor } from '../colors.js';
import { exact, isMaskedValue, short } from '../format.js';

/**
 * @param {{rows:number, cols:number, data:Float32Array}} matrix
 * @param {Uint8Array} [mask] 1 = visible; without it, the masked step's stand-in for −∞ is masked
 * @param {string} maskedText what a masked cell reads ('−∞', or '0' for weights)
 */
export function createCells(matrix, mask, maskedText) {
  const { rows, cols, data } = matrix;
  const isMasked = mask ? (k) => mask[k] === 0 : (k) => isMaskedValue(data[k]);
  const scale = scaleFor(data, isMasked);
  const n = rows * cols;
  // Per cell: its colour level 0…255, or -1 when masked.
  const level = new Int16Array(n);
  const span = scale.max - scale.min || 1;
  let anyMasked = false;
  for (let k = 0; k < n; k++) {
    if (isMasked(k)) {
      level[k] = -1;
      anyMasked = true;
    } else level[k] = Math.min(255, Math.max(0, Math.round(((data[k] - scale.min) / span) * 255)));
  }
  return {
    rows,
    cols,
    data,
    isMasked,
    scale,
    level,
    anyMasked,
    maskedText,
    /** The number a cell shows (two decimals), or the masked text. */
    text: (k) => (level[k] === -1 ? maskedText : short(data[k])),
    /** The exact float32 value of a cell, for the readout. */
    exact: (k) => exact(data[k]),
    /** data-value: the exact number for scripts and tests. */
    value: (k) => (isMaskedValue(data[k]) ? '-Infinity' : String(data[k])),
  };
}
