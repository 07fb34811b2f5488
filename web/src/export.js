// Downloads: a heatmap as PNG or SVG, a matrix as CSV or JSON, a formula as TeX.
import { scaleFor } from './colors.js';
import { exact, isMaskedValue, short } from './format.js';

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

const CELL = 36;
const LABEL = 80;

function layout(matrix) {
  return { width: LABEL + matrix.cols * CELL + 8, height: 24 + matrix.rows * CELL + 8 };
}

const escapeXml = (s) => String(s).replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The heatmap as a standalone SVG document (labels escaped). */
export function heatmapSvg(matrix, rowLabels, colLabels, isMasked) {
  const scale = scaleFor(matrix.data, isMasked);
  const { width, height } = layout(matrix);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`];
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  colLabels.forEach((label, j) => parts.push(`<text x="${LABEL + j * CELL + CELL / 2}" y="16" text-anchor="middle">${escapeXml(label)}</text>`));
  for (let i = 0; i < matrix.rows; i++) {
    parts.push(`<text x="${LABEL - 6}" y="${24 + i * CELL + CELL / 2 + 4}" text-anchor="end">${escapeXml(rowLabels[i])}</text>`);
    for (let j = 0; j < matrix.cols; j++) {
      const k = i * matrix.cols + j;
      const v = matrix.data[k];
      const x = LABEL + j * CELL;
      const y = 24 + i * CELL;
      const masked = isMasked(k);
      const { bg, fg } = masked ? { bg: '#bbb', fg: '#000' } : scale.color(v);
      parts.push(`<rect x="${x}" y="${y}" width="${CELL - 1}" height="${CELL - 1}" fill="${bg}"><title>${escapeXml(exact(v))}</title></rect>`);
      parts.push(`<text x="${x + CELL / 2}" y="${y + CELL / 2 + 4}" text-anchor="middle" fill="${fg}" font-size="9">${escapeXml(short(v))}</text>`);
    }
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The heatmap drawn on a canvas, as a PNG blob. */
export function heatmapPng(matrix, rowLabels, colLabels, isMasked) {
  const scale = scaleFor(matrix.data, isMasked);
  const { width, height } = layout(matrix);
  const canvas = document.createElement('canvas');
  canvas.width = width * 2;
  canvas.height = height * 2;
  const g = canvas.getContext('2d');
  g.scale(2, 2);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.font = '11px sans-serif';
  g.textAlign = 'center';
  g.fillStyle = '#000';
  colLabels.forEach((label, j) => g.fillText(label, LABEL + j * CELL + CELL / 2, 16));
  for (let i = 0; i < matrix.rows; i++) {
    g.textAlign = 'right';
    g.fillStyle = '#000';
    g.font = '11px sans-serif';
    g.fillText(rowLabels[i], LABEL - 6, 24 + i * CELL + CELL / 2 + 4);
    g.textAlign = 'center';
    g.font = '9px sans-serif';
    for (let j = 0; j < matrix.cols; j++) {
      const k = i * matrix.cols + j;
      const masked = isMasked(k);
      const { bg, fg } = masked ? { bg: '#bbb', fg: '#000' } : scale.color(matrix.data[k]);
      g.fillStyle = bg;
      g.fillRect(LABEL + j * CELL, 24 + i * CELL, CELL - 1, CELL - 1);
      g.fillStyle = fg;
      g.fillText(short(matrix.data[k]), LABEL + j * CELL + CELL / 2, 24 + i * CELL + CELL / 2 + 4);
    }
  }
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
