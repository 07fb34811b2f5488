// <attention-cross>: encoder-decoder (cross) attention. Queries come from the
// target sentence (the shared `sentence`), keys and values from the `source`
// sentence: Q = X_tgt W_Q (n×d_k), K = X_src W_K, V = X_src W_V (m rows), the
// weights n×m. Scaled dot-product or Bahdanau-style additive scoring; masks by
// one valid length (1-D) or one per target row (2-D). Every number is the
// library's (cross-model.js): lab.matmul for the projections, the attention call's trace after.
// weights="trained": the shipped dates model on a typed date instead (trained-view.js).
import { AttentionElement } from '../../base.js';
import { el } from '../../dom.js';
import { cellArithmetic } from '../../cell-arithmetic.js';
import { onOneScale } from '../../colors.js';
import { createHeatmap, place } from '../../heatmap.js';
import { buildModel, LIMITS, tokenize } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { renderTexCached } from '../../tex.js';
import { stepsById } from '../../trace-view.js';
import { CrossControls } from './controls.js';
import { HIDDEN, MAX_SOURCE, crossAttention, crossMask, crossTex, defaultSource, fullyMaskedRows } from './cross-model.js';
import { CROSS_CSS } from './styles.js';
import { defaultDate } from './trained-dates.js';
import { TrainedView } from './trained-view.js';

export { DEFAULT_SOURCE, parseValidLens } from './cross-model.js';

/**
 * The operands and output (Q, K, V, O: up to four 32×64 tables, 8,192 cells) are shown open at
 * first only up to this many cells: more cannot be rewritten within a frame on every change. The
 * reader can open (or close) them; their choice then stays.
 */
export const OPEN_CELLS = 2048;
/** Column labels d1, d2, … (counted from 1, as rows and tokens are). */
const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);
/** Hovering weight (i, j) marks target row i in these, source row j in those. */
const TARGET_SLOTS = ['Q', 'Xtgt', 'output'];
const SOURCE_SLOTS = ['K', 'V', 'Xsrc'];

/**
 * The arithmetic of the cells of the figure in `slot` (cell-arithmetic.js): the scores' dot
 * products, their scaling, the weights' softmax and the output's weighted sum, from the library's
 * Q, K, V and trace. Additive scoring: no dot product to show, and the values are X_src.
 */
function arithmeticOf(c, slot) {
  const { steps, result } = c;
  const logits = steps.masked ?? steps.scaled ?? steps.scores;
  const m = { Q: c.Q, K: c.K, V: c.additive ? c.src.X : c.V, scores: steps.scores?.matrix, scaled: steps.scaled?.matrix, logits: logits?.matrix, mask: steps.masked?.mask, weights: result.weights, output: result.output };
  const kind = { scores: 'scores', scaled: 'scaled', weights: 'weights', output: 'output' }[slot];
  if (!kind || (c.additive && kind === 'scores')) return {};
  const symbols = c.additive ? { weights: { x: 's', from: 'S' }, output: { b: 'x', from: 'A, X_src' } }[kind] : undefined;
  return { arithmetic: (i, j) => cellArithmetic(kind, i, j, m), symbols };
}

export class AttentionCross extends AttentionElement {
  static tag = 'attention-cross';

  /** The source's model, kept while its sentence and the settings stay: { key, model }. */
  #src = null;
  /** The parsed `valid-lens` of the last render ({ lens, changed }), or null. */
  #lens = null;
  #controls = new CrossControls(this);
  #pool = new Map();
  #texCache = new Map();
  #formula = null;
  #main = null;
  #operandGrid = null;
  #operands = null;
  /** Whether the last render drew the operands open, and whether the reader has chosen. */
  #operandsDrawn = false;
  #operandsChosen = false;
  #steps = null;
  #trained = new TrainedView(this);

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, CROSS_CSS);
  }

  /** The source sentence as given (cut to MAX_SOURCE characters); absent or empty: the default, as for `sentence`. */
  get source() {
    const s = this.getAttribute('source');
    return (s === null || s === '' ? defaultSource(this.language) : s).slice(0, MAX_SOURCE);
  }

  /** 'dot' (scaled dot-product) or 'additive' (Bahdanau). */
  get scoring() {
    return this.getAttribute('scoring') === 'additive' ? 'additive' : 'dot';
  }

  /** 'random' (seeded weights, the shared settings) or 'trained' (the shipped dates model). */
  get weights() {
    return this.getAttribute('weights') === 'trained' ? 'trained' : 'random';
  }

  /** The date the trained model reads (cut to 64 characters); absent or empty: one in the page's language. */
  get date() {
    const s = this.getAttribute('date');
    return (s === null || s.trim() === '' ? defaultDate(this.language) : s).slice(0, 64);
  }

  outOfRange() {
    const changed = super.outOfRange();
    this.noteAttribute(changed, 'weights', this.weights);
    const given = this.getAttribute('source');
    if (given !== null) {
      const count = tokenize(given, Infinity).length;
      if (count > LIMITS.maxTokens) changed.push({ name: 'source', given: `${count}`, used: `${LIMITS.maxTokens}`, unit: 'tokens' });
      else if (given.length > MAX_SOURCE) changed.push({ name: 'source', given: `${given.length}`, used: `${MAX_SOURCE}`, unit: 'characters' });
    }
    const scoring = this.getAttribute('scoring');
    if (scoring !== null && scoring !== '' && scoring !== this.scoring) changed.push({ name: 'scoring', given: scoring, used: this.scoring });
    if (this.#lens?.changed) changed.push({ name: 'valid-lens', given: this.getAttribute('valid-lens'), used: this.#lens.lens.join(' ') });
    return changed;
  }

  /** The matrices and the library's results for one render. */
  #compute(lab) {
    const target = buildModel(this.config(), this.inputs);
    const { config } = target;
    // The source's model depends only on its sentence and the settings (not on typed inputs).
    // The tokens attribute labels the target: the source is its own sentence's tokens.
    const srcConfig = { ...config, sentence: this.source, tokens: '' };
    const srcKey = JSON.stringify(srcConfig);
    if (this.#src?.key !== srcKey) this.#src = { key: srcKey, model: buildModel(srcConfig) };
    const src = this.#src.model;
    const masking = crossMask(config, this.getAttribute('valid-lens'), target.n, src.n);
    this.#lens = masking.lens;
    const { Q, K, V, result, self } = crossAttention(lab, target, src, this.scoring, masking);
    return { target, src, n: target.n, m: src.n, additive: this.scoring === 'additive', masking, Q, K, V, result, self, steps: stepsById(result.steps) };
  }

  render(lab) {
    const t = this.t;
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const values = { weights: this.weights, date: this.getAttribute('date') ?? '', source: this.source, scoring: this.scoring, lens: this.getAttribute('valid-lens') ?? '' };
    const form = this.#controls.sync(t, values);
    if (this.weights === 'trained') {
      this.#lens = null;
      place(this.root, [el('h2', { text: t('cross.heading') }), el('p', { class: 'intro', text: t('cross.intro') }), form, ...this.#trained.sections(t, this.date)]);
      return;
    }
    const c = this.#compute(lab);
    const heatmaps = this.#heatmaps(c);
    place(this.root, [
      el('h2', { text: t('cross.heading') }),
      el('p', { class: 'intro', text: t('cross.intro') }),
      form,
      el('p', { class: 'note', 'data-role': 'target', text: t('cross.target', { n: c.n }) }),
      ...this.#formulaSection(c),
      ...this.#maskNotes(c),
      ...this.#weightsSection(c, heatmaps),
      this.#operandsSection(c, heatmaps),
      this.#stepsSection(c, heatmaps),
    ]);
  }

  /**
   * This render's heatmaps: `draw(slot, …)` one (kept in its slot between renders, its figure
   * marked data-matrix=slot); `trace(i, j)`: hovering or focusing weight (i, j) marks target row
   * i (its query, its output) and source row j (its key and value, or its encoder state);
   * `compact` for the n×m ones.
   */
  #heatmaps(c) {
    const drawn = {};
    const draw = (slot, name, matrix, rowLabels, colLabels, extra = {}) => {
      const h = createHeatmap({ t: this.t, name, file: `cross-${slot}`, matrix, rowLabels, colLabels, compact: extra.compact ?? matrix.cols > 10, pool: this.#pool, slot, defer: true, base: 1, ...arithmeticOf(c, slot), ...extra });
      h.el.dataset.matrix = slot;
      drawn[slot] = h;
      return h.el;
    };
    const trace = (i, j) => {
      const on = i !== null;
      for (const slot of TARGET_SLOTS) drawn[slot]?.highlight(on ? { rows: [i] } : {});
      for (const slot of SOURCE_SLOTS) drawn[slot]?.highlight(on ? { rows: [j] } : {});
    };
    return { draw, trace, compact: c.n > 10 || c.m > 10 };
  }

  #formulaSection(c) {
    const t = this.t;
    const { dModel, dK } = c.target.config;
    this.#formula ??= el('div', { class: 'formula', part: 'formula' });
    renderTexCached(this.#formula, this.#texCache, crossTex(this.scoring, c.n, c.m, dModel, dK));
    const out = [this.#formula, el('p', { 'data-role': 'shapes', text: t('cross.shapes', { n: c.n, m: c.m }) })];
    if (c.additive) out.push(el('p', { class: 'note', 'data-role': 'bahdanau', text: t('cross.bahdanau', { dh: HIDDEN }) }));
    return out;
  }

  /** The mask in words, and a warning naming the target rows with nothing to attend to. */
  #maskNotes(c) {
    const t = this.t;
    const tokens = c.target.tokens;
    const lens = c.masking.mask?.validLens;
    const text = {
      rows: () => t('cross.mask.rows', { list: tokens.map((tok, i) => `${tok} ${lens[i]}`).join(', ') }),
      // Source tokens are counted from 1 in the text: the first v are seen, padding starts at v + 1.
      padding: () => (lens < c.m ? t('cross.mask.padding', { v: lens, next: lens + 1, pad: c.m - lens }) : t('cross.mask.paddingNone', { v: lens })),
      causal: () => t('cross.mask.causal'),
      none: () => t('cross.mask.none'),
    }[c.masking.kind]();
    const out = [el('p', { class: 'note', 'data-role': 'mask', text })];
    const empty = fullyMaskedRows(c.masking, tokens);
    if (empty.length) out.push(el('p', { class: 'warn', 'data-role': 'fully-masked', text: t('cross.fullyMasked', { rows: empty.join(', ') }) }));
    return out;
  }

  /** The target's self-attention beside the cross-attention weights (whose cells trace their operands). */
  #weightsSection(c, { draw, trace, compact }) {
    const t = this.t;
    const tgt = c.target.tokens;
    this.#main ??= el('div', { class: 'grid' });
    // Both are attention weights, side by side: one colour scale (colors.js onOneScale).
    const [self, cross] = onOneScale([c.self.weights, c.result.weights], [undefined, c.steps.masked?.mask]);
    place(this.#main, [
      draw('self', t('cross.self'), self, tgt, tgt, { compact, exportable: false }),
      draw('weights', t('cross.weights'), cross, tgt, c.src.tokens, { compact, mask: c.steps.masked?.mask, maskedText: '0', onCell: trace }),
    ]);
    return [this.#main, el('p', { class: 'note', text: t('cross.contrast') }), el('p', { class: 'note', text: t('cross.hover') })];
  }

  /** The operands and the output, drawn only while their section is open (open at first when small). */
  #operandsSection(c, { draw }) {
    const t = this.t;
    const { dModel: d, dK: dk } = c.target.config;
    const { n, m, additive, result } = c;
    const cells = additive ? (n + m) * d + n * result.output.cols : (n + 2 * m) * dk + n * result.output.cols;
    if (!this.#operands) {
      // A toggle re-renders unless this render already drew the section so (an automatic open or close).
      const made = el('details', { part: 'data', 'data-role': 'operands', ontoggle: () => made.open !== this.#operandsDrawn && this.requestRender() }, el('summary'));
      made.firstChild.addEventListener('click', () => (this.#operandsChosen = true), { once: true });
      this.#operands = made;
    }
    const section = this.#operands;
    const summary = section.firstChild;
    if (!this.#operandsChosen && section.open !== cells <= OPEN_CELLS) section.open = cells <= OPEN_CELLS;
    this.#operandsDrawn = section.open;
    summary.textContent = t('cross.operands', { list: additive ? 'X_tgt, X_src, O' : 'Q, K, V, O', cells, max: OPEN_CELLS });
    if (!section.open) {
      place(section, [summary]);
      return section;
    }
    const tgt = c.target.tokens;
    const srcTokens = c.src.tokens;
    const mats = additive
      ? [draw('Xtgt', t('cross.Xtgt'), c.target.X, tgt, dims(d, 'd')), draw('Xsrc', t('cross.Xsrc'), c.src.X, srcTokens, dims(d, 'd'))]
      : [draw('Q', t('cross.Q'), c.Q, tgt, dims(dk, 'd')), draw('K', t('cross.K'), c.K, srcTokens, dims(dk, 'd')), draw('V', t('cross.V'), c.V, srcTokens, dims(dk, 'd'))];
    mats.push(draw('output', t(additive ? 'cross.outputAdditive' : 'cross.output'), result.output, tgt, dims(result.output.cols, 'd')));
    this.#operandGrid ??= el('div', { class: 'grid' });
    place(this.#operandGrid, mats);
    place(section, [summary, this.#operandGrid]);
    return section;
  }

  /** The intermediates (scores, scaled, masked), drawn only while their section is open. */
  #stepsSection(c, { draw, compact }) {
    const t = this.t;
    this.#steps ??= el('details', { part: 'data', 'data-role': 'steps', ontoggle: () => this.requestRender() }, el('summary'));
    const details = this.#steps;
    details.firstChild.textContent = t('cross.steps');
    const inner = [details.firstChild];
    const { steps, target, src } = c;
    const show = (id, key, extra = {}) => steps[id] && inner.push(draw(id, t(key), steps[id].matrix, target.tokens, src.tokens, { compact, ...extra }));
    if (details.open) {
      show('scores', c.additive ? 'cross.additiveScores' : 'cross.scores');
      show('scaled', 'cross.scaled');
      show('masked', 'cross.masked', { mask: steps.masked?.mask });
    }
    place(details, inner);
    return details;
  }
}
