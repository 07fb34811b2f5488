// <attention-backward>: the backward pass of one head, step by step: the forward recap (S, P, O),
// then dO → dV = Pᵀ dO → dP = dO Vᵀ → dS = P ∘ (dP − rowsum(P ∘ dP)) → dQ, dK, each a heatmap of
// lab.attentionBackward's trace with its formula, and a score-scale slider showing dS vanish as
// the softmax saturates. It renders with the training build, loaded only once the panel is shown.
// weights="trained": head `head` of layer `layer` of the shipped grammar model on the sentence
// (steps/trained-grammar.js): its Q, K, V are that layer's input times its trained W_Q, W_K, W_V.
// weights="reader": head `head` of layer `layer` of the reader trained on real text (its encoder or
// decoder, `reader-model`), Q, K, V from reader.attend's trace (reader-head.js; the pickers and
// notes are steps/trained-reader.js's).
import { AttentionElement } from '../../base.js';
import { readerOutOfRange } from '../../config.js';
import { el } from '../../dom.js';
import { localTex } from '../../format.js';
import { createHeatmap, place } from '../../heatmap.js';
import { buildModel } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { Stepper } from '../../stepper.js';
import { renderTexCached } from '../../tex.js';
import { getTrainingLab } from '../../training-lab.js';
import { STEP_KEYS, WEIGHT_OF, backwardPass, headInputs, parseFactor, saturationSweep, targetFor } from './backward-model.js';
import { TrainedGrammar } from '../steps/trained-grammar.js';
import { READER_NOTES_CSS, TrainedReader } from '../steps/trained-reader.js';
import { readerHeadInputs } from './reader-head.js';
import { SaturationBox } from './saturation.js';
import { BACKWARD_CSS } from './styles.js';

/** Column labels d1, d2, … (dimensions counted from 1, as heads and rows are in the page). */
const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);
const FORWARD = new Set(['S', 'P', 'O']);
/** Each step's formula: the library's, with what the panel adds (the loss; P is the trace's A). */
const TEX_EXTRA = { dO: ' = O - T \\qquad L = \\tfrac{1}{2}\\lVert O - T \\rVert^2', P: ' \\qquad P \\equiv A' };

export class AttentionBackward extends AttentionElement {
  static tag = 'attention-backward';

  #stepper = new Stepper({ go: (k) => this.go(STEP_KEYS[k]) });
  #saturation = new SaturationBox(this);
  #inputs = null;
  #pass = null;
  #pool = new Map();
  #poolShape = '';
  #texCache = new Map();
  #formula = null;
  #panel = null;
  #shown = null;
  #trained = new TrainedGrammar(this, { panel: 'backward', layers: true });
  #reader = new TrainedReader(this, { panel: 'backward', layers: true, heads: true });

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, BACKWARD_CSS);
    adoptPanelStyles(this.shadowRoot, READER_NOTES_CSS);
  }

  /** The training build, fetched once the panel is first shown (an explorer tab not chosen fetches nothing). */
  loadLibrary() {
    const shown = this.hidden ? new Promise((resolve) => (this.#shown = resolve)) : Promise.resolve();
    return shown.then(getTrainingLab);
  }

  attributeChangedCallback(name, before, after) {
    if (name === 'hidden' && !this.hidden && this.#shown) {
      this.#shown();
      this.#shown = null;
    }
    super.attributeChangedCallback(name, before, after);
  }

  /** The shown step: 'S', 'P', 'O', 'dO', 'dV', 'dP', 'dS', 'dQ' or 'dK' (default 'S'). */
  get step() {
    const s = this.getAttribute('step');
    return STEP_KEYS.includes(s) ? s : STEP_KEYS[0];
  }
  set step(key) {
    this.setAttribute('step', key);
  }

  /** The factor c of the score scale c/√d_k (the `score-scale` attribute): 0.25, 0.5, 1 (default), 2, 4, …, 128. */
  get scoreScale() {
    return parseFactor(this.getAttribute('score-scale'));
  }
  set scoreScale(c) {
    this.setAttribute('score-scale', String(c));
  }

  /** The head shown (the `head` attribute, from 0; clamped to the heads there are). */
  get headIndex() {
    return Math.max(0, Math.floor(Number(this.getAttribute('head'))) || 0);
  }

  /** Show step `key` and fire `attention-backward` with { step, scoreScale }. */
  go(key) {
    if (!STEP_KEYS.includes(key) || key === this.step) return;
    this.step = key;
    this.changed();
  }

  changed() {
    this.emit('attention-backward', { step: this.step, scoreScale: this.scoreScale });
  }

  outOfRange() {
    const changed = this.noteAttribute(super.outOfRange(), 'score-scale', this.scoreScale);
    const step = this.getAttribute('step');
    if (step !== null && step !== '' && step !== this.step) changed.push({ name: 'step', given: step, used: this.step });
    // The reader reads its own pieces: the page's cut of the sentence to its token limit does not apply.
    return this.#reader.on ? readerOutOfRange(changed) : changed;
  }

  render(lab) {
    const c = this.#compute(lab);
    const index = STEP_KEYS.indexOf(this.step);
    this.#stepper.at(index, STEP_KEYS.length);
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const step = c.pass.steps[index];
    place(this.root, [...this.#heading(c), ...this.#trained.nodes(this.t), ...this.#readerNotes(c), this.#nav(index), this.#tabs(), this.#stepPanel(step, c), this.#saturation.sync(this.t, c)]);
    this.#stepper.refocus();
  }

  /** With weights="reader": its notes and pickers, and (once loaded) which head of which layer Q, K, V are. */
  #readerNotes(c) {
    if (!this.#reader.on) return [];
    const t = this.t;
    const out = this.#reader.nodes(t, c.truncated);
    if (!c.reader) return out;
    const { model, layer } = c.reader;
    const text = t('backward.reader.about', { head: c.head + 1, layer: layer + 1, model: t(`reader.modelName.${model}`), count: model === 'decoder' ? c.model.n - 1 : c.model.n, mask: model === 'decoder' ? t('reader.steps.causal') : '' });
    out.push(this.keep('reader-backward', text, () => el('p', { class: 'note', 'data-role': 'reader-backward', text })));
    return out;
  }

  /** The reader's head (once loaded): its Q, K, V, the target and the sweep, kept while the reader, model, layer, head and sentence stay. */
  #readerInputs(lab, { reader }) {
    const model = this.#reader.model;
    const layer = this.#reader.layer;
    const { seed } = this.config();
    const key = `reader|${this.language}|${model}|${layer}|${this.#reader.head}|${seed}|${this.#reader.sentence}`;
    const kept = this.#inputs;
    if (kept?.key === key && kept.given === reader && kept.lab === lab) return;
    const run = readerHeadInputs(reader, model, this.#reader.sentence, { layer, head: this.#reader.head, seed });
    this.#inputs = { key, given: reader, lab, model: run.model, head: run.head, inputs: run.inputs, sweep: saturationSweep(lab, run.inputs), truncated: run.truncated, reader: { model, layer } };
    this.#pass = null;
  }

  /** The head's Q, K, V, the target and the sweep, kept while the settings stay; the pass at the chosen factor. */
  #compute(lab) {
    const loaded = this.#reader.use();
    if (loaded) {
      this.#readerInputs(lab, loaded);
      return this.#withPass(lab);
    }
    const { config, inputs: given } = this.#trained.use(this.config(), this.inputs);
    const key = `${JSON.stringify(config)}|${this.headIndex}`;
    const kept = this.#inputs;
    if (kept?.key !== key || kept.given !== given || kept.lab !== lab) {
      const model = buildModel(config, given);
      const { head, Q, K, V } = headInputs(lab, model, this.headIndex);
      const inputs = { Q, K, V, X: model.X, mask: model.mask, T: targetFor(model.n, V.cols, model.config.seed) };
      this.#inputs = { key, given, lab, model, head, inputs, sweep: saturationSweep(lab, inputs) };
      this.#pass = null;
    }
    return this.#withPass(lab);
  }

  /** The kept inputs with the pass at the chosen factor (computed again when the factor changes). */
  #withPass(lab) {
    const factor = this.scoreScale;
    if (this.#pass?.factor !== factor) this.#pass = backwardPass(lab, this.#inputs.inputs, factor);
    return { ...this.#inputs, pass: this.#pass, factor };
  }

  #heading({ model, head, pass, reader }) {
    const t = this.t;
    const { heads, dK } = model.config;
    const out = [el('h2', { text: t('backward.heading') }), el('p', { class: 'intro', text: t('backward.intro', { h: head + 1 }) })];
    // The reader's head is said by its own note (its heads are the model's, not the shared settings').
    if (heads > 1 && !reader) out.push(el('p', { class: 'note', 'data-role': 'head', text: t('backward.headNote', { heads, h: head + 1, from: `d${head * dK + 1}`, to: `d${(head + 1) * dK}` }) }));
    out.push(el('p', { class: 'note', 'data-role': 'loss', text: t('backward.loss', { loss: Number(pass.loss.toPrecision(5)) }) }));
    return out;
  }

  #nav(index) {
    const t = this.t;
    return this.keep('nav', `${this.language}|${index}`, () =>
      this.#stepper.group({ group: t('backward.list'), prev: t('backward.prev'), next: t('backward.next'), position: t('backward.position', { i: index + 1, n: STEP_KEYS.length }) }),
    );
  }

  /** The steps as tabs: the forward recap (dashed), then the backward pass. */
  #tabs() {
    const t = this.t;
    return this.#stepper.tablist(this.language, () => ({
      label: t('backward.list'),
      tabs: STEP_KEYS.map((key, k) => ({ key, content: `${k + 1}. ${t(`backward.step.${key}`)}`, className: FORWARD.has(key) ? 'forward' : undefined })),
    }));
  }

  /** The step: title, explanation, formula, heatmap. */
  #stepPanel(step, c) {
    const t = this.t;
    const panel = (this.#panel ??= el('section', { id: 'step-panel', role: 'tabpanel', part: 'step' }));
    panel.setAttribute('aria-labelledby', `tab-${step.key}`);
    panel.dataset.step = step.key;
    const scale = c.factor === 1 ? `1/√${c.model.config.dK} = ${Number(c.pass.scale.toPrecision(4))}` : `${c.factor}/√${c.model.config.dK} = ${Number(c.pass.scale.toPrecision(4))}`;
    const explain = this.keep('explain', `${this.language}|${step.key}|${scale}`, () => el('p', { class: 'muted', 'data-role': 'explain', text: t(`backward.explain.${step.key}`, { scale }) }));
    const title = this.keep('title', `${this.language}|${step.key}`, () => el('h3', { class: 'step-title', text: t(`backward.name.${step.key}`) }));
    place(panel, [title, explain, this.#formulaOf(step), this.#heatmap(step, c).el, ...this.#rowNote(step, c), ...this.#memoryNote(step, c), ...this.#weightGrad(step, c)]);
    return panel;
  }

  /** Under P: the memory P takes, and how FlashAttention-2 does without storing it. */
  #memoryNote(step, { model }) {
    if (step.key !== 'P') return [];
    return [el('p', { class: 'note', 'data-role': 'memory', text: this.t('backward.memory', { n: model.n, cells: model.n * model.n }) })];
  }

  /** Under dQ, dK, dV: the gradient of the head's columns of W_Q, W_K, W_V, dW = Xᵀ dG (d_model × d_k). */
  #weightGrad(step, { model, head }) {
    const w = WEIGHT_OF[step.key];
    if (!w || !step.weightGrad) return [];
    const t = this.t;
    const { dK } = model.config;
    const M = step.weightGrad;
    const from = head * dK;
    const heat = createHeatmap({
      base: 1,
      t,
      name: t(`backward.weightGrad.${step.key}`, { dm: M.rows, dk: M.cols }),
      file: `backward-dW${w}`,
      matrix: M,
      rowLabels: dims(M.rows),
      colLabels: Array.from({ length: M.cols }, (_, j) => `d${from + j + 1}`),
      pool: this.#pool,
      slot: `weight ${step.key}`,
    });
    heat.el.dataset.matrix = `dW${w}`;
    const note = el('p', { class: 'note', 'data-role': 'weight-grad', text: t('backward.weightNote', { g: step.key, w, from: `d${from + 1}`, to: `d${from + dK}` }) });
    return [note, heat.el];
  }

  /** Under dS: the most and the least saturated rows of P, and how large their rows of dS are. */
  #rowNote(step, { model, pass }) {
    if (step.key !== 'dS' || model.n < 2) return [];
    const { most, least } = pass.rows;
    const n = (x) => String(Number(x.toPrecision(3)));
    const vars = { i: most.row + 1, s: model.tokens[most.row], p: n(most.maxP), a: n(most.norm), j: least.row + 1, u: model.tokens[least.row], q: n(least.maxP), b: n(least.norm) };
    return [el('p', { class: 'note', 'data-role': 'rows', text: this.t('backward.rows', vars) })];
  }

  #formulaOf(step) {
    const formula = (this.#formula ??= el('div', { class: 'formula', part: 'formula' }));
    const tex = `${step.formula}${TEX_EXTRA[step.key] ?? ''}`;
    formula.dataset.tex = tex;
    renderTexCached(formula, this.#texCache, localTex(tex, { ' where ': this.t('steps.texWhere') }));
    return formula;
  }

  #heatmap(step, { model }) {
    const shape = `${model.n}|${model.config.dK}`;
    if (this.#poolShape !== shape) this.#pool.clear();
    this.#poolShape = shape;
    const tokens = model.tokens;
    const heat = createHeatmap({
      base: 1,
      t: this.t,
      name: this.t(`backward.name.${step.key}`),
      file: `backward-${step.key}`,
      matrix: step.matrix,
      rowLabels: tokens,
      colLabels: step.square ? tokens : dims(step.matrix.cols),
      mask: step.mask,
      maskedText: step.key === 'P' ? '0' : undefined,
      tex: step.formula,
      pool: this.#pool,
      slot: `main ${step.key}`,
    });
    heat.el.dataset.matrix = step.key;
    return heat;
  }
}
