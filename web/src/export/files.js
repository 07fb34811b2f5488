// Downloads: a file from a blob, a matrix as CSV or JSON.
import { isMaskedValue } from '../format.js';

export function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function matrixCsv(matrix, rowLabels, colLabels) {
  const quote = (s) => `"${String(s).replaceAll('"', '""')}"`;
  const lines = [['', ...colLabels].map(quote).join(',')];
  for (let i = 0; i < matrix.rows; i++) {
    const row = [quote(rowLabels[i])];
    for (let j = 0; j < matrix.cols; j++) {
      const v = matrix.data[i * matrix.cols + j];
      row.push(isMaskedValue(v) ? '-Infinity' : String(v));
    }
    lines.push(row.join(','));
  }
  return `${lines.join('\n')}\n`;
}

export function matrixJson(matrix, rowLabels, colLabels, extra = {}) {
  const rows = [];
  for (let i = 0; i < matrix.rows; i++)
    rows.push(Array.from(matrix.data.subarray(i * matrix.cols, (i + 1) * matrix.cols), (v) => (isMaskedValue(v) ? null : v)));
  return JSON.stringify({ rows: matrix.rows, cols: matrix.cols, rowLabels, colLabels, data: rows, ...extra }, null, 1);
}
