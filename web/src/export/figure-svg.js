// An exported heatmap figure as a standalone SVG document: every text escaped and set as text
// (a reader's tokens may be markup), masked cells hatched with no number, the legend under the cells.
import { FIGURE_FONT, GAP, SIZES } from './figure-layout.js';
import { HATCH } from '../heatmap/hatch.js';
import { figureModel } from './figure.js';

const escapeXml = (s) => String(s).replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = (x) => Number(x.toFixed(2));

function labelSvg(item, attrs) {
  const text = `<text ${attrs}>${escapeXml(item.text)}</text>`;
  // An abbreviated label keeps its full text as the group's tooltip (and in the notes).
  return item.full ? `<g><title>${escapeXml(item.full)}</title>${text}</g>` : text;
}

function titleSvg({ x, y, runs }) {
  const spans = [];
  let shifted = false;
  for (const r of runs) {
    const dy = Boolean(r.sub) === shifted ? '' : ` dy="${r.sub ? 4 : -4}"`;
    shifted = Boolean(r.sub);
    spans.push(`<tspan${dy}${r.sub ? ` font-size="${SIZES.sub}"` : ''}>${escapeXml(r.text)}</tspan>`);
  }
  return `<text x="${x}" y="${y}" font-size="${SIZES.title}" font-weight="600" data-role="title">${spans.join('')}</text>`;
}

function legendSvg({ legend }, stops) {
  const t = (item, role) => `<text x="${n(item.x)}" y="${n(item.y)}" font-size="${SIZES.small}" data-role="${role}">${escapeXml(item.text)}</text>`;
  const { bar } = legend;
  const parts = [t(legend.name, 'legend-name'), t(legend.min, 'legend-min')];
  const gradient = stops.map((c, k) => `<stop offset="${k / (stops.length - 1)}" stop-color="${c}"/>`).join('');
  parts.push(`<defs><linearGradient id="scale">${gradient}</linearGradient></defs>`);
  parts.push(`<rect x="${n(bar.x)}" y="${n(bar.y)}" width="${bar.width}" height="${bar.height}" fill="url(#scale)" data-role="legend-bar"/>`);
  parts.push(t(legend.max, 'legend-max'));
  if (legend.masked) {
    const s = legend.masked.swatch;
    parts.push(`<rect x="${n(s.x)}" y="${n(s.y)}" width="${s.width}" height="${s.height}" fill="url(#masked)" data-role="legend-masked"/>`);
    parts.push(t(legend.masked.label, 'legend-masked-label'));
  }
  return parts.join('');
}

/** The figure as SVG text. `o` as figureModel's; `measure` from the page (a canvas) or a stand-in. */
export function figureSvg(o, measure) {
  const { layout, cells, stops } = figureModel(o, measure);
  const { grid, columns } = layout;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family='${FIGURE_FONT}' font-size="${SIZES.label}">`];
  out.push(`<defs><pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${HATCH.fill}"/><path d="M-6 6L0 0M0 6L6 0M6 6L12 0" stroke="${HATCH.line}" stroke-width="2.2"/></pattern></defs>`);
  out.push(`<rect width="100%" height="100%" fill="#fff"/>`, titleSvg(layout.title));
  for (const it of columns.items) {
    const attrs = columns.rotated ? `transform="translate(${n(it.x + 0.35 * SIZES.label)} ${n(it.y)}) rotate(-90)" data-role="col-label"` : `x="${n(it.x)}" y="${n(it.y)}" text-anchor="middle" data-role="col-label"`;
    out.push(labelSvg(it, attrs));
  }
  for (const it of layout.rowItems) out.push(labelSvg(it, `x="${n(it.x)}" y="${n(it.y)}" text-anchor="end" data-role="row-label"`));
  const side = grid.cell - (grid.cell >= 6 ? GAP : 0);
  for (const c of cells) {
    const x = grid.left + c.j * grid.cell;
    const y = grid.top + c.i * grid.cell;
    const at = `x="${x}" y="${y}" width="${side}" height="${side}" data-i="${c.i}" data-j="${c.j}"`;
    if (c.masked) {
      out.push(`<rect ${at} fill="url(#masked)" data-masked="true"/>`);
      continue;
    }
    out.push(`<rect ${at} fill="${c.bg}"/>`);
    if (grid.numbers) out.push(`<text x="${n(x + side / 2)}" y="${n(y + side / 2 + 0.35 * SIZES.number)}" text-anchor="middle" font-size="${SIZES.number}" fill="${c.fg}" data-role="number">${escapeXml(c.text)}</text>`);
  }
  out.push(legendSvg(layout, stops));
  for (const note of layout.notes) out.push(`<text x="${note.x}" y="${n(note.y)}" font-size="${SIZES.small}" data-role="note">${escapeXml(note.text)}</text>`);
  out.push('</svg>');
  return out.join('');
}
