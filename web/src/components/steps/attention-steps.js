// <attention-steps>: a stepper through X → Q, K, V → QKᵀ → ÷√d_k → mask →
// softmax → weights·V (→ per head, concat, W_O). Every matrix is a step of
// the library's trace; hovering a cell highlights the operands it came from.
// weights="trained": the trained grammar model's layer 0 on the sentence (trained-grammar.js).
// weights="reader": one head of one layer of the reader trained on real text, from reader.attend's
// trace (trained-reader.js).
import { AttentionElement } from '../../base.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { buildModel } from '../../model.js';
import { Stepper } from '../../stepper.js';
import { mathNodes } from '../../math-text.js';
import { renderTexCached } from '../../tex.js';
import { OPEN_CELLS, dims, operandList } from './operands.js';
import { stepArithmetic } from './arithmetic.js';
import { stepNotes } from './notes.js';
import { headMark, headTraceSteps, shownIndex, stepTex, traceSteps } from './trace-steps.js';
import { TrainedGrammar } from './trained-grammar.js';
import { READER_NOTES_CSS, TrainedReader } from './trained-reader.js';
import { readerOutOfRange } from '../../config.js';
import { adoptPanelStyles } from '../../panel-styles.js';

export { OPEN_CELLS, traceSteps };

/** The ways of giving numbers this panel shows (own-numbers.js): all of them. */
const OWN_NUMBERS = ['seeded', 'x', 'qkv', 'weights'];

/** Whether a large operand's section was drawn open by the last render (a toggle since redraws). */
const drawnOpen = new WeakMap();

export class AttentionSteps extends AttentionElement {
  static tag = 'attention-steps';

  #timer = null;
  #traced = null;
  #stepper = new Stepper({ go: (k) => this.go(this.#traced.keys[k]) });
  #panel = null;
  #formula = null;
  #texCache = new Map();
  #box = null;
  #operands = [];
  /**
   * Kept heatmaps by slot (one per step and operand); their cells are brought up to date when
   * shown again (a new sentence of as many tokens only relabels rows). A slot whose matrix changes
   * shape keeps its figure and canvas, with a new table (heatmap.js).
   */
  #pool = new Map();
  #large = new Map();
  #trained = new TrainedGrammar(this);
  #reader = new TrainedReader(this, { panel: 'steps', layers: true });
  /** The reader's last traced run of each model: { key, reader, run } (a change of layer, head, step or model back reads it again). */
  #readerRuns = new Map();

  /** With the reader shown, the page's cut of the sentence to its token limit does not apply (the reader says its own). */
  outOfRange() {
    const changed = super.outOfRange();
    return this.#reader.on ? readerOutOfRange(changed) : changed;
  }

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, READER_NOTES_CSS);
  }

  disconnectedCallback() {
    this.stop();
  }

  /** The current step key ('X', 'Q', …, 'weights', …). */
  get step() {
    return this.getAttribute('step') || 'X';
  }
  set step(key) {
    this.setAttribute('step', key);
  }

  /** The keys of the steps shown for the current settings, in order (empty before the first render). */
  get stepKeys() {
    return this.#traced?.keys ?? [];
  }

  go(key) {
    if (key === this.step) return;
    this.step = key;
    this.emit('attention-step', { step: key, head: this.headIndex });
  }

  get headIndex() {
    return Math.max(0, Number(this.getAttribute('head')) || 0);
  }

  stop() {
    clearInterval(this.#timer);
    this.#timer = null;
  }

  play() {
    if (this.#timer) return this.stop(), this.requestRender();
    this.#timer = setInterval(() => {
      const keys = this.stepKeys;
      const at = keys.indexOf(this.step);
      if (at >= keys.length - 1) this.stop(), this.requestRender();
      else this.go(keys[at + 1]);
    }, 1600);
    this.requestRender();
  }

  render(lab) {
    const traced = this.#trace(lab);
    const index = shownIndex(traced.keys, this.step);
    const step = traced.steps[index];
    this.#stepper.at(index, traced.keys.length);
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    place(root, [...this.#heading(), ...this.#trained.nodes(this.t), ...this.#readerNotes(traced), this.#controls(traced, index), this.#tabs(traced), this.#stepPanel(step, traced)]);
    this.#stepper.refocus();
  }

  /** With weights="reader": its notes and pickers, and what the steps are (once loaded). */
  #readerNotes(traced) {
    if (!this.#reader.on) return [];
    const t = this.t;
    const out = this.#reader.nodes(t, traced.reader?.truncated);
    if (traced.reader) {
      const { model, layer, count } = traced.reader;
      const about = t('reader.steps.about', { head: traced.headIndex + 1, layer: layer + 1, model: t(`reader.modelName.${model}`), count, mask: model === 'decoder' ? t('reader.steps.causal') : '' });
      out.push(this.keep('reader-steps', about, () => el('p', { class: 'note', 'data-role': 'reader-steps', text: about })));
    }
    return out;
  }

  /**
   * The reader's steps for head `head` of layer `layer` (reader.attend's trace, run once per sentence
   * and model), as the panel's traced result: a model of the pieces read, with no X (it stays inside).
   */
  #readerTrace({ reader }) {
    const sentence = this.#reader.sentence;
    const name = this.#reader.model;
    const runKey = `${this.language}\u0000${name}\u0000${sentence}`;
    let kept = this.#readerRuns.get(name);
    if (kept?.key !== runKey || kept.reader !== reader) this.#readerRuns.set(name, (kept = { key: runKey, reader, run: reader.attend(sentence, { model: name, trace: true }) }));
    const { run } = kept;
    const { heads, dModel } = reader.models[name];
    const layer = this.#reader.layer;
    const headIndex = Math.min(this.headIndex, heads - 1);
    const key = `reader|${runKey}|${layer}|${headIndex}`;
    if (this.#traced?.key === key) return this.#traced;
    const n = run.tokens.length;
    const model = { mode: 'reader', tokens: run.tokens, n, given: new Set(), config: { heads, dModel, dK: dModel / heads, mask: name === 'decoder' ? 'causal' : 'none', validLen: n } };
    const steps = headTraceSteps(run.steps[layer][headIndex]);
    const result = { steps: run.steps[layer][headIndex] };
    const byKey = Object.fromEntries(steps.map((s) => [s.key, s]));
    const reading = { model: name, layer, count: name === 'decoder' ? n - 1 : n, truncated: run.truncated };
    this.#traced = { key, inputs: null, lab: null, model, headIndex, result, steps, byKey, keys: steps.map((s) => s.key), trained: true, reader: reading };
    return this.#traced;
  }

  /** The model and its trace, kept while the settings, head and inputs stay (a change of step only redraws). */
  #trace(lab) {
    const loaded = this.#reader.use();
    if (loaded) return this.#readerTrace(loaded);
    const { config, inputs } = this.#trained.use(this.config(), this.inputs);
    const key = `${JSON.stringify(config)}|${this.headIndex}`;
    const kept = this.#traced;
    if (kept?.key === key && kept.inputs === inputs && kept.lab === lab) return kept;
    const model = buildModel(config, inputs, { accepts: OWN_NUMBERS });
    const headIndex = Math.min(this.headIndex, model.config.heads - 1);
    const { result, steps } = traceSteps(lab, model, headIndex);
    const byKey = Object.fromEntries(steps.map((s) => [s.key, s]));
    this.#traced = { key, inputs, lab, model, headIndex, result, steps, byKey, keys: steps.map((s) => s.key), trained: this.#trained.ready !== null };
    return this.#traced;
  }

  #heading() {
    const { t, language: lang } = this;
    return [this.keep('h2', lang, () => el('h2', { text: t('steps.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro' }, ...mathNodes(t('steps.intro'))))];
  }

  /** Previous / play / next, the position and (several heads) the head picker; kept while they show the same. */
  #controls({ steps, model, headIndex }, index) {
    const t = this.t;
    const heads = model.config.heads;
    const playing = Boolean(this.#timer);
    return this.keep('nav', `${this.language}|${index}|${steps.length}|${playing}|${heads}|${headIndex}`, () => {
      const play = el('button', { type: 'button', 'data-key': 'play', part: 'button', 'aria-pressed': String(playing), text: playing ? `⏸ ${t('steps.pause')}` : `▶ ${t('steps.play')}`, onclick: () => this.play() });
      const labels = { group: t('steps.list'), prev: t('steps.prev'), next: t('steps.next'), position: t('steps.position', { i: index + 1, n: steps.length }) };
      return this.#stepper.group(labels, { middle: [play], after: heads > 1 ? [this.#headPicker(heads, headIndex)] : [] });
    });
  }

  #headPicker(heads, headIndex) {
    const t = this.t;
    const select = el('select', { 'data-key': 'head', 'aria-label': t('steps.head') });
    for (let h = 0; h < heads; h++) select.append(el('option', { value: String(h), text: t('heads.head', { h: h + 1 }) }));
    select.value = String(headIndex);
    select.addEventListener('change', () => {
      this.setAttribute('head', select.value);
      this.emit('attention-step', { step: this.step, head: Number(select.value) });
    });
    return el('label', { class: 'row' }, el('span', { text: t('steps.head') }), select);
  }

  /** The steps as tabs, kept while the steps and language stay (their scroll position too). */
  #tabs(traced) {
    const { steps, keys, headIndex } = traced;
    return this.#stepper.tablist(`${this.language}|${keys.join()}|${headIndex}`, () => ({
      label: this.t('steps.list'),
      tabs: steps.map((s, k) => ({ key: s.key, content: `${k + 1}. ${this.#stepName(s, traced)}` })),
      subscript: (base, sub) => this.t('steps.subscript', { base, sub }),
    }));
  }

  /** A step's name; a head's scores and output name that head's slices (Q⁽²⁾K⁽²⁾ᵀ, V⁽²⁾). */
  #stepName(step, { model, headIndex }) {
    const t = this.t;
    if (step.given) return t('step.weightsGiven');
    if (!step.head || model.config.heads === 1 || !['scores', 'head-output'].includes(step.key)) return t(`step.${step.key}`);
    return t(`step.${step.key}Head`, { s: headMark(headIndex + 1) });
  }

  /** The step itself: title, explanation, formula with live shape, heatmap, notes, operands. */
  #stepPanel(step, traced) {
    const panel = (this.#panel ??= el('section', { id: 'step-panel', role: 'tabpanel', part: 'step' }));
    panel.setAttribute('aria-labelledby', `tab-${step.key}`);
    panel.dataset.step = step.key;
    const heat = this.#mainHeatmap(step, traced);
    heat.el.dataset.role = 'main';
    place(panel, [...this.#stepText(step, traced), this.#formulaOf(step, traced.model), heat.el, ...stepNotes(step, traced, this.t), ...this.#operandBox(step, traced)]);
    return panel;
  }

  #stepText(step, traced) {
    const { model, headIndex } = traced;
    const t = this.t;
    const name = this.#stepName(step, traced);
    const title = step.head && model.config.heads > 1 ? `${name} · ${t('heads.head', { h: headIndex + 1 })}` : name;
    // The author's X or weights are explained as theirs, not as drawn from the seed or computed.
    const explain = (step.key === 'X' && model.given.has('X')) || step.given ? `explain.${step.key}Given` : `explain.${step.key}`;
    return [this.keep('title', title, () => el('h3', { class: 'step-title', part: 'step-title' }, ...mathNodes(title))), this.keep('explain', `${this.language}|${explain}`, () => el('p', { class: 'muted', text: t(explain) }))];
  }

  #formulaOf(step, model) {
    const formula = (this.#formula ??= el('div', { class: 'formula', part: 'formula' }));
    formula.dataset.tex = step.formula;
    renderTexCached(formula, this.#texCache, stepTex(step, model, this.t('steps.texWhere')));
    return formula;
  }

  #operandBox(step, traced) {
    const t = this.t;
    this.#operands = this.#operandsFor(step, traced);
    if (!this.#operands.length) return [];
    const box = (this.#box ??= el('div', { class: 'operands', part: 'operands' }));
    place(box, [el('p', { class: 'note wide', text: `${t('steps.from')}: ${t('steps.hoverHint')}` }), ...this.#operands.map((op) => op.node ?? op.heat.el)]);
    return [box];
  }

  /** The step's own heatmap (kept per step in the pool). */
  #mainHeatmap(step, traced) {
    const { byKey, model } = traced;
    const t = this.t;
    const tokens = model.tokens;
    const nByN = ['scores', 'scaled', 'masked', 'weights'].includes(step.key);
    return createHeatmap({
      t,
      name: this.#stepName(step, traced),
      file: `attention-${step.key}`,
      matrix: step.matrix,
      rowLabels: tokens,
      colLabels: nByN ? tokens : dims(step.matrix.cols),
      mask: step.mask ?? (step.key === 'weights' ? byKey.masked?.mask : undefined),
      maskedText: step.key === 'weights' ? '0' : undefined,
      tex: step.formula,
      pool: this.#pool,
      // One kept figure per step: a change of step swaps figures instead of rewriting cells.
      slot: `main ${step.key}`,
      base: 1,
      onCell: (i, j) => this.#highlightOperands(i, j),
      ...stepArithmetic(step, traced),
    });
  }

  /** Small heatmaps of what the step was computed from, with how a cell maps onto them. */
  #operandsFor(step, traced) {
    const t = this.t;
    const pool = this.#pool;
    let slot = 0;
    // An operand of more than OPEN_CELLS numbers (W_Q, W_K, W_V, W_O at d_model 64: 4,096) sits in
    // a section of its own, closed at first (the reader's choice then stays) and drawn only while
    // open: drawing it made a first visit of its step take 36–70 ms.
    const operand = (name, matrix, rowLabels, colLabels, map, mask) => {
      const key = `operand ${step.key} ${slot++}`;
      const heat = () => createHeatmap({ t, name, matrix, rowLabels, colLabels, mask, compact: matrix.cols > 8 || matrix.rows > 12, exportable: false, pool, slot: key, base: 1 });
      const cells = matrix.rows * matrix.cols;
      if (cells <= OPEN_CELLS) return { map, heat: heat() };
      const section = this.#largeOperand(key);
      section.firstChild.textContent = t('steps.largeOperand', { name, rows: matrix.rows, cols: matrix.cols, cells, max: OPEN_CELLS });
      drawnOpen.set(section, section.open);
      const shown = section.open ? heat() : null;
      place(section, shown ? [section.firstChild, shown.el] : [section.firstChild]);
      return { map, heat: shown, node: section };
    };
    return operandList(step, traced, t, operand);
  }

  #highlightOperands(i, j) {
    for (const op of this.#operands) op.heat?.highlight(i === null ? {} : op.map(i, j));
  }

  /** The closed-at-first section of one large operand, kept (with its open state) per slot. */
  #largeOperand(key) {
    let section = this.#large.get(key);
    if (!section) {
      section = el('details', { part: 'data', 'data-role': 'large-operand' }, el('summary'));
      section.addEventListener('toggle', () => section.open !== drawnOpen.get(section) && this.requestRender());
      this.#large.set(key, section);
    }
    return section;
  }
}
