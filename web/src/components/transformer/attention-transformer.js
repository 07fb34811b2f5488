// <attention-transformer>: one post-norm Transformer encoder block on the
// reader's sentence, step by step: X (or X_emb·√d_model + P) → multi-head
// attention A → X + A → Y = LayerNorm(X + A) → H_ff = ReLU(YW₁ + b₁) →
// F = H_ff W₂ + b₂ → Y + F → Z = LayerNorm(Y + F) (H alone is the concatenated
// heads). Every matrix is a step of lab.transformerBlock's trace (X_emb·√d_model
// + P from lab.addPositionalEncoding): see block-model.js; the flow of tabs
// is flow.js, what goes with each step step-content.js, the styles styles.js.
// weights="trained": a layer of the shipped grammar model in its own pre-norm order (trained-block.js);
// weights="reader": a layer of the reader trained on real text, in the same order (reader-block.js).
import { AttentionElement } from '../../base.js';
import { readerOutOfRange } from '../../config.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { buildModel } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { Stepper } from '../../stepper.js';
import { onIdle } from '../../scheduler.js';
import { renderTexCached } from '../../tex.js';
import { FFN_FACTOR, FFN_MAX, KEYS, STEPS, ffnWeights, positionalOn, rowStats, traceBlock } from './block-model.js';
import { flowTabs, sublayerLegend } from './flow.js';
import { OPEN_CELLS, StepContent } from './step-content.js';
import { TRANSFORMER_CSS } from './styles.js';
import { ReaderBlock } from './reader-block.js';
import { TrainedBlock } from './trained-block.js';
import { READER_NOTES_CSS } from '../steps/trained-reader.js';

export { FFN_FACTOR, FFN_MAX, OPEN_CELLS, STEPS, ffnWeights, positionalOn, rowStats };

const OVERVIEW = 'Y = \\operatorname{LayerNorm}\\big(X + \\operatorname{MultiHead}(X)\\big),\\qquad Z = \\operatorname{LayerNorm}\\big(Y + \\operatorname{ReLU}(YW_1 + b_1)W_2 + b_2\\big)';
const POSITIONAL_VALUES = ['', 'true', 'on', '1', 'yes', 'positional', 'false', 'off', '0', 'no'];
/** Column labels d1, d2, … or f1, f2, … (dimensions counted from 1, as heads and rows are in the page). */
const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);

export class AttentionTransformer extends AttentionElement {
  static tag = 'attention-transformer';

  #computed = null;
  #ffn = null;
  #pool = new Map();
  #texCache = new Map();
  #stepper = new Stepper({ go: (k) => this.go(KEYS[k]), vertical: true });
  #content = new StepContent({ redraw: (key) => this.#redrawStep(key), explorer: () => this.getRootNode()?.host });
  /** Per step: { wrap, c, lang, operands }, its heatmaps and notes drawn for trace c in language lang. */
  #boxes = new Map();
  #operands = [];
  #nodes = {};
  /** The latest preparation of the other steps (a newer one makes an older one stop). */
  #preparing = null;
  #trained = new TrainedBlock(this);
  #reader = new ReaderBlock(this);

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, TRANSFORMER_CSS);
    adoptPanelStyles(this.shadowRoot, READER_NOTES_CSS);
  }

  /** The shown step: X, attention, residual1, norm1, hidden, ffn, residual2 or output. */
  get step() {
    const s = this.getAttribute('step');
    return KEYS.includes(s) ? s : 'X';
  }
  set step(key) {
    this.setAttribute('step', key);
  }

  /** Whether the positional encoding is added to X before the block. */
  get positional() {
    return positionalOn(this.getAttribute('positional'));
  }
  set positional(on) {
    if (on) this.setAttribute('positional', '');
    else this.removeAttribute('positional');
  }

  go(key) {
    if (key === this.step || !KEYS.includes(key)) return;
    this.step = key;
    this.emit('attention-transformer', { step: key, positional: this.positional });
  }

  outOfRange() {
    const changed = super.outOfRange();
    const step = this.getAttribute('step');
    if (step !== null && step !== '' && !KEYS.includes(step)) changed.push({ name: 'step', given: step, used: 'X' });
    const p = this.getAttribute('positional');
    if (p !== null && !POSITIONAL_VALUES.includes(p.trim().toLowerCase())) changed.push({ name: 'positional', given: p, used: 'on' });
    // The reader reads its own pieces: the page's cut of the sentence to its token limit does not apply.
    return this.#reader.on ? readerOutOfRange(changed) : changed;
  }

  render(lab) {
    const t = this.t;
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    if (typeof lab.transformerBlock !== 'function') {
      root.replaceChildren(el('h2', { text: t('transformer.heading') }), el('p', { class: 'error', 'data-role': 'pending', text: t('transformer.pending') }));
      return;
    }
    const trained = this.#trained.nodes(t);
    if (this.#reader.on) {
      place(root, [el('h2', { text: t('transformer.trained.heading') }), ...trained, ...this.#reader.nodes(t)]);
      return;
    }
    const figures = this.#trained.figures(t);
    if (figures.length) {
      place(root, [el('h2', { text: t('transformer.trained.heading') }), ...trained, ...figures]);
      return;
    }
    const c = this.#compute(lab);
    const index = KEYS.indexOf(this.step);
    this.#stepper.at(index, KEYS.length);
    const labels = { group: t('transformer.list'), prev: t('transformer.prev'), next: t('transformer.next'), position: t('transformer.position', { i: index + 1, n: KEYS.length }) };
    const block = (this.#nodes.block ??= el('div', { class: 'block' }));
    place(block, [this.#flow(c), this.#stepPanel(c, KEYS[index])]);
    place(root, [...this.#header(c), ...trained, this.#stepper.group(labels), block]);
    this.#stepper.refocus();
  }

  /** The model, the block's weights and its trace; kept while nothing it depends on changes. */
  #compute(lab) {
    const config = this.config();
    const positional = this.positional;
    const key = `${JSON.stringify(config)}|${positional}`;
    const kept = this.#computed;
    if (kept && kept.key === key && kept.inputs === this.inputs && kept.lab === lab) return kept;
    const model = buildModel(config, this.inputs);
    const { dModel, seed } = model.config;
    if (this.#ffn?.dModel !== dModel || this.#ffn.seed !== seed) this.#ffn = { dModel, seed, ...ffnWeights(dModel, seed) };
    this.#computed = { key, inputs: this.inputs, lab, ...traceBlock(lab, model, positional, this.#ffn) };
    return this.#computed;
  }

  /** Heading, the block's formula, its sizes, the positional checkbox and the mask in use. */
  #header(c) {
    const t = this.t;
    const { model, ffn } = c;
    const { dModel, dK, heads, mask, validLen } = model.config;
    const overview = (this.#nodes.overview ??= el('div', { class: 'formula', part: 'formula', 'data-role': 'overview' }));
    renderTexCached(overview, this.#texCache, OVERVIEW);
    const capped = ffn.dFf < FFN_FACTOR * dModel;
    const ffText = capped ? t('transformer.ffCapped', { ff: ffn.dFf, full: FFN_FACTOR * dModel, max: FFN_MAX }) : t('transformer.ff', { ff: ffn.dFf });
    const sizes = t('transformer.sizes', { n: model.n, d: dModel, h: heads, dk: dK, ff: ffn.dFf, ffText });
    // Tokens are counted from 1 here, as everywhere on the page: valid length v leaves tokens v + 1 … n as padding.
    const padded = mask === 'padding' && validLen < model.n;
    const maskKey = mask === 'padding' ? (padded ? 'transformer.mask.padding' : 'transformer.mask.paddingNone') : mask === 'causal' ? 'transformer.mask.causal' : 'transformer.mask.none';
    const empty = mask === 'padding' && validLen === 0 ? ` ${t('transformer.mask.empty')}` : '';
    return [
      el('h2', { text: t('transformer.heading') }),
      el('p', { class: 'intro', text: t('transformer.intro') }),
      overview,
      el('p', { class: 'note', 'data-role': 'sizes', text: sizes }),
      this.#controls(t),
      el('p', { class: 'note', 'data-role': 'mask', text: `${t(maskKey, { v: validLen, next: validLen + 1, n: model.n })}${empty}` }),
    ];
  }

  /** The positional checkbox, kept; its label, help and state follow the language and attribute. */
  #controls(t) {
    if (!this.#nodes.controls) {
      const box = el('input', { type: 'checkbox', id: 'positional', 'data-key': 'positional', 'aria-describedby': 'positional-help' });
      box.addEventListener('change', () => {
        this.positional = box.checked;
        this.emit('attention-transformer', { step: this.step, positional: box.checked });
      });
      const text = el('span');
      const help = el('small', { class: 'muted', id: 'positional-help' });
      const form = el('div', { class: 'controls', part: 'controls' }, el('div', { class: 'field' }, el('label', { class: 'check', for: 'positional' }, box, text), help));
      this.#nodes.controls = { form, box, text, help };
    }
    const ui = this.#nodes.controls;
    ui.text.textContent = t('transformer.positional');
    ui.help.textContent = t('transformer.positionalHelp');
    ui.box.checked = this.positional;
    return ui.form;
  }

  /** The block's flow as the stepper's tabs, with the sublayers' legend; kept while the shapes and language stay. */
  #flow(c) {
    const t = this.t;
    const list = this.#stepper.tablist(`${this.language}|${c.model.n}|${c.model.config.dModel}|${c.positional}`, () => flowTabs(t, c));
    if (this.#nodes.flow?.list !== list) this.#nodes.flow = { list, wrap: el('div', { class: 'flow-wrap' }, list, sublayerLegend(t)) };
    return this.#nodes.flow.wrap;
  }

  /** The step: title, formula with the live shape, explanation, then every step's box (this one shown). */
  #stepPanel(c, key) {
    const t = this.t;
    const { ffn, formulas, model, positional } = c;
    const panel = (this.#nodes.panel ??= el('section', { id: 'step-panel', role: 'tabpanel', part: 'step' }));
    panel.setAttribute('aria-labelledby', `tab-${key}`);
    panel.dataset.step = key;
    const titleKey = key === 'X' && positional ? 'XP' : key;
    const wide = key === 'hidden';
    const shape = wide ? 'n \\times d_{\\text{ff}}' : 'n \\times d_{\\text{model}}';
    const formula = (this.#nodes.formula ??= el('div', { class: 'formula', part: 'formula', 'data-role': 'formula' }));
    formula.dataset.tex = formulas[key];
    renderTexCached(formula, this.#texCache, `${formulas[key]} \\qquad \\big[\\, ${shape} = ${model.n} \\times ${wide ? ffn.dFf : model.config.dModel} \\,\\big]`);
    const explainKey = wide && ffn.dFf < FFN_FACTOR * model.config.dModel ? 'hiddenCapped' : titleKey;
    const explain = el('p', { class: 'muted', 'data-role': 'explain', text: t(`transformer.explain.${explainKey}`, { ff: ffn.dFf, max: FFN_MAX }) });
    place(panel, [el('h3', { class: 'step-title', text: t(`transformer.step.${titleKey}`) }), formula, explain, this.#stepBoxes(c, key)]);
    return panel;
  }

  /**
   * Each step's heatmaps and notes are kept in a box of their own, drawn when the step is shown
   * and the trace or language changed since; the other steps' boxes stay in the document, skipped
   * (content-visibility: hidden keeps their layout for when they are shown again) and inert. A
   * step change then costs no cell writes and no layout of a 2,048-cell table; a seed change
   * redraws the step on screen at once, the others when the page is next idle (#prepareOthers).
   */
  #stepBoxes(c, key) {
    let box = this.#boxes.get(key);
    if (!box) this.#boxes.set(key, (box = { wrap: el('div', { class: 'step-box', 'data-step': key }), operands: [] }));
    if (box.c !== c || box.lang !== this.language) this.#drawBox(box, c, key);
    this.#operands = box.operands;
    for (const [k, b] of this.#boxes) {
      const off = k !== key;
      if (b.wrap.classList.contains('off') === off) continue;
      b.wrap.classList.toggle('off', off);
      b.wrap.inert = off;
      if (off) for (const op of b.operands) op.heat.highlight({});
    }
    const boxes = (this.#nodes.boxes ??= el('div', { class: 'step-boxes' }));
    place(boxes, [...this.#boxes.values()].map((b) => b.wrap));
    this.#prepareOthers(c, key);
    return boxes;
  }

  /**
   * While the page is idle, draw the other steps' boxes for this trace and language, nearest
   * first (one per idle period), hidden and inert like any box not shown: a first visit of a step
   * then only shows its box (at 32 tokens, d_model 64: 37 ms of script, draw and layout before).
   */
  #prepareOthers(c, key) {
    const at = KEYS.indexOf(key);
    const lang = this.language;
    const work = [];
    for (let d = 1; d < KEYS.length; d++) for (const i of [at + d, at - d]) if (KEYS[i]) work.push(KEYS[i]);
    const run = (this.#preparing = {});
    const next = (deadline) => {
      // A new trace, step or language: the render that made it has scheduled its own preparation.
      if (this.#preparing !== run || !this.isConnected || this.#computed !== c || this.language !== lang) return;
      while (work.length && this.#boxes.get(work[0])?.c === c && this.#boxes.get(work[0]).lang === lang) work.shift();
      if (work.length && deadline.timeRemaining() > 8) this.#prepareBox(c, work.shift());
      if (work.length) onIdle(next);
    };
    onIdle(next);
  }

  /** Step `key`'s box drawn for trace c while another step is shown: hidden and inert. */
  #prepareBox(c, key) {
    let box = this.#boxes.get(key);
    if (!box) this.#boxes.set(key, (box = { wrap: el('div', { class: 'step-box off', 'data-step': key, inert: '' }), operands: [] }));
    this.#drawBox(box, c, key);
    if (!box.wrap.isConnected) this.#nodes.boxes.append(box.wrap);
  }

  /** Step `key`'s main heatmap and what goes with it, into its box. */
  #drawBox(box, c, key) {
    const t = this.t;
    const { ffn, matrices, formulas, model } = c;
    const wide = key === 'hidden';
    const colLabels = wide ? dims(ffn.dFf, 'f') : dims(model.config.dModel, 'd');
    const name = `${t(`transformer.name.${key}`)} (${wide ? 'n×d_ff' : 'n×d_model'})`;
    const tex = formulas[key].split('=')[0].trim() || undefined;
    const main = createHeatmap({ base: 1, t, name, file: `transformer-${key}`, matrix: matrices[key], rowLabels: model.tokens, colLabels, tex, pool: this.#pool, slot: `main-${key}`, onCell: (i, j) => this.#highlightOperands(i, j) });
    main.el.dataset.matrix = key;
    main.el.dataset.role = 'main';
    const { items, operands } = this.#content.build(key, c, t, this.#pool);
    place(box.wrap, [main.el, ...items]);
    Object.assign(box, { c, lang: this.language, operands });
  }

  /** A step's operands section was opened or closed by the reader: draw that step again. */
  #redrawStep(key) {
    const box = this.#boxes.get(key);
    if (box) box.c = null;
    this.requestRender();
  }

  #highlightOperands(i, j) {
    for (const op of this.#operands) op.heat.highlight(i === null ? {} : op.map(i, j));
  }
}
