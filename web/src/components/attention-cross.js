// <attention-cross>: encoder-decoder (cross) attention. Queries come from the
// target sentence (the shared `sentence`), keys and values from the `source`
// sentence: Q = X_tgt W_Q (n×d_k), K = X_src W_K, V = X_src W_V (m rows), the
// weights n×m. Scaled dot-product or Bahdanau-style additive scoring; masks by
// one valid length (1-D) or one per target row (2-D). Every number is the
// library's: lab.matmul for the projections, the attention call's trace after.
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { adoptPanelStyles } from '../panel-styles.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel, LIMITS, tokenize } from '../model.js';
import { randomMatrix } from '../random.js';
import { renderTexCached } from '../tex.js';

export const DEFAULT_SOURCE = '小猫坐在垫子上';
const MAX_SOURCE = 400;
const HIDDEN = 8;
/**
 * The operands and output (Q, K, V, O: up to four 32×64 tables, 8,192 cells) are shown open at
 * first only up to this many cells: more cannot be rewritten within a frame on every change. The
 * reader can open (or close) them; their choice then stays.
 */
export const OPEN_CELLS = 2048;
const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j}`);

/**
 * Per-row valid lengths from text ("2 3, 5"): one integer in [0, m] per target row.
 * Missing or unreadable entries mean "every source token" (m); extra entries are dropped.
 * Returns { lens, changed } where changed says the text was not used exactly as given.
 */
export function parseValidLens(text, n, m) {
  const parts = String(text ?? '').trim().split(/[\s,;]+/).filter(Boolean);
  const lens = [];
  let changed = parts.length !== n;
  for (let i = 0; i < n; i++) {
    const v = Number(parts[i]);
    if (i >= parts.length || !Number.isFinite(v)) {
      if (i < parts.length) changed = true;
      lens.push(m);
      continue;
    }
    const c = Math.min(m, Math.max(0, Math.round(v)));
    if (c !== v) changed = true;
    lens.push(c);
  }
  return { lens, changed };
}

const CSS = `
#source { width: min(24rem, 80vw); }
#valid-lens { width: min(16rem, 80vw); }
.field small { max-width: 24rem; }
`;

/** The first `keep` columns of a weight matrix (an input, copied, not computed). */
function firstColumns(W, keep) {
  if (W.cols === keep) return W;
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
}

export class AttentionCross extends AttentionElement {
  static tag = 'attention-cross';


  static get observedAttributes() {
    return [...super.observedAttributes, 'source', 'scoring', 'valid-lens'];
  }

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, CSS);
  }

  /** The source sentence as given (cut to 400 characters); absent or empty: the default, as for `sentence`. */
  get source() {
    const s = this.getAttribute('source');
    return (s === null || s === '' ? DEFAULT_SOURCE : s).slice(0, MAX_SOURCE);
  }

  /** 'dot' (scaled dot-product) or 'additive' (Bahdanau). */
  get scoring() {
    return this.getAttribute('scoring') === 'additive' ? 'additive' : 'dot';
  }

  outOfRange() {
    const changed = super.outOfRange();
    const given = this.getAttribute('source');
    if (given !== null) {
      const count = tokenize(given, Infinity).length;
      if (count > LIMITS.maxTokens) changed.push({ name: 'source', given: `${count}`, used: `${LIMITS.maxTokens}`, unit: 'tokens' });
      else if (given.length > MAX_SOURCE) changed.push({ name: 'source', given: `${given.length}`, used: `${MAX_SOURCE}`, unit: 'characters' });
    }
    const scoring = this.getAttribute('scoring');
    if (scoring !== null && scoring !== '' && scoring !== this.scoring) changed.push({ name: 'scoring', given: scoring, used: this.scoring });
    if (this._lens?.changed) changed.push({ name: 'valid-lens', given: this.getAttribute('valid-lens'), used: this._lens.lens.join(' ') });
    return changed;
  }

  /** The matrices and the library's results for one render. */
  compute(lab) {
    const target = buildModel(this.config(), this.inputs);
    const { config } = target;
    // The source's model depends only on its sentence and the settings (not on typed inputs).
    const srcKey = JSON.stringify({ ...config, sentence: this.source });
    if (this._src?.key !== srcKey) this._src = { key: srcKey, model: buildModel({ ...config, sentence: this.source }) };
    const src = this._src.model;
    const n = target.n;
    const m = src.n;
    // The first head's projections (d_model×d_k): one head of cross-attention.
    const Wq = firstColumns(target.Wq, config.dK);
    const Wk = firstColumns(target.Wk, config.dK);
    const Wv = firstColumns(target.Wv, config.dK);

    const lensText = this.getAttribute('valid-lens');
    this._lens = lensText !== null && lensText.trim() !== '' ? parseValidLens(lensText, n, m) : null;
    let mask;
    let maskKind = 'none';
    if (this._lens) {
      mask = { validLens: this._lens.lens };
      maskKind = 'rows';
    } else if (config.mask === 'padding') {
      mask = { validLens: Math.min(config.validLen, m) };
      maskKind = 'padding';
    } else if (config.mask === 'causal') maskKind = 'causal';

    let Q;
    let K;
    let V;
    let result;
    if (this.scoring === 'additive') {
      // Bahdanau: decoder states (here the target embeddings) query encoder states (the source
      // embeddings), which are both the keys and the values.
      const d = config.dModel;
      const seed = config.seed;
      const Aq = randomMatrix(d, HIDDEN, seed * 7 + 21, 1 / Math.sqrt(d));
      const Ak = randomMatrix(d, HIDDEN, seed * 7 + 22, 1 / Math.sqrt(d));
      const wv = randomMatrix(1, HIDDEN, seed * 7 + 23, 1).data;
      result = lab.additiveAttention(target.X, src.X, src.X, { Wq: Aq, Wk: Ak, wv, mask, trace: true });
    } else {
      Q = lab.matmul(target.X, Wq);
      K = lab.matmul(src.X, Wk);
      V = lab.matmul(src.X, Wv);
      result = lab.scaledDotProductAttention(Q, K, V, { mask, trace: true });
    }
    const self = lab.selfAttention(target.X, { Wq, Wk, Wv, mask: config.mask === 'causal' ? 'causal' : undefined });
    return { target, src, n, m, Q, K, V, mask, maskKind, result, self };
  }

  controls() {
    if (this._controls) return this._controls;
    const source = el('input', { type: 'text', id: 'source', 'data-key': 'source', maxlength: String(MAX_SOURCE), spellcheck: 'false', 'aria-describedby': 'source-help' });
    source.addEventListener('input', () => {
      this.setAttribute('source', source.value);
      this.emit('attention-cross', { source: this.source, scoring: this.scoring });
    });
    const scoring = el('select', { id: 'scoring', 'data-key': 'scoring' }, el('option', { value: 'dot' }), el('option', { value: 'additive' }));
    scoring.addEventListener('change', () => {
      this.setAttribute('scoring', scoring.value);
      this.emit('attention-cross', { source: this.source, scoring: this.scoring });
    });
    const lens = el('input', { type: 'text', id: 'valid-lens', 'data-key': 'valid-lens', inputmode: 'numeric', spellcheck: 'false', 'aria-describedby': 'valid-lens-help', placeholder: '2 3 7 …' });
    lens.addEventListener('input', () => this.setAttribute('valid-lens', lens.value));
    const labels = {
      source: el('label', { for: 'source' }),
      sourceHelp: el('small', { class: 'muted', id: 'source-help' }),
      scoring: el('label', { for: 'scoring' }),
      lens: el('label', { for: 'valid-lens' }),
      lensHelp: el('small', { class: 'muted', id: 'valid-lens-help' }),
    };
    const form = el(
      'form',
      { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() },
      el('div', { class: 'field' }, labels.source, source, labels.sourceHelp),
      el('div', { class: 'field' }, labels.scoring, scoring),
      el('div', { class: 'field' }, labels.lens, lens, labels.lensHelp),
    );
    this._controls = { form, source, scoring, lens, labels };
    return this._controls;
  }

  render(lab) {
    const t = this.t;
    const c = this.compute(lab);
    const { target, src, n, m, result } = c;
    const config = target.config;
    const root = this.root;
    const pool = (this._pool ??= new Map());
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);

    const ui = this.controls();
    const active = this.shadowRoot.activeElement;
    if (active !== ui.source) ui.source.value = this.source;
    if (active !== ui.lens) ui.lens.value = this.getAttribute('valid-lens') ?? '';
    ui.scoring.value = this.scoring;
    ui.labels.source.textContent = t('cross.source');
    ui.labels.sourceHelp.textContent = t('cross.sourceHelp');
    ui.labels.scoring.textContent = t('cross.scoring');
    ui.scoring.options[0].textContent = t('cross.scoring.dot');
    ui.scoring.options[1].textContent = t('cross.scoring.additive');
    ui.labels.lens.textContent = t('cross.validLens');
    ui.labels.lensHelp.textContent = t('cross.validLensHelp');

    const out = [el('h2', { text: t('cross.heading') }), el('p', { class: 'intro', text: t('cross.intro') }), ui.form];
    out.push(el('p', { class: 'note', 'data-role': 'target', text: t('cross.target', { n }) }));

    const additive = this.scoring === 'additive';
    const dk = config.dK;
    const d = config.dModel;
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    const shape = (a, b) => `\\scriptstyle ${a}\\times ${b}`;
    const tex = additive
      ? `a(\\mathbf s_i, \\mathbf h_j) = \\mathbf w_v^{\\top}\\tanh(\\mathbf W_q \\mathbf s_i + \\mathbf W_k \\mathbf h_j), \\quad \\underbrace{A}_{${shape(n, m)}} = \\operatorname{softmax}(a), \\quad \\underbrace{O}_{${shape(n, d)}} = A\\,\\underbrace{X_{\\text{src}}}_{${shape(m, d)}}`
      : `\\underbrace{Q}_{${shape(n, dk)}} = X_{\\text{tgt}} W_Q,\\; \\underbrace{K}_{${shape(m, dk)}} = X_{\\text{src}} W_K,\\; \\underbrace{V}_{${shape(m, dk)}} = X_{\\text{src}} W_V,\\; \\underbrace{A}_{${shape(n, m)}} = \\operatorname{softmax}\\Big(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\Big),\\; \\underbrace{O}_{${shape(n, dk)}} = AV`;
    renderTexCached(formula, (this._texCache ??= new Map()), tex);
    out.push(formula, el('p', { 'data-role': 'shapes', text: t('cross.shapes', { n, m }) }));
    if (additive) out.push(el('p', { class: 'note', text: t('cross.bahdanau', { h: HIDDEN }) }));

    const compact = n > 10 || m > 10;
    const tgt = target.tokens;
    const srcTokens = src.tokens;
    const handles = {};
    const heat = (slot, name, matrix, rowLabels, colLabels, extra = {}) => {
      const h = createHeatmap({ t, name, file: `cross-${slot}`, matrix, rowLabels, colLabels, compact: extra.compact ?? matrix.cols > 10, pool, slot, defer: true, ...extra });
      h.el.dataset.matrix = slot;
      handles[slot] = h;
      return h.el;
    };
    // Hovering or focusing weight (i, j) marks target row i (its query, its output) and source row j
    // (its key and value, or its encoder state).
    const trace = (i, j) => {
      const on = i !== null;
      for (const slot of ['Q', 'Xtgt', 'output']) handles[slot]?.highlight(on ? { rows: [i] } : {});
      for (const slot of ['K', 'V', 'Xsrc']) handles[slot]?.highlight(on ? { rows: [j] } : {});
    };

    // The mask in words.
    const lens = c.mask?.validLens;
    const maskText =
      c.maskKind === 'rows'
        ? t('cross.mask.rows', { list: tgt.map((tok, i) => `${tok} ${lens[i]}`).join(', ') })
        : c.maskKind === 'padding'
          ? t('cross.mask.padding', { v: lens })
          : c.maskKind === 'causal'
            ? t('cross.mask.causal')
            : t('cross.mask.none');
    out.push(el('p', { class: 'note', 'data-role': 'mask', text: maskText }));
    const empty = c.maskKind === 'rows' ? tgt.filter((_, i) => lens[i] === 0) : c.maskKind === 'padding' && lens === 0 ? tgt : [];
    if (empty.length) out.push(el('p', { class: 'warn', 'data-role': 'fully-masked', text: t('cross.fullyMasked', { rows: empty.join(', ') }) }));

    const steps = Object.fromEntries(result.steps.map((s) => [s.id, s]));
    const masked = steps.masked?.mask;
    const main = (this._main ??= el('div', { class: 'grid' }));
    place(main, [
      heat('self', t('cross.self'), c.self.weights, tgt, tgt, { compact, exportable: false }),
      heat('weights', t('cross.weights'), result.weights, tgt, srcTokens, { compact, mask: masked, maskedText: '0', onCell: trace }),
    ]);
    out.push(main, el('p', { class: 'note', text: t('cross.contrast') }), el('p', { class: 'note', text: t('cross.hover') }));

    // The operands and the output, drawn only while their section is open (open at first when small).
    const opCells = additive ? (n + m) * d + n * result.output.cols : (n + 2 * m) * dk + n * result.output.cols;
    if (!this._opSection) {
      // A toggle re-renders unless this render already drew the section so (an automatic open or close).
      this._opSection = el('details', { part: 'data', 'data-role': 'operands', ontoggle: () => this._opSection.open !== this._opDrawn && this.requestRender() }, el('summary'));
      this._opSection.firstChild.addEventListener('click', () => (this._opChosen = true), { once: true });
    }
    const opSection = this._opSection;
    if (!this._opChosen && opSection.open !== opCells <= OPEN_CELLS) opSection.open = opCells <= OPEN_CELLS;
    this._opDrawn = opSection.open;
    const opNames = additive ? 'X_tgt, X_src, O' : 'Q, K, V, O';
    opSection.firstChild.textContent = t('cross.operands', { list: opNames, cells: opCells, max: OPEN_CELLS });
    const inputs = (this._inputsGrid ??= el('div', { class: 'grid' }));
    if (opSection.open) {
      const mats = additive
        ? [heat('Xtgt', t('cross.Xtgt'), target.X, tgt, dims(d, 'd')), heat('Xsrc', t('cross.Xsrc'), src.X, srcTokens, dims(d, 'd'))]
        : [heat('Q', t('cross.Q'), c.Q, tgt, dims(dk, 'd')), heat('K', t('cross.K'), c.K, srcTokens, dims(dk, 'd')), heat('V', t('cross.V'), c.V, srcTokens, dims(dk, 'd'))];
      mats.push(heat('output', t(additive ? 'cross.outputAdditive' : 'cross.output'), result.output, tgt, dims(result.output.cols, 'd')));
      place(inputs, mats);
      place(opSection, [opSection.firstChild, inputs]);
    } else place(opSection, [opSection.firstChild]);
    out.push(opSection);

    // The intermediates are drawn only while their section is open.
    const details = (this._details ??= el('details', { part: 'data', 'data-role': 'steps', ontoggle: () => this.requestRender() }, el('summary')));
    details.firstChild.textContent = t('cross.steps');
    const inner = [details.firstChild];
    if (details.open) {
      if (steps.scores) inner.push(heat('scores', t(additive ? 'cross.additiveScores' : 'cross.scores'), steps.scores.matrix, tgt, srcTokens, { compact }));
      if (steps.scaled) inner.push(heat('scaled', t('cross.scaled'), steps.scaled.matrix, tgt, srcTokens, { compact }));
      if (steps.masked) inner.push(heat('masked', t('cross.masked'), steps.masked.matrix, tgt, srcTokens, { compact, mask: masked }));
    }
    place(details, inner);
    out.push(details);
    place(root, out);
  }
}
