// <attention-compare>: additive vs scaled dot-product vs unscaled dot-product
// on the same Q, K, V and mask; entropy per row, parameters, FLOPs and the
// time each WASM call takes (measured when the page is idle, and shown only when the same
// function's empty 1×1 call takes under a tenth of it); queries whose width differs from the keys'; and
// Dive into Deep Learning 10.3's additive example (compare/d2l-example.js).
import { AttentionElement } from '../base.js';
import { onOneScale } from '../colors.js';
import { panelSetting, settingValue } from '../config.js';
import { el } from '../dom.js';
import { errorText } from '../error-text.js';
import { duration, grouped } from '../format.js';
import { firstColumns } from '../first-columns.js';
import { createHeatmap, filled, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { adoptPanelStyles } from '../panel-styles.js';
import { randomMatrix } from '../random.js';
import { later } from '../scheduler.js';
import { renderTexCached } from '../tex.js';
import { traceMatrix } from '../trace-view.js';
import { SCORING_TEX, additiveWeights, costs, rowEntropy } from './compare/compare-model.js';
import { D2lExample } from './compare/d2l-example.js';
import { MAX_OVERHEAD, pairTimer, pathVerdicts } from './compare/timing.js';
import { COMPARE_CSS } from './compare/styles.js';

export { costs, rowEntropy } from './compare/compare-model.js';

/**
 * Rounds of timing per method (compare/timing.js: a batch of the empty call and one of the call
 * each, some 2–3 ms), each in an idle piece of its own: on a machine busy with builds (load 5 on
 * two cores) four rounds at once still let one 63-token call show and its twin not.
 */
const TIMING_ROUNDS = 8;

export class AttentionCompare extends AttentionElement {
  static tag = 'attention-compare';

  #pool = new Map();
  #texCache = new Map();
  #formulas = null;
  #slider = null;
  #grid = null;
  #example = new D2lExample(this);
  /** The statistics table and the width-mismatch section, kept from one render to the next. */
  #parts = { stats: el('div', { 'data-part': 'stats' }), mismatch: el('div', { 'data-part': 'mismatch' }) };
  /** One key per method and round for its timing, which waits until the page is idle (a later render's replaces it). */
  #timings = Object.fromEntries(['additive', 'scaled', 'dot'].map((key) => [key, Array.from({ length: TIMING_ROUNDS }, () => ({}))]));

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, COMPARE_CSS);
  }

  get hiddenSize() {
    return settingValue(panelSetting('compare', 'hidden-size'), this.getAttribute('hidden-size'));
  }

  outOfRange() {
    return this.noteAttribute(super.outOfRange(), 'hidden-size', this.hiddenSize);
  }

  render(lab) {
    const model = buildModel(this.config(), this.inputs);
    const run = this.#compare(lab, model);
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    place(root, [
      ...this.#heading(),
      this.#hiddenSlider(run.dh),
      this.#example.render(this.t, lab, this.#pool, { dh: run.dh, seed: model.config.seed }),
      this.#weights(run, model.tokens),
      // At 128 tokens these two took a third of the render (131 table rows; one more additive attention).
      filled(this.#parts.stats, [this.#statsTable(run, model)]),
      filled(this.#parts.mismatch, this.#mismatch(lab, run, model)),
    ]);
  }

  /**
   * The three scoring functions on the first head's queries, keys and values (from the library's
   * self-attention trace); the additive one with seeded W_q, W_k, w_v. Each method: [key, result,
   * call], `call` running it again for its timing.
   */
  #compare(lab, model) {
    const { config, mask } = model;
    const first = (W) => firstColumns(W, config.dK);
    const trace = lab.selfAttention(model.X, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv), trace: true });
    const [Q, K, V] = ['Q', 'K', 'V'].map((id) => traceMatrix(trace, id));
    const dh = this.hiddenSize;
    const { Wq, Wk, wv } = additiveWeights(config.dK, config.dK, dh, config.seed * 7 + 11);
    const calls = {
      additive: () => lab.additiveAttention(Q, K, V, { Wq, Wk, wv, mask }),
      scaled: () => lab.scaledDotProductAttention(Q, K, V, { mask }),
      dot: () => lab.scaledDotProductAttention(Q, K, V, { mask, scale: 1 }),
    };
    // The same functions with the same options on 1×1 inputs: the fixed cost of a call on each path.
    const one = { rows: 1, cols: 1, data: new Float32Array([0.5]) };
    const oneMask = mask === 'causal' ? 'causal' : mask ? { validLens: [1] } : undefined;
    const oneW = additiveWeights(1, 1, 1, 1);
    const empties = {
      additive: () => lab.additiveAttention(one, one, one, { ...oneW, mask: oneMask }),
      scaled: () => lab.scaledDotProductAttention(one, one, one, { mask: oneMask }),
      dot: () => lab.scaledDotProductAttention(one, one, one, { mask: oneMask, scale: 1 }),
    };
    const methods = Object.entries(calls).map(([key, call]) => [key, call(), call, empties[key]]);
    return { Q, K, V, dh, n: Q.rows, Wk, wv, methods };
  }

  /** The heading, the intro and the three scoring functions, each named beside its formula (no words in the TeX). */
  #heading() {
    const { t, language: lang } = this;
    const formulas = (this.#formulas ??= Object.fromEntries(Object.keys(SCORING_TEX).map((key) => [key, el('td', { class: 'formula', part: 'formula' })])));
    for (const [key, cell] of Object.entries(formulas)) renderTexCached(cell, this.#texCache, SCORING_TEX[key]);
    const table = this.keep('scorings', lang, () => el('table', { class: 'scorings', 'data-role': 'scorings' }, el('caption', { class: 'sr-only', text: t('compare.formulas') }), el('tbody', {}, ...Object.keys(SCORING_TEX).map((key) => el('tr', {}, el('th', { scope: 'row', text: t(`compare.${key}`) }), formulas[key])))));
    return [
      this.keep('h2', lang, () => el('h2', { text: t('compare.heading') })),
      this.keep('intro', lang, () => el('p', { class: 'intro', text: t('compare.intro') })),
      table,
      this.keep('rows', lang, () => el('p', { class: 'note', text: t('compare.rows') })),
    ];
  }

  /** The hidden-size slider is kept (a reader may be dragging it); its value and label follow the attribute. */
  #hiddenSlider(dh) {
    if (!this.#slider) {
      const slider = el('input', { type: 'range', min: '1', max: '64', step: '1', id: 'hidden', 'data-key': 'hidden' });
      slider.addEventListener('input', () => this.setAttribute('hidden-size', slider.value));
      const label = el('label', { for: 'hidden' });
      this.#slider = { slider, label, box: el('div', { class: 'controls' }, el('div', { class: 'field' }, label, slider)) };
    }
    const { slider, label, box } = this.#slider;
    const text = `${this.t('compare.hidden')}: ${dh}`;
    if (slider.value !== String(dh)) slider.value = String(dh);
    if (label.textContent !== text) label.textContent = text;
    return box;
  }

  /** The three weight matrices side by side, on one colour scale. */
  #weights({ methods, n }, tokens) {
    const t = this.t;
    const grid = (this.#grid ??= el('div', { class: 'grid' }));
    // One quantity side by side: one colour scale and legend (0.47 and 0.88 were both drawn yellow).
    const weights = onOneScale(methods.map(([, result]) => result.weights));
    const figures = methods.map(([key], i) => {
      const heat = createHeatmap({ base: 1, t, name: t(`compare.${key}`), file: `compare-${key}-weights`, matrix: weights[i], rowLabels: tokens, colLabels: tokens, compact: n > 8, pool: this.#pool, slot: key });
      heat.el.dataset.method = key;
      return heat.el;
    });
    place(grid, figures);
    return grid;
  }

  /** Parameters, FLOPs, time per call and each row's entropy, per method. */
  #statsTable({ methods, n, dh }, { tokens, config }) {
    const t = this.t;
    const cost = costs({ n, m: n, dq: config.dK, dk: config.dK, dv: config.dK, dh });
    const entropies = methods.map(([, r]) => rowEntropy(r.weights));
    const table = el('table', { class: 'stats', part: 'stats' });
    table.append(el('caption', { class: 'sr-only', text: t('compare.heading') }));
    const head = el('tr', {}, el('th', { scope: 'col', text: t('compare.metric') }));
    for (const [key] of methods) head.append(el('th', { scope: 'col', text: t(`compare.${key}`) }));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    const row = (label, values) => body.appendChild(el('tr', {}, el('th', { scope: 'row', text: label }), ...values.map((v) => el('td', { text: v }))));
    row(t('compare.params'), methods.map(([key]) => grouped(cost[key].params)));
    row(t('compare.flops'), methods.map(([key]) => grouped(cost[key].flops)));
    const note = el('p', { class: 'note', 'data-role': 'timing-note', text: t('compare.timingWhy', { share: MAX_OVERHEAD * 100 }) });
    const sizes = { n, m: n, dk: config.dK, dh };
    this.#timeWhenIdle(methods, row(t('compare.time'), methods.map(() => t('compare.timing'))), note, sizes);
    tokens.forEach((tok, i) => row(`${t('compare.entropy')} · ${tok}`, entropies.map((e) => e[i].toFixed(3))));
    table.append(body);
    return el('div', {}, el('div', { class: 'scroll' }, table), note);
  }

  /**
   * Each method's time per call and its empty 1×1 call's (compare/timing.js: batches of each in
   * turn, the fastest kept) are measured when the page is next idle, TIMING_ROUNDS pieces a method:
   * measured in the render, the three took 20–50 ms, every change of the panel over a frame. A
   * time is written into its cell of `tr` with the sizes it was measured at only when the empty
   * call takes under MAX_OVERHEAD of it (else a dash, and `note` says why); each cell keeps both
   * measurements (data-call-ms, data-empty-ms).
   */
  #timeWhenIdle(methods, tr, note, sizes) {
    const t = this.t;
    tr.dataset.role = 'time';
    const cells = tr.querySelectorAll('td');
    const bests = new Map();
    // Scaled and unscaled dot-product attention are one function: one fixed cost for both (pathVerdicts).
    const pathOf = (key) => (key === 'additive' ? 'additive' : 'dot-product');
    methods.forEach(([key, , call, empty]) => {
      const timer = pairTimer(call, empty);
      // A later render's pieces take the same keys; whichever piece completes the rounds records,
      // and the last method's writes every cell.
      for (const piece of this.#timings[key]) later(piece, () => {
        timer.round();
        if (timer.rounds() < TIMING_ROUNDS) return;
        bests.set(key, timer.best());
        if (bests.size < methods.length) return;
        const verdicts = pathVerdicts(bests, pathOf);
        methods.forEach(([k], i) => {
          const verdict = verdicts.get(k);
          const cell = cells[i];
          Object.assign(cell.dataset, { callMs: String(verdict.call), emptyMs: String(verdict.empty), shown: String(verdict.show) });
          cell.textContent = verdict.show ? t(k === 'additive' ? 'compare.timeAtAdditive' : 'compare.timeAt', { time: duration(verdict.call), ...sizes }) : '—';
        });
        const hidden = methods.filter(([k]) => !verdicts.get(k).show).map(([k]) => t(`compare.${k}`));
        note.dataset.hidden = String(hidden.length);
        const which = hidden.length === methods.length ? t('compare.noTimeAll') : t('compare.noTimeFor', { methods: hidden.join(t('compare.listSep')) });
        note.textContent = hidden.length ? t('compare.noTiming', { which, share: MAX_OVERHEAD * 100 }) : t('compare.timingShown', { share: MAX_OVERHEAD * 100 });
      });
    });
  }

  /** Queries of another width: the dot product cannot apply (the library's error is shown), additive can. */
  #mismatch(lab, { K, V, dh, n, Wk, wv }, { tokens, mask, config }) {
    const t = this.t;
    const dq = config.dK + 3;
    const Qwide = randomMatrix(n, dq, config.seed * 7 + 17, 1);
    const WqWide = randomMatrix(dq, dh, config.seed * 7 + 18, 1 / Math.sqrt(dq));
    let failure = null;
    try {
      lab.scaledDotProductAttention(Qwide, K, V);
    } catch (error) {
      failure = error;
    }
    const wide = lab.additiveAttention(Qwide, K, V, { Wq: WqWide, Wk, wv, mask });
    const name = `${t('compare.additive')} (d_q = ${dq}, d_k = ${config.dK})`;
    return [
      el('h3', { text: t('compare.mismatch') }),
      el('p', { class: 'muted', text: t('compare.mismatchIntro', { dq, dk: config.dK }) }),
      el('p', { text: t('compare.dotFails') }),
      this.#refusal(failure, { n, dq, m: K.rows, dk: K.cols }),
      el('p', { text: t('compare.additiveWorks', { n, m: n }) }),
      createHeatmap({ base: 1, t, name, file: 'additive-wide-weights', matrix: wide.weights, rowLabels: tokens, colLabels: tokens, compact: n > 8, pool: this.#pool, slot: 'wide' }).el,
    ];
  }

  /**
   * The library's refusal: in English its own message; in Chinese an explanation with the live
   * shapes, the library's (English) message kept as a detail the reader may open.
   */
  #refusal(error, shapes) {
    const t = this.t;
    if (!error) return el('p', { class: 'error', 'data-role': 'dot-error', text: '—' });
    if (this.language !== 'zh-CN') return el('p', { class: 'error', 'data-role': 'dot-error', text: error.message });
    return el(
      'div',
      { class: 'error', 'data-role': 'dot-error' },
      el('p', { text: t('compare.dotFailsWhy', shapes) }),
      el('p', { class: 'muted', text: errorText(t, error, { detail: false }) }),
      el('details', {}, el('summary', { text: t('error.original') }), el('code', { lang: 'en', text: error.message })),
    );
  }
}
