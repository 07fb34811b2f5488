// A matrix drawn as a heatmap that is also a real data table: row and column
// headers for screen readers, one focusable cell at a time (arrow keys move),
// the exact float32 value on hover or focus, a legend, and exports.
import { scaleFor } from './colors.js';
import { download, heatmapPng, heatmapSvg, matrixCsv, matrixJson } from './export.js';
import { exact, isMaskedValue, short } from './format.js';
import { texMatrix } from './tex.js';
import { el } from './dom.js';

const UNWRITTEN = 1e300;
const LEVEL_CLASS = Array.from({ length: 256 }, (_, q) => `c${q}`);


/**
 * @param {object} o
 * @param {(key: string, vars?: object) => string} o.t  translator
 * @param {string} o.name      matrix name shown in captions and file names (plain text)
 * @param {{rows:number, cols:number, data:Float32Array}} o.matrix
 * @param {string[]} o.rowLabels / o.colLabels   header texts (user tokens: set as text)
 * @param {Uint8Array} [o.mask] 1 = visible; 0 cells are drawn as masked
 * @param {string} [o.maskedText] text in masked cells (default −∞; '0' for weights)
 * @param {boolean} [o.compact] hide the numbers inside cells
 * @param {string} [o.tex] formula to export as TeX with the numbers
 * @param {string} [o.file] base file name for downloads
 * @param {(i:number|null, j:number|null) => void} [o.onCell]
 * @param {Map<string, object>} [o.pool]  kept between renders by the caller: bodies to reuse
 * @param {string} [o.slot]   this heatmap's name in the pool (one heatmap per slot per render)
 * @param {boolean} [o.defer]  accepted for compatibility: every kept heatmap off screen is deferred
 *
 * A new figure, and a kept one (pool and slot) near the viewport, has its cells' colours (and
 * texts, when it is not compact) drawn before this returns; the rest (a compact figure's cell
 * labels, every data-value) comes when the page is next idle, after the change's frame (see
 * schedule). A kept one off screen gets all of it then (or as soon as it comes near). A figure
 * is aria-busy while its labels wait; `whenFilled` tells when nothing waits. Figures off screen
 * cost no style, layout or paint until they come near the viewport (`content-visibility: auto` in
 * styles.js; a size estimate set here stands in for them until then). Exports always read this render's data.
 */
export function createHeatmap(o) {
  const { t, matrix, name } = o;
  const { rows, cols, data } = matrix;
  const isMasked = o.mask ? (k) => o.mask[k] === 0 : (k) => isMaskedValue(data[k]);
  const scale = scaleFor(data, isMasked);
  const compact = o.compact ?? cols > 10;
  const rowLabels = o.rowLabels ?? Array.from({ length: rows }, (_, i) => String(i));
  const colLabels = o.colLabels ?? Array.from({ length: cols }, (_, j) => String(j));
  const file = (o.file ?? name).replace(/[^\w.-]+/g, '_');

  const figureClass = `heatmap ${scale.kind === 'sequential' ? 'seq' : 'div'}${compact ? ' compact' : ''}`;
  const tableLabel = t('heatmap.table', { name, rows, cols });
  const colKey = colLabels.join('\u0000');
  const makeHead = () => {
    const head = el('tr', {}, el('td', { class: 'corner' }));
    colLabels.forEach((label) => head.append(el('th', { scope: 'col', text: label })));
    return el('thead', {}, head);
  };

  // The cells are the costly part (32×64 of them, and every insertion or removal of a subtree
  // visits all its nodes). With a `pool` (a Map the caller keeps between renders) and a `slot`
  // name, a figure of the same shape and row labels is kept where it is: its light parts are
  // replaced and only the cells whose text, value or colour changed are rewritten. Otherwise the
  // body is a copy of an empty one of the same shape, drawn cell by cell (header texts, user
  // tokens, are set as text).
  const maskedText = o.maskedText ?? '−∞';
  const maskedLabel = `${maskedText}, ${t('heatmap.masked')}`;
  // Colours are quantised to 256 levels, each a class whose colours the shared stylesheet
  // holds (see levelRules in colors.js): no per-cell style writes, nothing inline.
  const span = scale.max - scale.min || 1;
  const level = (v) => Math.min(255, Math.max(0, Math.round(((v - scale.min) / span) * 255)));
  // A kept figure is reused for the same shape; new row labels (a new sentence) only rewrite the row headers.
  const shapeKey = `${rows}×${cols}${compact ? ' compact' : ''}`;
  const rowKey = rowLabels.join('\u0000');
  let kept = o.pool && o.slot ? o.pool.get(o.slot) : undefined;
  if (kept && kept.shapeKey !== shapeKey) kept = undefined;
  const n = rows * cols;
  let anyMasked = false;
  for (let k = 0; k < n && !anyMasked; k++) anyMasked = isMasked(k);
  // Per cell, as its DOM shows it: the colour level (-1 masked, -2 never), the value its label
  // was made from, whether that cell was masked then (2: never labelled), the label, and the
  // value in data-value (UNWRITTEN: never, a number no float32 equals).
  const lev = kept?.lev ?? new Int16Array(n).fill(-2);
  const num = kept?.num ?? new Float64Array(n);
  const hid = kept?.hid ?? new Uint8Array(n).fill(2);
  const txt = kept?.txt ?? new Array(n);
  const dv = kept?.dv ?? new Float64Array(n).fill(UNWRITTEN);
  // Colour: one class per cell; untouched cells cost a compare. A highlighted cell (see
  // highlight) keeps its mark.
  const paint = (s) => {
    for (let k = 0; k < n; k++) {
      const q = isMasked(k) ? -1 : level(data[k]);
      if (lev[k] === q) continue;
      const td = s.cells[k];
      td.className = (q === -1 ? 'masked' : LEVEL_CLASS[q]) + (s.lit.size && s.lit.has(td) ? ' hl' : '');
      lev[k] = q;
    }
  };
  // Label: the number in the cell, or, in a compact figure (whose cells are too small to show
  // it), the cell's aria-label; masked cells say so. A label is not seen in a compact figure, and
  // a changed text costs the table's layout: there it comes with data-value, after the frame.
  const label = (s) => {
    // A masked cell's label (language, or −∞ against 0) may change while its value does not.
    const relabel = s.cellsLabel !== maskedLabel;
    for (let k = 0; k < n; k++) {
      const v = data[k];
      const masked = isMasked(k) ? 1 : 0;
      if (hid[k] === masked && Object.is(num[k], v) && !(masked && relabel)) continue;
      const td = s.cells[k];
      const text = masked ? maskedText : short(v);
      if (compact) td.setAttribute('aria-label', masked ? maskedLabel : text);
      else {
        if (txt[k] !== text) td.firstChild.data = text;
        if (masked) td.setAttribute('aria-label', maskedLabel);
        else if (hid[k] === 1) td.removeAttribute('aria-label');
      }
      num[k] = v;
      hid[k] = masked;
      txt[k] = text;
    }
    s.cellsLabel = maskedLabel;
  };
  const draw = (s) => {
    paint(s);
    label(s);
  };
  // data-value (the exact number, for scripts and tests; nothing shows it): written when the page is next idle.
  const writeValues = (cellsToWrite) => {
    for (let k = 0; k < n; k++) {
      const v = data[k];
      if (Object.is(dv[k], v)) continue;
      cellsToWrite[k].setAttribute('data-value', isMaskedValue(v) ? '-Infinity' : String(v));
      dv[k] = v;
    }
  };

  // The light parts (caption, legend, readout, export buttons) of a kept figure stay too while
  // their texts do; the export buttons read this render's data from `exp`.
  const exp = kept?.exp ?? {};
  Object.assign(exp, { matrix, rowLabels, colLabels, isMasked, tex: o.tex, file });
  const idle = t('heatmap.readoutIdle');
  const makeCaption = () => {
    const caption = el('figcaption', { part: 'heatmap-caption' });
    caption.append(el('span', { class: 'name', text: name }), el('span', { class: 'shape', text: ` ${rows}×${cols}` }));
    return caption;
  };
  const legendKey = [short(scale.min), short(scale.max), scale.gradient, anyMasked, t('heatmap.legend'), t('heatmap.masked')].join('\u0000');
  const makeLegend = () => {
    const legend = el('div', { class: 'legend', part: 'legend', role: 'img', 'aria-label': `${t('heatmap.legend')}: ${short(scale.min)} … ${short(scale.max)}` });
    legend.append(el('span', { text: short(scale.min) }), el('span', { class: 'bar', style: `background: ${scale.gradient}` }), el('span', { text: short(scale.max) }));
    if (anyMasked) legend.append(el('span', { class: 'masked-key', 'aria-hidden': 'true' }), el('span', { text: t('heatmap.masked') }));
    return legend;
  };
  const barKey = o.exportable === false ? '' : [name, Boolean(o.tex), t('heatmap.export'), t('export.png'), t('export.label', { name, fmt: '' })].join('\u0000');
  const makeBar = () => {
    if (!barKey) return null;
    const bar = el('div', { class: 'export', role: 'group', 'aria-label': `${t('heatmap.export')}: ${name}`, part: 'export' });
    const button = (fmt, action) =>
      bar.append(el('button', { type: 'button', part: 'button export-button', 'aria-label': t('export.label', { name, fmt: fmt.toUpperCase() }), text: t(`export.${fmt}`), onclick: action }));
    bar.append(el('span', { class: 'export-label', 'aria-hidden': 'true', text: `${t('heatmap.export')}:` }));
    button('png', async () => download(`${exp.file}.png`, await heatmapPng(exp.matrix, exp.rowLabels, exp.colLabels, exp.isMasked)));
    button('svg', () => download(`${exp.file}.svg`, new Blob([heatmapSvg(exp.matrix, exp.rowLabels, exp.colLabels, exp.isMasked)], { type: 'image/svg+xml' })));
    button('csv', () => download(`${exp.file}.csv`, new Blob([matrixCsv(exp.matrix, exp.rowLabels, exp.colLabels)], { type: 'text/csv' })));
    button('json', () => download(`${exp.file}.json`, new Blob([matrixJson(exp.matrix, exp.rowLabels, exp.colLabels)], { type: 'application/json' })));
    if (o.tex) button('tex', () => download(`${exp.file}.tex`, new Blob([`${exp.tex} = ${texMatrix(exp.matrix)}\n`], { type: 'application/x-tex' })));
    return bar;
  };
  // What the (kept) table's listeners read: this render's data, labels and callbacks.
  const view = {
    show(i, j) {
      const k = i * cols + j;
      state.readout.textContent = t('heatmap.readout', { name, i, j, ri: rowLabels[i], cj: colLabels[j], v: isMasked(k) ? `${exact(data[k])} (${t('heatmap.masked')})` : exact(data[k]) });
      o.onCell?.(i, j);
    },
    leave: () => o.onCell?.(null, null),
  };

  if (kept) {
    const entry = kept;
    // On screen or near it (or not known yet), the cells are drawn now and their data-value
    // written when the page is next idle; off screen, both wait for that (or until it comes near).
    // A figure out of the document (e.g. a kept body the caller is about to place again) may be
    // placed on screen in this change: drawn now.
    const off = entry.near === false && entry.figure.isConnected;
    if (!off) paint(entry);
    if (!off && !compact) label(entry);
    entry.pendingDraw = off ? draw : compact ? label : null;
    entry.pendingValues = writeValues;
    schedule(entry);
    // The roving tab stop (and focus) stay on the same cell.
    for (const td of entry.lit) td.classList.remove('hl');
    entry.lit.clear();
    // The table's body stays where it is; light parts are replaced only when their texts change.
    const f = entry.figure;
    if (f.className !== figureClass) f.className = figureClass;
    if (entry.tableLabel !== tableLabel) {
      entry.caption.replaceWith((entry.caption = makeCaption()));
      entry.table.setAttribute('aria-label', tableLabel);
      entry.tableCaption.textContent = tableLabel;
    }
    if (entry.colKey !== colKey) entry.thead.replaceWith((entry.thead = makeHead()));
    if (entry.rowKey !== rowKey) entry.rowHeads.forEach((th, i) => th.textContent !== rowLabels[i] && (th.textContent = rowLabels[i]));
    if (entry.legendKey !== legendKey) entry.legend.replaceWith((entry.legend = makeLegend()));
    if (entry.readout.textContent !== idle) entry.readout.textContent = idle;
    if (entry.barKey !== barKey) {
      entry.bar?.remove();
      entry.bar = makeBar();
      if (entry.bar) f.append(entry.bar);
    }
    Object.assign(entry, { tableLabel, colKey, rowKey, legendKey, barKey, view });
  } else {
    const figure = el('figure', { class: figureClass, part: 'heatmap' });
    const tableCaption = el('caption', { class: 'sr-only', text: tableLabel });
    const thead = makeHead();
    const table = el('table', { role: 'grid', 'aria-label': tableLabel, part: 'heatmap-table' }, tableCaption, thead);
    // A copy of an empty body of this shape (copying nodes is about twice as fast as parsing
    // them), then every cell drawn as a kept one is; data-value comes later (see schedule).
    const body = emptyBody(rows, cols).cloneNode(true);
    const rowHeads = Array.from(body.rows, (tr) => tr.cells[0]);
    rowHeads.forEach((th, i) => (th.textContent = rowLabels[i]));
    const cells = Array.from(body.getElementsByTagName('td'));
    const fresh = { cells, lit: new Set(), cellsLabel: undefined };
    paint(fresh);
    if (!compact) label(fresh);
    table.append(body);
    if (cells[0]) cells[0].tabIndex = 0;
    const caption = makeCaption();
    const legend = makeLegend();
    const readout = el('p', { class: 'readout', 'aria-live': 'polite', text: idle });
    const bar = makeBar();
    figure.append(caption, el('div', { class: 'scroll', part: 'heatmap-scroll' }, table), legend, readout);
    if (bar) figure.append(bar);
    // Until it is first drawn, an off-screen figure takes this size (then the size it last had).
    figure.style.containIntrinsicSize = `auto ${estimateWidth(rows, cols, compact)}rem auto ${estimateHeight(rows, compact)}rem`;
    kept = { shapeKey, colKey, rowKey, rowHeads, tableLabel, legendKey, barKey, exp, cellsLabel: fresh.cellsLabel, figure, table, tableCaption, body, cells, num, lev, hid, txt, dv, caption, thead, legend, readout, bar, view, lit: new Set(), current: 0, near: undefined, pendingDraw: compact ? label : null, pendingValues: writeValues };
    listen(kept, rows, cols);
    schedule(kept);
    if (o.pool && o.slot) {
      const before = o.pool.get(o.slot);
      if (before) forget(before);
      o.pool.set(o.slot, kept);
      watch(kept);
    }
  }
  const state = kept;
  const { cells } = state;

  /** Mark rows, columns or single cells (e.g. the q_i and k_j behind score[i][j]). */
  function highlight({ rows: hr = [], cols: hc = [], cells: hcells = [] } = {}) {
    const on = new Set();
    for (const i of hr) if (i >= 0 && i < rows) for (let j = 0; j < cols; j++) on.add(cells[i * cols + j]);
    for (const j of hc) if (j >= 0 && j < cols) for (let i = 0; i < rows; i++) on.add(cells[i * cols + j]);
    for (const [i, j] of hcells) if (i >= 0 && i < rows && j >= 0 && j < cols) on.add(cells[i * cols + j]);
    // Only the cells whose state changes are touched.
    for (const td of state.lit) if (!on.has(td)) td.classList.remove('hl');
    for (const td of on) if (!state.lit.has(td)) td.classList.add('hl');
    state.lit = on;
  }
  return { el: state.figure, highlight, cells };
}

// Heatmaps whose cells wait for the follow-up: labels, data-value, and off screen all of it
// (their figure and table are aria-busy until then). It runs when the page is next idle, after
// the change's frame is drawn (or within 250 ms), a few heatmaps per idle period; a later
// change before it replaces what waits (only the latest data is written), and a heatmap that
// comes near the viewport first is drawn at once. Without requestIdleCallback: a task.
const waiting = new Set();
const whenDone = [];
let posted = false;
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
const queue = [];
if (channel) channel.port1.onmessage = () => queue.shift()?.({ timeRemaining: () => 50, didTimeout: false });
const idle =
  typeof requestIdleCallback === 'function'
    ? (f) => requestIdleCallback(f, { timeout: 250 })
    : (f) => (channel ? (queue.push(f), channel.port2.postMessage(0)) : setTimeout(() => f({ timeRemaining: () => 50, didTimeout: false }), 0));
const post = () => {
  if (posted) return;
  posted = true;
  idle(flush);
};
const busy = (s, on) => {
  if (s.busy === on) return;
  s.busy = on;
  for (const node of [s.figure, s.table]) on ? node.setAttribute('aria-busy', 'true') : node.removeAttribute('aria-busy');
};
function schedule(s) {
  busy(s, s.pendingDraw !== null);
  waiting.add(s);
  post();
}
function run(s) {
  waiting.delete(s);
  const { pendingDraw, pendingValues } = s;
  s.pendingDraw = s.pendingValues = null;
  pendingDraw?.(s);
  pendingValues?.(s.cells);
  busy(s, false);
}
function settled() {
  if (waiting.size || retiring.size) return;
  for (const callback of whenDone.splice(0)) callback();
}
function flush(deadline) {
  posted = false;
  let first = true;
  for (const s of [...waiting]) {
    if (!waiting.has(s)) continue;
    if (!first && !deadline.didTimeout && deadline.timeRemaining() < 3) {
      post();
      return;
    }
    first = false;
    run(s);
  }
  settled();
}
// "Near": within one viewport height of the viewport (above or below).
const seen = new WeakMap();
const io =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            const s = seen.get(e.target);
            if (!s) continue;
            s.near = e.isIntersecting;
            if (s.near && s.pendingDraw) run(s);
          }
          settled();
        },
        { rootMargin: '100% 0px' },
      )
    : null;
function watch(s) {
  seen.set(s.figure, s);
  io?.observe(s.figure);
}
function forget(s) {
  io?.unobserve(s.figure);
  waiting.delete(s);
  s.pendingDraw = s.pendingValues = null;
  busy(s, false);
  settled();
}

/** Whether some heatmap's cells wait for the follow-up (or a retired table for its removal). */
export const fillsPending = () => waiting.size > 0 || retiring.size > 0;
/** Call `callback` once no heatmap's cells wait (at once if none do). */
export function whenFilled(callback) {
  whenDone.push(callback);
  settled();
}

// Empty table bodies by shape (rows of a header cell and cells holding one space, to be
// copied): the last few shapes used.
const bodies = new Map();
function emptyBody(rows, cols) {
  const key = `${rows}×${cols}`;
  let body = bodies.get(key);
  if (body) bodies.delete(key);
  else {
    body = document.createElement('tbody');
    const row = `<tr><th scope="row"></th>${Array.from({ length: cols }, (_, j) => `<td data-i="@" data-j="${j}"> </td>`).join('')}</tr>`;
    body.innerHTML = Array.from({ length: rows }, (_, i) => row.replaceAll('@', String(i))).join('');
    if (bodies.size >= 12) bodies.delete(bodies.keys().next().value);
  }
  bodies.set(key, body);
  return body;
}

// Rough sizes (rem) of a figure from its shape, per the cell sizes in styles.js.
const estimateWidth = (rows, cols, compact) => Math.min(80, 4 + cols * (compact ? 1.12 : 2.7)).toFixed(1);
const estimateHeight = (rows, compact) => (6 + Math.min(34, 1.5 + rows * (compact ? 1.12 : 1.9))).toFixed(1);

/** The table's listeners, installed once per kept figure; they read `state.view` of the latest render. */
function listen(state, rows, cols) {
  const { table, cells } = state;
  // Roving focus: only the current cell is in the tab order; a cell gets tabindex when focused.
  const move = (k) => {
    if (k < 0 || k >= cells.length) return;
    cells[state.current].tabIndex = -1;
    state.current = k;
    cells[k].tabIndex = 0;
    cells[k].focus();
  };
  table.addEventListener('pointerover', (e) => {
    const td = e.target.closest?.('td[data-i]');
    if (td) state.view.show(Number(td.dataset.i), Number(td.dataset.j));
  });
  table.addEventListener('pointerleave', () => state.view.leave());
  table.addEventListener('focusin', (e) => {
    const td = e.target.closest?.('td[data-i]');
    if (!td) return;
    state.current = cells.indexOf(td);
    state.view.show(Number(td.dataset.i), Number(td.dataset.j));
  });
  table.addEventListener('keydown', (e) => {
    const i = Math.floor(state.current / cols);
    const j = state.current % cols;
    const moves = { ArrowRight: j < cols - 1 ? 1 : 0, ArrowLeft: j > 0 ? -1 : 0, ArrowDown: i < rows - 1 ? cols : 0, ArrowUp: i > 0 ? -cols : 0, Home: -j, End: cols - 1 - j };
    if (e.key in moves) {
      e.preventDefault();
      e.stopPropagation();
      move(state.current + moves[e.key]);
    }
  });
}

/**
 * Make `children` the children of `parent`, in order, leaving in place those already there (a
 * kept heatmap is neither removed nor re-inserted, which would visit each of its cells). A child
 * no longer wanted that holds a table is retired: hidden and inert at once, taken out of the
 * document when the page is next idle (taking 2,048 cells out costs some 6 ms, more than drawing
 * them), and wanted again before then, shown where it is.
 */
export function place(parent, children) {
  const wanted = new Set(children);
  for (const node of [...parent.childNodes]) {
    if (wanted.has(node)) unretire(node);
    else if (!retiring.has(node)) holdsTable(node) ? retire(node) : node.remove();
  }
  let at = parent.firstChild;
  const skip = () => {
    while (at && retiring.has(at)) at = at.nextSibling;
  };
  for (const node of children) {
    skip();
    if (node === at) at = at.nextSibling;
    else {
      unretire(node);
      parent.insertBefore(node, at);
    }
  }
}

// Retired nodes wait here until removed (one or more per idle period); until then the heatmaps'
// `whenFilled` waits for them too, so a ready element holds only what it shows.
const retiring = new Map();
let sweeping = false;
const holdsTable = (node) => node.nodeType === 1 && (node.tagName === 'TABLE' || node.getElementsByTagName('table').length > 0);
function retire(node) {
  retiring.set(node, [node.hidden, node.inert]);
  node.hidden = true;
  node.inert = true;
  if (sweeping) return;
  sweeping = true;
  const sweep = (deadline) => {
    for (const [node, [hidden, inert]] of retiring) {
      if (deadline.timeRemaining() < 4 && !deadline.didTimeout) break;
      retiring.delete(node);
      node.remove();
      Object.assign(node, { hidden, inert });
      if (deadline.didTimeout) break;
    }
    if (retiring.size) idle(sweep);
    else {
      sweeping = false;
      settled();
    }
  };
  idle(sweep);
}
function unretire(node) {
  const was = retiring.get(node);
  if (!was) return;
  retiring.delete(node);
  [node.hidden, node.inert] = was;
  settled();
}
