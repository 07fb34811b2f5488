// <attention-cost>: why n² hurts long sequences. The reader's sentence through
// full softmax attention, local (sliding-window) attention, linear attention and
// Linformer, each heatmap from the library with what it cost (sentence.js); one round of
// Reformer's LSH bucketing (lsh-section.js); the fused path's
// online softmax for one query row, block by block (online-softmax.js); a measured
// time-against-n chart (fused full attention vs the variants, in chunks that
// keep the page responsive: measure.js) with the fitted growth exponent; the bytes of the
// n×n weights (charts.js); and D2L's CNN / RNN / self-attention comparison with live n, d
// (compare-table.js).
import { AttentionElement } from '../../base.js';
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { createHeatmap, filled, place } from '../../heatmap.js';
import { panelSetting, settingValue } from '../../config.js';
import { buildModel } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { renderTexCached } from '../../tex.js';
import { memoryChart, timeChart, timesTable } from './charts.js';
import { compareTable } from './compare-table.js';
import { SIZES, measureAll, sizesUpTo } from './measure.js';
import { LongWeights } from './long-weights.js';
import { LshSection } from './lsh-section.js';
import { OnlineSoftmax } from './online-softmax.js';
import { fmt, sentenceCells, sentenceResults } from './sentence.js';
import { FORMULAS } from './formulas.js';
import { COST_CSS } from './styles.js';

// The measuring harness lives in measure.js; its names stay importable from the panel.
export { FIT_FROM, SIZES, growthExponent, projections } from './measure.js';

const REMEDIES = ['longformer', 'reformer', 'linformerText', 'linearText'];
/** What a measurement's result depends on: a run with other settings is shown as stale. */
const SETTING_KEYS = ['w', 'k', 'd', 'seed', 'maxN'];

export class AttentionCost extends AttentionElement {
  static tag = 'attention-cost';

  /** The measurement shown: { settings, rows, done, current, ms, error? }, null before the first. */
  #run = null;
  /** Bumped when the element leaves the page: a measurement in progress stops at its next pause. */
  #token = 0;
  #pool = new Map();
  #texCache = new Map();
  #formula = null;
  #grid = null;
  #boxes = new Map();
  #sliders = null;
  #measure = null;
  #long = new LongWeights();
  #online = new OnlineSoftmax();
  #lsh = new LshSection();
  /** The boxes of the sections below the fold, kept from one render to the next. */
  #parts = { lsh: el('div', { 'data-part': 'lsh' }), online: el('div', { 'data-part': 'online' }), table: el('div', { 'data-part': 'table' }) };

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, COST_CSS);
  }

  disconnectedCallback() {
    this.#token++;
    if (this.#run && !this.#run.done) this.#run = null;
  }

  /** Local attention's window w (1–32, default 2). */
  get window() {
    return settingValue(panelSetting('cost', 'window'), this.getAttribute('window'));
  }

  /** Linformer's projected length k (1–32, default 3). */
  get linformerK() {
    return settingValue(panelSetting('cost', 'linformer-k'), this.getAttribute('linformer-k'));
  }

  /** The largest n measured: a power of two in 64–4096 (default 4096). */
  get maxN() {
    return settingValue(panelSetting('cost', 'max-n'), this.getAttribute('max-n'));
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
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const w = this.window;
    const k = this.linformerK;
    const head = [el('h2', { text: t('cost.heading') }), el('p', { class: 'intro', text: t('cost.intro') }), this.#formulas(), this.#controls(w, k)];
    const results = sentenceResults(lab, model, w, k);
    place(this.root, [
      ...head,
      ...this.#sentenceSection(model, results),
      filled(this.#parts.lsh, [this.#lsh.section(lab, t, results, model)]),
      filled(this.#parts.online, [this.#online.section(lab, t, results, model.tokens, () => this.requestRender())]),
      ...this.#measureSection(),
      this.#long.section(lab, t, { d: model.config.dK, seed: model.config.seed }, () => this.requestRender()),
      filled(this.#parts.table, this.#tableAndRemedies(results.n, model.config.dModel, w)),
    ]);
  }

  /** The complexity table for this sentence and the list of remedies. */
  #tableAndRemedies(n, dModel, w) {
    const t = this.t;
    return [...compareTable(t, n, dModel, w), el('h3', { text: t('cost.remediesHeading') }), el('ul', { class: 'remedies' }, ...REMEDIES.map((key) => el('li', { text: t(`cost.${key}`) })))];
  }

  /** Full and linear attention's formulas, each with its label in the reader's language (kept between renders). */
  #formulas() {
    this.#formula ??= {
      box: el('div', { class: 'formulas', 'data-role': 'formulas' }),
      lines: FORMULAS.map(() => ({ label: el('p', { class: 'formula-label' }), tex: el('div', { class: 'formula', part: 'formula' }) })),
    };
    const { box, lines } = this.#formula;
    FORMULAS.forEach(([key, tex], i) => {
      lines[i].label.textContent = this.t(key);
      renderTexCached(lines[i].tex, this.#texCache, tex);
    });
    place(box, lines.flatMap((line) => [line.label, line.tex]));
    return box;
  }

  /** The heading, the mask's note and the four heatmaps (on one colour scale) with their costs. */
  #sentenceSection(model, results) {
    const t = this.t;
    const out = [el('h3', { text: t('cost.sentenceHeading') })];
    if (model.config.mask === 'padding') out.push(el('p', { class: 'note', text: t('cost.paddingNote') }));
    if (model.config.mask === 'causal') out.push(el('p', { class: 'note', text: t('cost.causalNote') }));
    const compact = results.n > 8;
    this.#grid ??= el('div', { class: 'cost-grid' });
    // The four methods' weights side by side: one colour scale and legend.
    const cells = sentenceCells(t, results);
    const shared = onOneScale(cells.map((cell) => cell.matrix), cells.map((cell) => cell.mask));
    place(this.#grid, cells.map((cell, i) => this.#cellBox({ ...cell, matrix: shared[i] }, model.tokens, compact)));
    out.push(this.#grid);
    return out;
  }

  /** One method's heatmap and notes, in a box kept between renders. */
  #cellBox(cell, tokens, compact) {
    const heat = createHeatmap({ base: 1, t: this.t, name: cell.name, file: `cost-${cell.key}-weights`, matrix: cell.matrix, mask: cell.mask, maskedText: '0', rowLabels: tokens, colLabels: cell.cols ?? tokens, compact, pool: this.#pool, slot: cell.key, defer: true });
    heat.el.dataset.method = cell.key;
    let box = this.#boxes.get(cell.key);
    if (!box) this.#boxes.set(cell.key, (box = el('div', { class: 'cost-cell', 'data-cell': cell.key })));
    place(box, [heat.el, ...cell.notes.map((text) => el('p', { class: 'note', text }))]);
    return box;
  }

  /** The window and Linformer sliders, kept between renders (a drag goes on while the panel redraws). */
  #controls(w, k) {
    const t = this.t;
    this.#sliders ??= this.#buildSliders();
    const { win, rank, box } = this.#sliders;
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

  #buildSliders() {
    const slider = (id, helpKey) => {
      const input = el('input', { type: 'range', min: '1', max: '32', step: '1', id, 'data-key': id, 'aria-describedby': `${id}-help` });
      input.addEventListener('input', () => this.setAttribute(id, input.value));
      const label = el('label', { for: id });
      const help = el('small', { class: 'muted', id: `${id}-help` });
      return { input, label, help, helpKey, field: el('div', { class: 'field' }, label, input, help) };
    };
    const win = slider('window', 'cost.windowHelp');
    const rank = slider('linformer-k', 'cost.rankHelp');
    return { win, rank, box: el('div', { class: 'controls', part: 'controls' }, win.field, rank.field) };
  }

  /** Heading, intro, the Measure button and the charts (kept; redrawn as results arrive). */
  #measureSection() {
    const t = this.t;
    const s = this.settings();
    this.#measure ??= this.#buildMeasure();
    const m = this.#measure;
    m.heading.textContent = t('cost.measureHeading');
    m.intro.textContent = t('cost.measureIntro', { d: s.d, seed: s.seed, from: SIZES[0], to: s.maxN });
    this.#drawMeasure();
    return [m.heading, m.intro, m.bar, m.status, m.charts];
  }

  #buildMeasure() {
    const button = el('button', { type: 'button', class: 'primary', 'data-key': 'measure', part: 'button measure' });
    button.addEventListener('click', () => this.measure());
    return {
      heading: el('h3'),
      intro: el('p', { class: 'intro' }),
      button,
      bar: el('div', { class: 'controls' }, button),
      status: el('p', { class: 'note status', 'data-role': 'measure-status', role: 'status' }),
      charts: el('div', { class: 'grid measure-grid', 'data-role': 'charts' }),
    };
  }

  /** Time full (fused), local, linear and Linformer attention for n = 64 … max-n (measure.js), redrawing as rows arrive. */
  async measure() {
    if (this.#run && !this.#run.done) return;
    const lab = this.lab;
    if (!lab) return;
    const token = ++this.#token;
    const s = this.settings();
    const run = (this.#run = { settings: s, rows: [], done: false, current: SIZES[0], ms: 0 });
    this.#drawMeasure();
    try {
      const result = await measureAll(lab, s, {
        stillWanted: () => token === this.#token && this.isConnected,
        onProgress: (progress) => {
          Object.assign(run, progress);
          this.#drawMeasure();
        },
      });
      if (!result) return;
      Object.assign(run, result, { done: true });
      this.emit('attention-measure', { rows: run.rows.map((r) => ({ ...r })), settings: { ...s } });
    } catch (error) {
      run.done = true;
      run.error = error?.message ?? String(error);
    }
    this.#drawMeasure();
  }

  /**
   * The button, the status line, the time chart and table (when measured) and the bytes chart.
   * The time chart and its table depend only on the language and the run so far; the bytes chart
   * on the language and the settings it draws (not the seed): each is kept while they stay.
   */
  #drawMeasure() {
    const m = this.#measure;
    if (!m) return;
    const run = this.#run;
    const running = Boolean(run && !run.done);
    const s = run?.settings ?? this.settings();
    this.#showStatus(m, run, running);
    const timeKey = JSON.stringify([this.language, s, run?.rows.length ?? -1, running]);
    const memKey = JSON.stringify([this.language, s.w, s.k, s.d, s.maxN]);
    const timeChanged = m.timeKey !== timeKey || m.timeRun !== run;
    if (!timeChanged && m.memKey === memKey) return;
    const sizes = sizesUpTo(s.maxN);
    if (m.memKey !== memKey) {
      m.memKey = memKey;
      m.memFigure = memoryChart(this.t, s, sizes);
    }
    if (timeChanged) {
      m.timeKey = timeKey;
      m.timeRun = run;
      const rows = run?.rows ?? [];
      const open = Boolean(m.charts.querySelector('details')?.open);
      m.timeFigures = rows.length ? [timeChart(this.t, rows, s, sizes), timesTable(this.t, rows, s, open)] : [];
    }
    place(m.charts, [...m.timeFigures.slice(0, 1), m.memFigure, ...m.timeFigures.slice(1)]);
  }

  #showStatus(m, run, running) {
    const t = this.t;
    m.button.textContent = run ? t('cost.measureAgain') : t('cost.measure');
    m.button.setAttribute('aria-disabled', String(running));
    m.charts.setAttribute('aria-busy', String(running));
    if (!run) m.status.textContent = t('cost.notMeasured');
    else if (running) m.status.textContent = t('cost.measuring', { n: run.current });
    else if (run.error) m.status.textContent = t('error.generic', { msg: run.error });
    else {
      const s = run.settings;
      const now = this.settings();
      const same = SETTING_KEYS.every((key) => s[key] === now[key]);
      m.status.textContent = same ? t('cost.measured', { w: s.w, k: s.k, d: s.d, ms: fmt(run.ms) }) : t('cost.stale', { w: s.w, k: s.k, d: s.d });
    }
  }
}
