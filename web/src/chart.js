// Small SVG charts (lines and points) for the scaling and pooling panels.
// Okabe-Ito colours plus dash patterns, so series differ without colour.
const NS = 'http://www.w3.org/2000/svg';
export const PALETTE = { blue: '#0072B2', vermillion: '#D55E00', green: '#009E73', orange: '#E69F00', purple: '#CC79A7', sky: '#56B4E9' };

export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  // style through the CSSOM: a Content-Security-Policy without 'unsafe-inline' blocks style attributes.
  for (const [k, v] of Object.entries(attrs)) if (k === 'style') node.style.cssText = String(v);
  else node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

const nice = (v) => (Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : Number(v.toPrecision(2)).toString());

/** A chart's scales and ticks for `o`, and `axes`: a key of everything drawn but its series. */
function geometry(o) {
  const W = o.width ?? 420;
  const H = o.height ?? 240;
  const pad = { l: 48, r: 20, t: 12, b: 34 }; // r: room for half of the last x label
  const fx = o.xLog ? Math.log2 : (v) => v;
  const fy = o.yLog ? Math.log10 : (v) => v;
  const xs = o.x.map(fx);
  const ys = o.series.flatMap((s) => s.y.filter((v) => Number.isFinite(fy(v))).map(fy));
  const [x0, x1] = o.xRange ? o.xRange.map(fx) : [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = o.yRange ? o.yRange.map(fy) : [Math.min(...ys), Math.max(...ys)];
  const sx = (v) => pad.l + ((fx(v) - x0) / (x1 - x0 || 1)) * (W - pad.l - pad.r);
  const sy = (v) => H - pad.b - ((fy(v) - y0) / (y1 - y0 || 1)) * (H - pad.t - pad.b);
  const yTicks = o.yTicks ?? Array.from({ length: 5 }, (_, k) => (o.yLog ? 10 ** (y0 + ((y1 - y0) * k) / 4) : y0 + ((y1 - y0) * k) / 4));
  const xTicks = o.xTicks ?? o.x;
  const axes = JSON.stringify([W, H, o.xLog, o.yLog, x0, x1, y0, y1, xTicks, yTicks, o.xLabel]);
  return { W, H, pad, x0, x1, sx, sy, xTicks, yTicks, axes };
}

/** The axes a chart was drawn with (geometry's key) and its series' marks, by chart. */
const drawn = new WeakMap();

/**
 * @param {object} o
 * @param {number[]} o.x           shared x values
 * @param {{label:string, y:number[], color:string, dash?:string, points?:boolean, r?:number[]}[]} o.series
 * @param {boolean} [o.xLog] [o.yLog]  log2 / log10 axes
 * @param {[number, number]} [o.yRange]
 * @param {string} o.title         accessible name
 */
export function lineChart(o) {
  const g = geometry(o);
  const { W, H, pad, x0, x1, sx, sy } = g;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, style: `max-width: ${W}px`, role: 'img', 'aria-label': o.title });
  root.append(svg('title', {}, o.title));
  // The drawing (lines and numbers) has no words: lang="zxx" keeps a language switch from laying
  // its text out again (the axis label, which may be words, stays in the page's language).
  const drawing = svg('g', { lang: 'zxx' });
  root.append(drawing);
  for (const v of g.yTicks) {
    drawing.append(svg('line', { x1: pad.l, x2: W - pad.r, y1: sy(v), y2: sy(v), class: 'grid-line' }));
    drawing.append(svg('text', { x: pad.l - 4, y: sy(v) + 4, 'text-anchor': 'end' }, nice(v)));
  }
  for (const v of g.xTicks) drawing.append(svg('text', { x: sx(v), y: H - pad.b + 14, 'text-anchor': 'middle' }, nice(v)));
  drawing.append(svg('line', { x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b, class: 'axis' }));
  drawing.append(svg('line', { x1: pad.l, x2: pad.l, y1: pad.t, y2: H - pad.b, class: 'axis' }));
  if (o.xLabel) root.append(svg('text', { x: (W + pad.l) / 2, y: H - 4, 'text-anchor': 'middle' }, o.xLabel));
  const marks = o.series.map((s) => seriesMark(s, o, g));
  drawing.append(...marks);
  drawn.set(root, { axes: g.axes, marks });
  root.scaleX = sx;
  root.scaleY = sy;
  root.invertX = (px) => {
    const v = x0 + ((px - pad.l) / (W - pad.l - pad.r)) * (x1 - x0);
    return o.xLog ? 2 ** v : v;
  };
  return root;
}

/**
 * Draws `o`'s series again in a chart lineChart made, in place, when `o` asks for the same axes
 * (size, ranges, ticks and label) and as many series: a new sample redraws only its lines, without
 * a new chart to style and lay out; the title follows `o`. False, and nothing changed, when it cannot.
 */
export function redrawSeries(root, o) {
  const g = geometry(o);
  const was = drawn.get(root);
  if (!was || was.axes !== g.axes || was.marks.length !== o.series.length) return false;
  if (root.getAttribute('aria-label') !== o.title) {
    root.setAttribute('aria-label', o.title);
    root.querySelector('title').textContent = o.title;
  }
  was.marks = was.marks.map((mark, k) => {
    const next = seriesMark(o.series[k], o, g);
    mark.replaceWith(next);
    return next;
  });
  return true;
}

/** One series drawn: a path, or a group of points. */
function seriesMark(s, o, { sx, sy }) {
  const xsOf = s.x ?? o.x;
  if (s.points) {
    const g = svg('g', { fill: s.color });
    xsOf.forEach((xv, k) => g.append(svg('circle', { cx: sx(xv), cy: sy(s.y[k]), r: s.r ? s.r[k] : 2.6, ...(s.stroke ? { stroke: s.stroke, 'stroke-width': 1 } : {}) })));
    return g;
  }
  const d = xsOf.map((xv, k) => `${k ? 'L' : 'M'}${sx(xv).toFixed(1)},${sy(s.y[k]).toFixed(1)}`).join('');
  return svg('path', { d, fill: 'none', stroke: s.color, 'stroke-width': s.width ?? 2, ...(s.dash ? { 'stroke-dasharray': s.dash } : {}) });
}

/** A legend line: colour swatch (and dash) plus label, as HTML. */
export function legendItem(label, color, dash) {
  const span = document.createElement('span');
  const sw = document.createElement('span');
  sw.className = 'swatch';
  sw.setAttribute('aria-hidden', 'true');
  sw.style.background = dash ? `repeating-linear-gradient(to right, ${color} 0 5px, transparent 5px 8px)` : color;
  span.append(sw, document.createTextNode(label));
  return span;
}
