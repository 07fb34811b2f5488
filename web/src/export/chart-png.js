// A line chart (an SVG from web/src/chart.js) as a PNG blob: the SVG serialised with its colours
// written in (the page's stylesheet does not travel with it), a title above it and a legend below,
// drawn on a white canvas at pngScale().
import { pngScale } from './figure-png.js';

const FONT = '13px system-ui, sans-serif';

/** The chart's SVG text, standalone: grid lines, axes and labels given fixed colours. */
export function standaloneSvg(chart) {
  const copy = chart.cloneNode(true);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.removeAttribute('style');
  for (const line of copy.querySelectorAll('line.grid-line')) line.setAttribute('stroke', '#ddd');
  for (const line of copy.querySelectorAll('line.axis')) line.setAttribute('stroke', '#444');
  for (const text of copy.querySelectorAll('text')) {
    text.setAttribute('fill', '#222');
    text.setAttribute('font-family', 'system-ui, sans-serif');
    text.setAttribute('font-size', '11');
  }
  return new XMLSerializer().serializeToString(copy);
}

const loadImage = (url) =>
  new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('chartPng: the chart could not be drawn as an image'));
    img.src = url;
  });

/**
 * `chart` (lineChart's SVG) with `title` above and `legend` ([{ label, color, dash }]: a line sample
 * and its label each) below, as a PNG blob.
 */
export async function chartPng(chart, title, legend = []) {
  const width = Number(chart.getAttribute('width'));
  const height = Number(chart.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([standaloneSvg(chart)], { type: 'image/svg+xml' }));
  try {
    const img = await loadImage(url);
    const top = 24;
    const full = top + height + 20 * legend.length + 8;
    const scale = pngScale();
    const canvas = Object.assign(document.createElement('canvas'), { width: width * scale, height: full * scale });
    const g = canvas.getContext('2d');
    g.scale(scale, scale);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, width, full);
    g.fillStyle = '#222';
    g.font = `600 ${FONT}`;
    g.fillText(title, 8, 16);
    g.drawImage(img, 0, top, width, height);
    drawLegend(g, legend, top + height + 14);
    return await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

function drawLegend(g, legend, y0) {
  g.font = FONT;
  legend.forEach(({ label, color, dash }, k) => {
    const y = y0 + 20 * k;
    g.strokeStyle = color;
    g.lineWidth = 2;
    g.setLineDash(dash ? dash.split(/[ ,]+/).map(Number) : []);
    g.beginPath();
    g.moveTo(48, y - 4);
    g.lineTo(76, y - 4);
    g.stroke();
    g.fillStyle = '#222';
    g.fillText(label, 84, y);
  });
  g.setLineDash([]);
}
