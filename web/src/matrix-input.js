// Matrices an author gives (nested rows, a Matrix, text typed by hand), copied and checked.
const isRow = (r) => Array.isArray(r) || ArrayBuffer.isView(r);
// Entries of plain arrays must be numbers: null, strings or booleans would become 0, 1 or NaN in silence.
const allNumbers = (a) => ArrayBuffer.isView(a) || a.every((v) => typeof v === 'number');

/**
 * A copy of a Matrix or of nested rows (arrays or typed arrays) as { rows, cols, data: Float32Array };
 * anything else (ragged rows, a flat array, a wrong data length, an entry that is not a number) gives null.
 */
export function copyMatrixOrNull(value) {
  if (!value) return null;
  if (Array.isArray(value)) {
    const rows = value.length;
    if (!value.every(isRow)) return null;
    const cols = rows ? value[0].length : 0;
    if (!value.every((r) => r.length === cols && allNumbers(r))) return null;
    const data = new Float32Array(rows * cols);
    value.forEach((r, i) => data.set(r, i * cols));
    return { rows, cols, data };
  }
  if (Number.isInteger(value.rows) && Number.isInteger(value.cols) && isRow(value.data) && value.data.length === value.rows * value.cols && allNumbers(value.data))
    return { rows: value.rows, cols: value.cols, data: Float32Array.from(value.data) };
  return null;
}

/** The rows of a matrix typed by hand, each a list of its entries as typed: one row per line, entries separated by spaces, commas or semicolons. */
export function typedRows(text) {
  return String(text)
    .trim()
    .split(/\n+/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.split(/[\s,;]+/).filter(Boolean));
}

/** Parse a matrix typed by hand: one row per line, numbers separated by spaces or commas. */
export function parseMatrixText(text) {
  const rows = typedRows(text).map((row) => row.map(Number));
  if (rows.length === 0) return null;
  if (rows.some((r) => r.some((v) => !Number.isFinite(v)))) return null;
  return copyMatrixOrNull(rows);
}
