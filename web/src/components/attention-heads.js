// <attention-heads>: every head's attention weights side by side, then the
// concatenated head outputs and the output after W_O, from one traced call.
// weights="trained": the heads of one layer (`layer`) of the shipped grammar model on the
// sentence (steps/trained-grammar.js, trained/grammar-stream.js).
// weights="reader": the model view of the reader trained on real text, every layer × head of its
// encoder or decoder (`reader-model`) at once (steps/trained-reader.js, reader-model-view.js).
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { cellArithmetic } from '../cell-arithmetic.js';
import { onOneScale } from '../colors.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { ownResult } from '../own-trace.js';
import { renderTexCached } from '../tex.js';
import { traceMask, traceStep } from '../trace-view.js';
import { dkRelation } from './steps/dk-relation.js';
import { headMark } from './steps/trace-steps.js';
import { DEFAULT_GRAMMAR, TrainedGrammar } from './steps/trained-grammar.js';
import { READER_NOTES_CSS, TrainedReader } from './steps/trained-reader.js';
import { readerOutOfRange } from '../config.js';
import { READER_VIEW_CSS, readerModelView } from './reader-model-view.js';
import { adoptPanelStyles } from '../panel-styles.js';

/** Column labels d1, d2, … (counted from 1, as heads are). */
const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);

/** Head k's symbols in its weights' arithmetic, as its formulas write them: a⁽²⁾ = softmax(S′⁽²⁾). */
function headSymbols(k) {
  const h = headMark(k + 1);
  return { value: `a${h}`, x: `s′${h}`, from: `S′${h}` };
}

/** Head k's matrices for the arithmetic of its cells (cell-arithmetic.js): its Q, K, V, scores, softmax input, weights, output. */
function headMatrices(result, k) {
  const of = (id) => traceStep(result, id, k);
  const logits = of('masked') ?? of('scaled');
  return { Q: of('Q')?.matrix, K: of('K')?.matrix, V: of('V')?.matrix, scores: of('scores')?.matrix, scaled: of('scaled')?.matrix, logits: logits?.matrix, mask: of('masked')?.mask, weights: of('weights')?.matrix, output: of('output')?.matrix };
}

export class AttentionHeads extends AttentionElement {
  static tag = 'attention-heads';

  #pool = new Map();
  #texCache = new Map();
  #formula = null;
  #grid = null;
  #row = null;
  #trained = new TrainedGrammar(this, { panel: 'heads', layers: true });
  #reader = new TrainedReader(this, { panel: 'heads' });
  /** The model view's kept parts (reader-model-view.js). */
  #readerUi = { pool: new Map(), maps: new Map() };

  /** With the reader shown, the page's cut of the sentence to its token limit does not apply (the reader says its own). */
  outOfRange() {
    const changed = super.outOfRange();
    return this.#reader.on ? readerOutOfRange(changed) : changed;
  }

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, READER_NOTES_CSS + READER_VIEW_CSS);
  }

  render(lab) {
    if (this.#reader.on) return this.#renderReader();
    const used = this.#trained.use(this.config(), this.inputs);
    const model = buildModel(used.config, used.inputs, { accepts: ['seeded', 'x', 'qkv', 'weights'] });
    const { X, Wq, Wk, Wv, Wo, mask, config } = model;
    // The author's Q, K, V or weights (own-trace.js) are read as the library's traced result is.
    const result = X ? lab.multiHeadAttention(X, { heads: config.heads, Wq, Wk, Wv, Wo, mask, trace: true }) : ownResult(lab, model);
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    place(root, [...this.#heading(model), ...this.#trained.nodes(this.t), this.#headsGrid(result, model), ...this.#outputs(result, model)]);
  }

  /** weights="reader": the heading, the weights choice, the reader's notes and its model view (once loaded). */
  #renderReader() {
    const { t, language: lang } = this;
    const root = this.root;
    if (root.getAttribute('lang') !== lang) root.setAttribute('lang', lang);
    const heading = [this.keep('h2', lang, () => el('h2', { text: t('heads.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('heads.intro') }))];
    const loaded = this.#reader.use();
    const shown = loaded && readerModelView({ t, language: lang, reader: loaded.reader, sentence: this.#reader.sentence, model: this.#reader.model, ui: this.#readerUi });
    place(root, [...heading, ...this.#trained.nodes(t), ...this.#reader.nodes(t, shown?.view.truncated), ...(shown?.nodes ?? [])]);
  }

  /** Heading, introduction, the formula for h heads, the d_k relation, a note on the author's numbers and (one head) a note. */
  #heading({ config, mode }) {
    const heads = config.heads;
    const { t, language: lang } = this;
    const out = [this.keep('h2', lang, () => el('h2', { text: t('heads.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('heads.intro') }))];
    // Why several heads, and what the maps below show of it (the sentence: the trained model's default, tests/js/heads-why.test.js).
    out.push(this.keep('why', lang, () => el('p', { class: 'note', 'data-role': 'why-heads', text: t('heads.why') })));
    out.push(this.keep('look', lang, () => el('p', { class: 'note', 'data-role': 'look-heads', text: t('heads.look', { sentence: DEFAULT_GRAMMAR.en }) })));
    if (mode === 'weights') return [...out, this.#note('own', t('heads.ownWeights', { h: heads }))];
    const formula = (this.#formula ??= el('div', { class: 'formula', part: 'formula' }));
    // Head i's operands are its n×d_k slices, written as the steps panel writes them: Q^{(i)}, K^{(i)}, V^{(i)}.
    const projection = mode === 'qkv' ? '' : ',\\quad Q^{(i)} = XW_Q^{(i)}';
    renderTexCached(formula, this.#texCache, `O^{(i)} = \\operatorname{softmax}\\!\\Big(\\frac{Q^{(i)} K^{(i)\\top}}{\\sqrt{d_k}}\\Big) V^{(i)}${projection},\\quad O = \\operatorname{Concat}(O^{(1)},\\dots,O^{(${heads})})\\,W_O`);
    out.push(formula);
    if (mode === 'qkv') out.push(this.#note('own', t('heads.ownQKV', { h: heads, dk: config.dK })));
    else {
      const r = dkRelation(config, true);
      out.push(this.keep('dk', `${lang}|${r.key}|${JSON.stringify(r.params)}`, () => el('p', { class: r.holds ? 'note' : 'warn', 'data-role': 'dk-relation', text: t(r.key, r.params) })));
    }
    if (heads === 1) out.push(this.keep('single', lang, () => el('p', { class: 'note', text: t('heads.single') })));
    return out;
  }

  #note(role, text) {
    return this.keep(role, text, () => el('p', { class: 'note', 'data-role': 'own-numbers', text }));
  }

  /** Each head's attention weights, side by side, on one colour scale (one legend reads for all). */
  #headsGrid(result, { tokens, mode }) {
    const t = this.t;
    // Given weights are the author's, not this page's softmax.
    const weightsName = t(mode === 'weights' ? 'step.weightsGiven' : 'step.weights');
    const grid = (this.#grid ??= el('div', { class: 'grid', part: 'heads' }));
    // One colour means one weight in every head (colors.js onOneScale: copies carrying the shared range, to the exports too).
    const shown = onOneScale(result.heads.map((_, k) => traceStep(result, 'weights', k).matrix), result.heads.map((_, k) => traceMask(result, k)));
    const figures = result.heads.map((head, k) => {
      const weights = traceStep(result, 'weights', k);
      const name = `${t('heads.head', { h: k + 1 })} · ${weightsName}`;
      const m = headMatrices(result, k);
      const h = createHeatmap({ t, name, file: `head-${k + 1}-weights`, matrix: shown[k], mask: traceMask(result, k), maskedText: '0', rowLabels: tokens, colLabels: tokens, compact: tokens.length > 8, tex: weights.formula, pool: this.#pool, slot: `head-${k}`, base: 1, arithmetic: (i, j) => cellArithmetic('weights', i, j, m), symbols: headSymbols(k) });
      h.el.dataset.head = String(k);
      return h.el;
    });
    place(grid, figures);
    return grid;
  }

  /**
   * The heads' outputs side by side, and the output after W_O (those the result has: none for given
   * weights). A cell of the concatenation is its head's output o_ic = Σ_j a_ij v_jc; one of the
   * output, the product of the concatenation's row and W_O's column.
   */
  #outputs(result, { tokens, Wo }) {
    const t = this.t;
    const figure = (id, name, arithmetic, symbols) => {
      const step = traceStep(result, id);
      return step && createHeatmap({ t, name, file: id, matrix: step.matrix, rowLabels: tokens, colLabels: dims(step.matrix.cols), tex: step.formula, pool: this.#pool, slot: id, base: 1, arithmetic, symbols }).el;
    };
    const concat = traceStep(result, 'concat')?.matrix;
    const output = traceStep(result, 'output')?.matrix;
    const heads = result.heads.map((_, k) => headMatrices(result, k));
    const dv = heads[0]?.output?.cols ?? 1;
    // Column c of the concatenation is column c mod d_v of head ⌊c / d_v⌋'s output, named as that head's (o⁽²⁾).
    const ofHead = (i, c) => {
      const h = Math.floor(c / dv);
      const a = cellArithmetic('output', i, c % dv, heads[h]);
      const mark = headMark(h + 1);
      return a && { ...a, symbols: { value: `o${mark}`, a: `a${mark}`, b: `v${mark}`, from: `A${mark}, V${mark}` } };
    };
    const product = (i, j) => cellArithmetic('product', i, j, { A: concat, B: Wo, C: output });
    const figures = [figure('concat', t('heads.concat'), ofHead), figure('output', t('heads.output'), Wo && concat ? product : undefined, { value: 'o', a: 'h', b: 'w', from: 'H, W_O' })].filter(Boolean);
    if (!figures.length) return [];
    const row = (this.#row ??= el('div', { class: 'grid' }));
    place(row, figures);
    return [row];
  }
}
