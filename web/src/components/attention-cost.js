// <attention-cost>: why n² hurts long sequences. The reader's sentence through
// full softmax attention, local (sliding-window) attention, linear attention and
// Linformer, each heatmap from the library with what it cost; a measured
// time-against-n chart (fused full attention vs the variants, in chunks that
// keep the page responsive) with the fitted growth exponent; the bytes of the
// n×n weights; and D2L's CNN / RNN / self-attention comparison with live n, d.
import { AttentionElement } from '../base.js';
import { PALETTE, legendItem, lineChart } from '../chart.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { SIZES, fittedRows, growthExponent, measureAll, projections, sizesUpTo, storedKiB } from '../cost/measure.js';
import { renderTexCached } from '../tex.js';

// The measuring harness lives in cost/measure.js; its names stay importable from here.
export { FIT_FROM, SIZES, growthExponent, projections } from '../cost/measure.js';

const CONV_K = 3;

const METHODS = [
  { key: 'full', color: PALETTE.vermillion, dash: '' },
  { key: 'local', color: PALETTE.blue, dash: '7 3' },
  { key: 'linear', color: PALETTE.green, dash: '2 3' },
  { key: 'linformer', color: PALETTE.purple, dash: '9 3 2 3' },
];

/** The first `keep` columns of a weight matrix (an input, copied, not computed). */
function firstColumns(W, keep) {
  if (W.cols === keep) return W;
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
}

/** 0/1 visibility (1 = may attend) of an n×n pattern given by `visible(i, j)`. */
function bits(n, visible) {
  const out = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = visible(i, j) ? 1 : 0;
  return out;
}

const fmt = (v) => Math.round(v).toLocaleString('en');
const ms = (v) => (v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toPrecision(2));

let extraSheet = null;
const extraCss = `
.cost-grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.cost-cell { flex: 0 1 auto; width: min-content; min-width: min(15rem, 100%); max-width: 100%; }
.cost-cell figure.heatmap { margin-top: 0; }
.cost-cell .note { margin-top: 0; }
.cost-table td, .cost-table th { text-align: start; }
.cost-table .value { display: block; color: var(--_muted); font-family: var(--_mono); font-size: 0.8rem; }
.remedies { margin: 0.3rem 0; padding-inline-start: 1.2rem; }
.remedies li { display: list-item; margin: 0.3rem 0; }
.status { min-height: 1.5em; }
.measure-grid > details { flex: 1 0 100%; }
.measure-grid > figure { margin: 0.4rem 0; }
`;

/** The panel's own rules, in a constructed stylesheet beside the shared one (nothing inline). */
function adoptExtra(shadow) {
  try {
    extraSheet ??= new CSSStyleSheet();
    if (!extraSheet.cssRules.length) extraSheet.replaceSync(extraCss);
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, extraSheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = extraCss;
    shadow.append(style);
  }
}

export class AttentionCost extends AttentionElement {
  static tag = 'attention-cost';

  static get observedAttributes() {
    return [...super.observedAttributes, 'window', 'linformer-k', 'max-n'];
  }

  constructor() {
    super();
    adoptExtra(this.shadowRoot);
    this._run = null;
    this._token = 0;
  }

  disconnectedCallback() {
    // A measurement in progress stops at its next chunk.
    this._token++;
    if (this._run && !this._run.done) this._run = null;
  }

  /** Local attention's window w (1–32, default 2). */
  get window() {
    return clampInt(this.getAttribute('window'), 1, 32, 2);
  }

  /** Linformer's projected length k (1–32, default 3). */
  get linformerK() {
    return clampInt(this.getAttribute('linformer-k'), 1, 32, 3);
  }

  /** The largest n measured: a power of two in 64–4096 (default 4096). */
  get maxN() {
    const given = Number(this.getAttribute('max-n'));
    if (this.getAttribute('max-n') === null || this.getAttribute('max-n') === '' || !Number.isFinite(given)) return 4096;
    const clamped = Math.min(4096, Math.max(64, given));
    return 2 ** Math.round(Math.log2(clamped));
  }

  outOfRange() {
    const changed = super.outOfRange();
    this.noteAttribute(changed, 'window', this.window);
    this.noteAttribute(changed, 'linformer-k', this.linformerK);
    this.noteAttribute(changed, 'max-n', this.maxN);
    return changed;
  }

  /** What a measurement depends on. */
  settings() {
    const c = this.config();
    return { w: this.window, k: this.linformerK, d: c.dK, seed: c.seed, maxN: this.maxN };
  }

  render(lab) {
    const t = this.t;
    const model = buildModel(this.config(), this.inputs);
    const { tokens, config } = model;
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    const pool = (this._pool ??= new Map());
    const w = this.window;
    const k = this.linformerK;
    const out = [el('h2', { text: t('cost.heading') }), el('p', { class: 'intro', text: t('cost.intro') })];
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(
      formula,
      (this._texCache ??= new Map()),
      `\\underbrace{\\operatorname{softmax}\\Big(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\Big)}_{n\\times n}V \\qquad\\text{vs}\\qquad \\phi(Q)\\,\\underbrace{\\big(\\phi(K)^{\\top}V\\big)}_{d_k\\times d_v}`,
    );
    out.push(formula);
    out.push(this.controls(w, k));

    // Q, K, V of the first head, from the library's self-attention trace.
    const first = (W) => firstColumns(W, config.dK);
    const steps = lab.selfAttention(model.X, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv), trace: true }).steps;
    const get = (id) => steps.find((s) => s.id === id).matrix;
    const Q = get('Q');
    const K = get('K');
    const V = get('V');
    const n = Q.rows;
    const dk = Q.cols;
    const dv = V.cols;
    const causal = config.mask === 'causal';

    const full = lab.scaledDotProductAttention(Q, K, V, { mask: model.mask, trace: true });
    const fullBits = full.steps.find((s) => s.id === 'masked')?.mask;
    const fused = lab.scaledDotProductAttention(Q, K, V, { mask: model.mask, weights: false });
    let diff = 0;
    for (let x = 0; x < fused.output.data.length; x++) diff = Math.max(diff, Math.abs(fused.output.data[x] - full.output.data[x]));
    const local = lab.localAttention(Q, K, V, { window: w, causal, trace: true });
    const localBits = bits(n, (i, j) => Math.abs(i - j) < w && (!causal || j <= i));
    const linear = lab.linearAttention(Q, K, V, { causal, trace: true });
    const linearBits = causal ? bits(n, (i, j) => j <= i) : undefined;
    const { E, F } = projections(k, n, config.seed);
    const linformer = lab.linformerAttention(Q, K, V, { E, F, trace: true });

    out.push(el('h3', { text: t('cost.sentenceHeading') }));
    if (config.mask === 'padding') out.push(el('p', { class: 'note', text: t('cost.paddingNote') }));
    if (causal) out.push(el('p', { class: 'note', text: t('cost.causalNote') }));
    const compact = n > 8;
    const count = (b) => (b ? b.reduce((s, v) => s + v, 0) : n * n);
    const localScores = count(localBits);
    const cells = [
      {
        key: 'full',
        name: t('cost.full'),
        matrix: full.weights,
        mask: fullBits,
        notes: [t('cost.fullCost', { n, scores: fmt(n * n), dk, dv, macs: fmt(n * n * (dk + dv)), bytes: fmt(4 * n * n) }), t('cost.fusedSame', { diff: diff.toPrecision(2) })],
      },
      { key: 'local', name: t('cost.local', { w }), matrix: local.weights, mask: localBits, notes: [t('cost.localCost', { scores: fmt(localScores), all: fmt(n * n), macs: fmt(localScores * (dk + dv)) })] },
      { key: 'linear', name: t('cost.linear'), matrix: linear.weights, mask: linearBits, notes: [t('cost.linearCost', { d: dk, dv, macs: fmt(2 * n * dk * dv + 2 * n * dk) })] },
      {
        key: 'linformer',
        name: t('cost.linformer', { k }),
        matrix: linformer.weights,
        cols: Array.from({ length: k }, (_, r) => t('cost.projected', { r: r + 1 })),
        notes: [t('cost.linformerCost', { k, n, scores: fmt(n * k), macs: fmt(2 * n * k * (dk + dv)) })],
      },
    ];
    const grid = (this._grid ??= el('div', { class: 'cost-grid' }));
    const boxes = (this._boxes ??= new Map());
    const items = [];
    for (const c of cells) {
      const heat = createHeatmap({ t, name: c.name, file: `cost-${c.key}-weights`, matrix: c.matrix, mask: c.mask, maskedText: '0', rowLabels: tokens, colLabels: c.cols ?? tokens, compact, pool, slot: c.key, defer: true });
      heat.el.dataset.method = c.key;
      let box = boxes.get(c.key);
      if (!box) boxes.set(c.key, (box = el('div', { class: 'cost-cell', 'data-cell': c.key })));
      place(box, [heat.el, ...c.notes.map((text) => el('p', { class: 'note', text }))]);
      items.push(box);
    }
    place(grid, items);
    out.push(grid);

    out.push(...this.measureSection());
    out.push(...this.compareTable(n, config.dModel, w));
    out.push(el('h3', { text: t('cost.remediesHeading') }));
    const list = el('ul', { class: 'remedies' });
    for (const key of ['longformer', 'reformer', 'linformerText', 'linearText']) list.append(el('li', { text: t(`cost.${key}`) }));
    out.push(list);
    place(root, out);
  }

  /** The window and Linformer sliders, kept between renders (a drag goes on while the panel redraws). */
  controls(w, k) {
    const t = this.t;
    if (!this._controls) {
      const slider = (id, attr, helpKey) => {
        const input = el('input', { type: 'range', min: '1', max: '32', step: '1', id, 'data-key': id, 'aria-describedby': `${id}-help` });
        input.addEventListener('input', () => this.setAttribute(attr, input.value));
        const label = el('label', { for: id });
        const help = el('small', { class: 'muted', id: `${id}-help` });
        return { input, label, help, helpKey, field: el('div', { class: 'field' }, label, input, help) };
      };
      const win = slider('window', 'window', 'cost.windowHelp');
      const rank = slider('linformer-k', 'linformer-k', 'cost.rankHelp');
      this._controls = { win, rank, box: el('div', { class: 'controls', part: 'controls' }, win.field, rank.field) };
    }
    const { win, rank, box } = this._controls;
    for (const [s, value, key] of [
      [win, w, 'cost.window'],
      [rank, k, 'cost.rank'],
    ]) {
      if (s.input.value !== String(value)) s.input.value = String(value);
      s.label.textContent = `${t(key)}: ${value}`;
      s.help.textContent = t(s.helpKey);
    }
    return box;
  }

  /** Heading, intro, the Measure button and the charts (kept; redrawn as results arrive). */
  measureSection() {
    const t = this.t;
    const s = this.settings();
    if (!this._measure) {
      const button = el('button', { type: 'button', class: 'primary', 'data-key': 'measure', part: 'button measure' });
      button.addEventListener('click', () => this.measure());
      this._measure = {
        heading: el('h3'),
        intro: el('p', { class: 'intro' }),
        button,
        status: el('p', { class: 'note status', 'data-role': 'measure-status', role: 'status' }),
        charts: el('div', { class: 'grid measure-grid', 'data-role': 'charts' }),
      };
      this._measure.bar = el('div', { class: 'controls' }, button);
    }
    const m = this._measure;
    m.heading.textContent = t('cost.measureHeading');
    m.intro.textContent = t('cost.measureIntro', { d: s.d, seed: s.seed, from: SIZES[0], to: s.maxN });
    this.drawMeasure();
    return [m.heading, m.intro, m.bar, m.status, m.charts];
  }

  /** Time full (fused), local, linear and Linformer attention for n = 64 … max-n (cost/measure.js), redrawing as rows arrive. */
  async measure() {
    if (this._run && !this._run.done) return;
    const lab = this.lab;
    if (!lab) return;
    const token = ++this._token;
    const s = this.settings();
    const run = (this._run = { settings: s, rows: [], done: false, current: SIZES[0], ms: 0 });
    this.drawMeasure();
    try {
      const result = await measureAll(lab, s, {
        // A measurement stops at its next pause once the element is removed or a new one starts.
        stillWanted: () => token === this._token && this.isConnected,
        onProgress: (progress) => {
          Object.assign(run, progress);
          this.drawMeasure();
        },
      });
      if (!result) return;
      Object.assign(run, result, { done: true });
      this.emit('attention-measure', { rows: run.rows.map((r) => ({ ...r })), settings: { ...s } });
    } catch (error) {
      run.done = true;
      run.error = error?.message ?? String(error);
    }
    this.drawMeasure();
  }

  /** The status line, the time chart (when measured), the bytes chart and the table. */
  drawMeasure() {
    const m = this._measure;
    if (!m) return;
    const t = this.t;
    const run = this._run;
    const now = this.settings();
    const running = run && !run.done;
    m.button.textContent = run ? t('cost.measureAgain') : t('cost.measure');
    m.button.setAttribute('aria-disabled', String(Boolean(running)));
    m.charts.setAttribute('aria-busy', String(Boolean(running)));
    const s = run?.settings ?? now;
    if (!run) m.status.textContent = t('cost.notMeasured');
    else if (running) m.status.textContent = t('cost.measuring', { n: run.current });
    else if (run.error) m.status.textContent = t('error.generic', { msg: run.error });
    else {
      const same = ['w', 'k', 'd', 'seed', 'maxN'].every((key) => s[key] === now[key]);
      m.status.textContent = same ? t('cost.measured', { w: s.w, k: s.k, d: s.d, ms: fmt(run.ms) }) : t('cost.stale', { w: s.w, k: s.k, d: s.d });
    }
    // The time chart and its table depend only on the language and the run so far; the bytes
    // chart on the language and the settings it draws (not the seed): each is kept while they stay.
    const chartKey = JSON.stringify([this.language, s, run?.rows.length ?? -1, Boolean(running)]);
    const memKey = JSON.stringify([this.language, s.w, s.k, s.d, s.maxN]);
    if (m.chartKey === chartKey && run === m.chartRun && m.memKey === memKey) return;
    const sizes = sizesUpTo(s.maxN);
    if (m.memKey !== memKey) {
      m.memKey = memKey;
      m.memWrap = this.memoryChart(s, sizes);
    }
    if (m.chartKey === chartKey && run === m.chartRun) {
      place(m.charts, [...m.timeFigures.slice(0, 1), m.memWrap, ...m.timeFigures.slice(1)]);
      return;
    }
    m.chartKey = chartKey;
    m.chartRun = run;

    const figures = [];
    const rows = run?.rows ?? [];
    const labels = { full: t('cost.seriesFull'), local: t('cost.seriesLocal', { w: s.w }), linear: t('cost.seriesLinear'), linformer: t('cost.seriesLinformer', { k: s.k }) };
    if (rows.length) {
      const x = rows.map((r) => r.n);
      const series = [];
      const key = el('div', { class: 'key' });
      const fitted = fittedRows(rows);
      for (const meth of METHODS) {
        const y = rows.map((r) => r[meth.key]);
        series.push({ label: labels[meth.key], y, color: meth.color, dash: meth.dash || undefined }, { label: labels[meth.key], y, color: meth.color, points: true });
        const e = growthExponent(fitted.map((r) => r.n), fitted.map((r) => r[meth.key]));
        const item = legendItem(Number.isFinite(e) ? `${labels[meth.key]}: ${t('cost.slope', { e: e.toFixed(2) })}` : labels[meth.key], meth.color, meth.dash || undefined);
        item.dataset.method = meth.key;
        if (Number.isFinite(e)) item.dataset.exponent = e.toFixed(3);
        key.append(item);
      }
      const title = t('cost.timeChart');
      const wrap = el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': 'time-chart' });
      wrap.append(el('figcaption', { text: title }), lineChart({ title, x, series, xLog: true, yLog: true, ...decades(series.flatMap((ser) => ser.y)), xRange: [sizes[0], sizes[sizes.length - 1] * 1.3], xTicks: sizes, xLabel: t('cost.n') }), key);
      wrap.append(el('p', { class: 'note', text: t('cost.slopeNote', { from: fitted[0].n, to: fitted[fitted.length - 1].n }) }));
      figures.push(wrap);
    }

    if (rows.length) {
      const details = el('details', { part: 'data' });
      details.append(el('summary', { text: t('cost.table') }));
      const table = el('table', { class: 'stats', 'data-role': 'times' });
      const head = el('tr', {}, el('th', { scope: 'col', text: 'n' }));
      for (const meth of METHODS) head.append(el('th', { scope: 'col', text: `${labels[meth.key]} (${t('cost.ms')})` }));
      head.append(el('th', { scope: 'col', text: '4n²' }));
      table.append(el('thead', {}, head));
      const body = el('tbody');
      for (const r of rows) body.append(el('tr', { 'data-n': String(r.n) }, el('th', { scope: 'row', text: String(r.n) }), ...METHODS.map((meth) => el('td', { text: ms(r[meth.key]) })), el('td', { text: fmt(4 * r.n * r.n) })));
      table.append(body);
      details.append(el('div', { class: 'scroll' }, table));
      const open = m.charts.querySelector('details')?.open;
      if (open) details.open = true;
      figures.push(details);
    }
    m.timeFigures = figures;
    place(m.charts, [...figures.slice(0, 1), m.memWrap, ...figures.slice(1)]);
  }

  /** Bytes of the attention pattern if it were stored, from the shapes. */
  memoryChart(s, sizes) {
    const t = this.t;
    const kib = sizes.map((n) => storedKiB(n, s));
    const memSeries = [
      { key: 'full', label: t('cost.memFull'), y: kib.map((b) => b.full) },
      { key: 'local', label: t('cost.memLocal'), y: kib.map((b) => b.local) },
      { key: 'linformer', label: t('cost.memLinformer'), y: kib.map((b) => b.linformer) },
    ].map((ser) => ({ ...ser, ...METHODS.find((meth) => meth.key === ser.key) }));
    const memTitle = `${t('cost.memoryChart')} (KiB)`;
    const memWrap = el('figure', { class: 'chart chart-wrap', part: 'chart', 'data-role': 'memory-chart' });
    const memKey = el('div', { class: 'key' });
    for (const ser of memSeries) memKey.append(legendItem(ser.label, ser.color, ser.dash || undefined));
    const top = sizes[sizes.length - 1];
    memWrap.append(
      el('figcaption', { text: memTitle }),
      lineChart({ title: memTitle, x: sizes, series: memSeries.map((ser) => ({ ...ser, dash: ser.dash || undefined })), xLog: true, yLog: true, ...decades(memSeries.flatMap((ser) => ser.y)), xRange: [sizes[0], top * 1.3], xTicks: sizes, xLabel: t('cost.n') }),
      memKey,
      el('p', { class: 'note', text: t('cost.memNote', { bytes: fmt(4 * s.d * s.d), n: fmt(top), mib: fmt((4 * top * top) / 2 ** 20) }) }),
    );
    return memWrap;
  }

  /** D2L 10.6's comparison, with the live n and d (and w) filled in. */
  compareTable(n, d, w) {
    const t = this.t;
    const k = CONV_K;
    const table = el('table', { class: 'stats cost-table', part: 'stats', 'data-role': 'complexity' });
    table.append(el('caption', { class: 'sr-only', text: t('cost.compareHeading') }));
    const head = el('tr', {}, el('th', { scope: 'col', text: t('cost.layer') }));
    for (const h of ['cost.complexity', 'cost.sequential', 'cost.path']) head.append(el('th', { scope: 'col', text: t(h) }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    const cell = (big, value) => el('td', {}, document.createTextNode(big), el('span', { class: 'value', text: `= ${value}` }));
    const rows = [
      ['cnn', ['O(k·n·d²)', fmt(k * n * d * d)], ['O(1)', '1'], ['O(n/k)', fmt(Math.ceil(n / k))]],
      ['rnn', ['O(n·d²)', fmt(n * d * d)], ['O(n)', fmt(n)], ['O(n)', fmt(n)]],
      ['self', ['O(n²·d)', fmt(n * n * d)], ['O(1)', '1'], ['O(1)', '1']],
      ['localRow', ['O(n·w·d)', fmt(n * Math.min(w, n) * d)], ['O(1)', '1'], ['O(n/w)', fmt(Math.ceil(n / w))]],
      ['linearRow', ['O(n·d²)', fmt(n * d * d)], ['O(1)', '1'], ['O(1)', '1']],
    ];
    for (const [key, ...values] of rows) body.append(el('tr', { 'data-layer': key }, el('th', { scope: 'row', text: t(`cost.${key}`) }), ...values.map(([big, v]) => cell(big, v))));
    table.append(body);
    return [
      el('h3', { text: t('cost.compareHeading') }),
      el('p', { class: 'muted', text: t('cost.compareIntro', { n, d, k }) }),
      el('div', { class: 'scroll' }, table),
      el('p', { class: 'note', text: t('cost.compareNote') }),
    ];
  }
}

/** A log axis from the power of ten below the smallest value to the one above the largest, a tick at each. */
function decades(values) {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  if (!positive.length) return {};
  const lo = Math.floor(Math.log10(Math.min(...positive)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive))));
  return { yRange: [10 ** lo, 10 ** hi], yTicks: Array.from({ length: hi - lo + 1 }, (_, e) => 10 ** (lo + e)) };
}

function clampInt(value, lo, hi, fallback) {
  if (value === null || value === '') return fallback;
  const v = Math.round(Number(value));
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : fallback;
}
