// <attention-transformer>: one post-norm Transformer encoder block on the
// reader's sentence, step by step: X (or X + P) → multi-head attention A →
// X + A → Y = LayerNorm(X + A) → H = ReLU(YW₁ + b₁) → F = HW₂ + b₂ → Y + F →
// Z = LayerNorm(Y + F). Every matrix is a step of lab.transformerBlock's trace
// (X + P from lab.addPositionalEncoding); the page only computes the row means
// and variances it shows beside the library's LayerNorm output.
import { AttentionElement } from '../base.js';
import { adoptPanelStyles } from '../panel-styles.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { hashString, randomMatrix } from '../random.js';
import { exact } from '../format.js';
import { renderTexCached } from '../tex.js';

/** d_ff = FFN_FACTOR · d_model, as in the paper (512 → 2048), … */
export const FFN_FACTOR = 4;
/**
 * … up to FFN_MAX: at 32 tokens and d_model 64 a 4× hidden layer is a 32×256 table, 8,192 cells
 * (four times any other on the page), too many to restyle within a frame on every change; capped,
 * it is 32×128. Below d_model 32 the paper's ratio holds; the page says when it does not.
 */
export const FFN_MAX = 128;
/** A step's operands are shown open at first only up to this many numbers. */
export const OPEN_CELLS = 2048;

/** The steps in order, each in sublayer 0 (input), 1 (attention) or 2 (feed-forward). */
export const STEPS = [
  { key: 'X', sub: 0 },
  { key: 'attention', sub: 1 },
  { key: 'residual1', sub: 1 },
  { key: 'norm1', sub: 1 },
  { key: 'hidden', sub: 2 },
  { key: 'ffn', sub: 2 },
  { key: 'residual2', sub: 2 },
  { key: 'output', sub: 2 },
];
const KEYS = STEPS.map((s) => s.key);

/**
 * The seeded feed-forward weights for d_model and a seed: W₁ (d_model×d_ff), b₁ (d_ff),
 * W₂ (d_ff×d_model), b₂ (d_model). Streams named apart from model.js's W_Q…W_O.
 */
export function ffnWeights(dModel, seed) {
  const dFf = Math.min(FFN_FACTOR * dModel, FFN_MAX);
  const stream = (name) => hashString(`transformer:${name}:${seed}`);
  return {
    dFf,
    W1: randomMatrix(dModel, dFf, stream('W1'), 1 / Math.sqrt(dModel)),
    b1: randomMatrix(1, dFf, stream('b1'), 0.1).data,
    W2: randomMatrix(dFf, dModel, stream('W2'), 1 / Math.sqrt(dFf)),
    b2: randomMatrix(1, dModel, stream('b2'), 0.1).data,
  };
}

/** `positional` attribute: absent, "false", "off" or "0" → off; present (any other value) → on. */
export function positionalOn(value) {
  if (value === null || value === undefined) return false;
  return !['false', 'off', '0', 'no'].includes(String(value).trim().toLowerCase());
}

/** Mean and (population) variance of each row of M: a display of the library's numbers. */
export function rowStats(M) {
  const out = [];
  for (let i = 0; i < M.rows; i++) {
    let sum = 0;
    for (let j = 0; j < M.cols; j++) sum += M.data[i * M.cols + j];
    const mean = sum / M.cols;
    let sq = 0;
    for (let j = 0; j < M.cols; j++) sq += (M.data[i * M.cols + j] - mean) ** 2;
    out.push({ mean, variance: sq / M.cols });
  }
  return out;
}

/** The visibility bits of the input model's mask (an input: which keys each query may see). */
function maskBits(mask, n) {
  if (!mask) return undefined;
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) bits[i * n + j] = mask === 'causal' ? (j <= i ? 1 : 0) : j < mask.validLens ? 1 : 0;
  return bits;
}

const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j}`);
const fmtMean = (v) => (v === 0 ? '0' : Math.abs(v) < 1e-3 ? v.toExponential(1) : v.toFixed(3)).replace(/-/g, '−');
const fmtVar = (v) => v.toFixed(6).replace('-', '−');

const CSS = `
.root { container-type: inline-size; }
.block { display: grid; grid-template-columns: minmax(11rem, 15rem) minmax(0, 1fr); gap: 0.5rem 1.2rem; align-items: start; margin-top: 0.5rem; }
.flow[role="tablist"] { flex-direction: column; flex-wrap: nowrap; gap: 0; margin: 0; }
.flow [role="tab"] { display: flex; justify-content: space-between; gap: 0.5rem; text-align: start; width: 100%; border-inline-start-width: 6px; font-size: 0.88rem; }
.flow [role="tab"] .tab-shape { font-family: var(--_mono); font-size: 0.75rem; white-space: nowrap; }
.flow .arrow { display: block; text-align: center; color: var(--_muted); line-height: 1; font-size: 0.8rem; padding: 1px 0; }
.flow .sub1 { border-inline-start-color: #0072b2; }
.flow .sub2 { border-inline-start-color: #e69f00; }
.flow .sub0 { border-inline-start-color: var(--_border); }
.sublayers { display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.8rem; color: var(--_muted); margin-top: 0.4rem; }
.sublayers .key1, .sublayers .key2 { display: inline-block; width: 0.4rem; height: 0.9rem; vertical-align: middle; margin-inline-end: 0.35rem; }
.sublayers .key1 { background: #0072b2; }
.sublayers .key2 { background: #e69f00; }
.step-title { margin-top: 0; }
.step-box.off { content-visibility: hidden; }
.why { border-inline-start: 4px solid var(--_accent); padding: 0.2rem 0.6rem; background: var(--_surface); border-radius: 0 var(--_radius) var(--_radius) 0; }
.heads-grid { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: flex-start; }
.heads-grid figure.heatmap .export, .heads-grid figure.heatmap .readout { display: none; }
.stats caption { caption-side: top; text-align: start; font-weight: 600; padding-bottom: 0.2rem; color: var(--_fg); }
.stats td.num { font-family: var(--_mono); }
label.check { display: inline-flex; gap: 0.4rem; align-items: center; font-weight: 600; }
label.check input { min-height: 0; width: 1.1rem; height: 1.1rem; accent-color: var(--_accent); }
@container (max-width: 44rem) {
  .block { grid-template-columns: minmax(0, 1fr); }
  .flow[role="tablist"] { flex-direction: row; overflow-x: auto; padding-bottom: 0.3rem; }
  .flow [role="tab"] { flex: 0 0 auto; width: auto; border-inline-start-width: 1px; border-bottom-width: 5px; }
  .flow .sub1 { border-bottom-color: #0072b2; }
  .flow .sub2 { border-bottom-color: #e69f00; }
  .flow .arrow { display: none; }
}
`;

export class AttentionTransformer extends AttentionElement {
  static tag = 'attention-transformer';

  static get observedAttributes() {
    return [...super.observedAttributes, 'positional'];
  }

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, CSS);
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
    if (p !== null && !['', 'true', 'on', '1', 'yes', 'positional', 'false', 'off', '0', 'no'].includes(p.trim().toLowerCase())) changed.push({ name: 'positional', given: p, used: 'on' });
    return changed;
  }

  /** The model, the block's weights and its trace; kept while nothing it depends on changes. */
  compute(lab) {
    const config = this.config();
    const positional = this.positional;
    const key = `${JSON.stringify(config)}|${positional}`;
    const c = this._computed;
    if (c && c.key === key && c.inputs === this.inputs && c.lab === lab) return c;
    const model = buildModel(config, this.inputs);
    const { dModel, heads, seed } = model.config;
    const ffn = (this._ffn?.dModel === dModel && this._ffn.seed === seed ? this._ffn : (this._ffn = { dModel, seed, ...ffnWeights(dModel, seed) }));
    const X = positional ? lab.addPositionalEncoding(model.X) : model.X;
    const { Wq, Wk, Wv, Wo, mask } = model;
    const r = lab.transformerBlock(X, { heads, Wq, Wk, Wv, Wo, W1: ffn.W1, b1: ffn.b1, W2: ffn.W2, b2: ffn.b2, mask, trace: true });
    const byId = Object.fromEntries(r.steps.map((s) => [s.id, s]));
    const matrices = { X, ...Object.fromEntries(KEYS.slice(1).map((k) => [k, byId[k].matrix])) };
    const formulas = { X: positional ? 'X = X_{\\text{emb}} + P' : 'X', ...Object.fromEntries(KEYS.slice(1).map((k) => [k, byId[k].formula])) };
    this._computed = { key, inputs: this.inputs, lab, model, positional, ffn, result: r, matrices, formulas, bits: maskBits(mask, model.n), stats: {} };
    return this._computed;
  }

  /** Row statistics of a step's matrix (computed once per trace). */
  statsOf(c, key) {
    return (c.stats[key] ??= rowStats(c.matrices[key]));
  }

  controls(t) {
    if (!this._controls) {
      const box = el('input', { type: 'checkbox', id: 'positional', 'data-key': 'positional' });
      box.addEventListener('change', () => {
        this.positional = box.checked;
        this.emit('attention-transformer', { step: this.step, positional: box.checked });
      });
      const text = el('span');
      const help = el('small', { class: 'muted', id: 'positional-help' });
      box.setAttribute('aria-describedby', 'positional-help');
      this._controls = { form: el('div', { class: 'controls', part: 'controls' }, el('div', { class: 'field' }, el('label', { class: 'check', for: 'positional' }, box, text), help)), box, text, help };
    }
    const ui = this._controls;
    ui.text.textContent = t('transformer.positional');
    ui.help.textContent = t('transformer.positionalHelp');
    ui.box.checked = this.positional;
    return ui.form;
  }

  render(lab) {
    const t = this.t;
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    if (typeof lab.transformerBlock !== 'function') {
      root.replaceChildren(el('h2', { text: t('transformer.heading') }), el('p', { class: 'error', 'data-role': 'pending', text: t('transformer.pending') }));
      return;
    }
    const c = this.compute(lab);
    const { model, matrices, formulas, ffn } = c;
    const { n, tokens } = model;
    const { dModel, dK, heads } = model.config;
    const index = KEYS.indexOf(this.step);
    const key = KEYS[index];
    const pool = (this._pool ??= new Map());
    const texCache = (this._texCache ??= new Map());

    const out = [el('h2', { text: t('transformer.heading') }), el('p', { class: 'intro', text: t('transformer.intro') })];
    const overview = (this._overview ??= el('div', { class: 'formula', part: 'formula', 'data-role': 'overview' }));
    renderTexCached(overview, texCache, 'Y = \\operatorname{LayerNorm}\\big(X + \\operatorname{MultiHead}(X)\\big),\\qquad Z = \\operatorname{LayerNorm}\\big(Y + \\operatorname{ReLU}(YW_1 + b_1)W_2 + b_2\\big)');
    out.push(overview);
    const capped = ffn.dFf < FFN_FACTOR * dModel;
    const sizes = t('transformer.sizes', { n, d: dModel, h: heads, dk: dK, ff: ffn.dFf, ffText: capped ? t('transformer.ffCapped', { ff: ffn.dFf, full: FFN_FACTOR * dModel, max: FFN_MAX }) : t('transformer.ff', { ff: ffn.dFf }) });
    out.push(el('p', { class: 'note', 'data-role': 'sizes', text: sizes }));
    out.push(this.controls(t));
    const maskKey = model.config.mask === 'padding' ? 'transformer.mask.padding' : model.config.mask === 'causal' ? 'transformer.mask.causal' : 'transformer.mask.none';
    const empty = model.config.mask === 'padding' && model.config.validLen === 0 ? ` ${t('transformer.mask.empty')}` : '';
    out.push(el('p', { class: 'note', 'data-role': 'mask', text: `${t(maskKey, { v: model.config.validLen })}${empty}` }));

    // Stepper: previous / next and the position; the block's flow as a vertical list of tabs.
    const go = (k) => this.go(KEYS[Math.max(0, Math.min(KEYS.length - 1, k))]);
    const arrows = (e) => {
      const at = KEYS.indexOf(this.step);
      const moves = { ArrowLeft: at - 1, ArrowUp: at - 1, ArrowRight: at + 1, ArrowDown: at + 1, Home: 0, End: KEYS.length - 1 };
      if (e.key in moves) {
        e.preventDefault();
        this._focusTab = e.target.getAttribute('role') === 'tab';
        go(moves[e.key]);
      }
    };
    const nav = el('div', { class: 'stepper', part: 'stepper', role: 'group', 'aria-label': t('transformer.list') });
    nav.addEventListener('keydown', arrows);
    nav.append(
      el('button', { type: 'button', 'data-key': 'prev', part: 'button', 'aria-label': t('transformer.prev'), text: `← ${t('transformer.prev')}`, onclick: () => go(index - 1), ...(index === 0 ? { 'aria-disabled': 'true' } : {}) }),
      el('button', { type: 'button', 'data-key': 'next', part: 'button', class: 'primary', 'aria-label': t('transformer.next'), text: `${t('transformer.next')} →`, onclick: () => go(index + 1), ...(index === KEYS.length - 1 ? { 'aria-disabled': 'true' } : {}) }),
      el('span', { class: 'position', 'aria-live': 'polite', text: t('transformer.position', { i: index + 1, n: KEYS.length }) }),
    );
    out.push(nav);

    const shapeText = (k) => `${n}×${k === 'hidden' ? ffn.dFf : dModel}`;
    const tabsKey = `${this.language}|${n}|${dModel}|${c.positional}`;
    if (this._tabs?.key !== tabsKey) {
      const list = el('div', { role: 'tablist', class: 'flow', 'aria-orientation': 'vertical', 'aria-label': t('transformer.list'), part: 'tabs' });
      list.addEventListener('keydown', arrows);
      const buttons = STEPS.map((s, k) => {
        const b = el('button', { type: 'button', role: 'tab', part: 'tab', class: `sub${s.sub}`, id: `tab-${s.key}`, 'data-key': `tab-${s.key}`, 'aria-controls': 'step-panel', onclick: () => go(k) });
        b.append(el('span', { text: `${k + 1}. ${t(`transformer.tab.${s.key === 'X' && c.positional ? 'XP' : s.key}`)}` }), ' ', el('span', { class: 'tab-shape', text: shapeText(s.key) }));
        return b;
      });
      buttons.forEach((b, k) => {
        list.append(b);
        if (k < buttons.length - 1) list.append(el('span', { class: 'arrow', 'aria-hidden': 'true', text: '↓' }));
      });
      const legend = el('div', { class: 'sublayers' }, el('span', {}, el('span', { class: 'key1' }), t('transformer.sub1')), el('span', {}, el('span', { class: 'key2' }), t('transformer.sub2')));
      this._tabs = { key: tabsKey, list, buttons, legend, selected: -1, wrap: el('div', { class: 'flow-wrap' }, list, legend) };
    }
    const tabs = this._tabs;
    if (tabs.selected !== index) {
      tabs.buttons.forEach((b, k) => {
        b.setAttribute('aria-selected', String(k === index));
        b.tabIndex = k === index ? 0 : -1;
      });
      tabs.selected = index;
      // In a narrow container the flow is a row that scrolls sideways: bring the selected step
      // into view. The observer reports after the next layout, so nothing here forces one.
      const io = new IntersectionObserver(([e]) => {
        io.disconnect();
        if (e.intersectionRatio < 1 && e.rootBounds) tabs.list.scrollLeft += e.boundingClientRect.left - e.rootBounds.left - 24;
      }, { root: tabs.list });
      io.observe(tabs.buttons[index]);
    }

    // The step: title, formula with the live shape, explanation, heatmap, and what goes with it.
    const panel = (this._panel ??= el('section', { id: 'step-panel', role: 'tabpanel', part: 'step' }));
    panel.setAttribute('aria-labelledby', `tab-${key}`);
    panel.dataset.step = key;
    const titleKey = key === 'X' && c.positional ? 'XP' : key;
    const inPanel = [el('h3', { class: 'step-title', text: t(`transformer.step.${titleKey}`) })];
    const wide = key === 'hidden';
    const shape = wide ? 'n \\times d_{\\text{ff}}' : 'n \\times d_{\\text{model}}';
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula', 'data-role': 'formula' }));
    formula.dataset.tex = formulas[key];
    renderTexCached(formula, texCache, `${formulas[key]} \\qquad \\big[\\, ${shape} = ${n} \\times ${wide ? ffn.dFf : dModel} \\,\\big]`);
    const explainKey = key === 'hidden' && capped ? 'hiddenCapped' : titleKey;
    inPanel.push(formula, el('p', { class: 'muted', 'data-role': 'explain', text: t(`transformer.explain.${explainKey}`, { ff: ffn.dFf, max: FFN_MAX }) }));

    // Each step's heatmaps and notes are kept in a box of their own, drawn when the step is shown
    // and the trace or language changed since; the other steps' boxes stay in the document, skipped
    // (content-visibility: hidden keeps their layout for when they are shown again) and inert. A
    // step change then costs no cell writes and no layout of a 2,048-cell table; a seed change
    // redraws only the step on screen (the others when they are next shown).
    const boxes = (this._stepBoxes ??= new Map());
    let box = boxes.get(key);
    if (!box) boxes.set(key, (box = { wrap: el('div', { class: 'step-box', 'data-step': key }) }));
    if (box.c !== c || box.lang !== this.language) {
      const colLabels = wide ? dims(ffn.dFf, 'f') : dims(dModel, 'd');
      const name = `${t(`transformer.name.${key}`)} (${wide ? 'n×d_ff' : 'n×d_model'})`;
      const main = createHeatmap({ t, name, file: `transformer-${key}`, matrix: matrices[key], rowLabels: tokens, colLabels, tex: formulas[key].split('=')[0].trim() || undefined, pool, slot: `main-${key}`, onCell: (i, j) => this.highlightOperands(i, j) });
      main.el.dataset.matrix = key;
      main.el.dataset.role = 'main';
      place(box.wrap, [main.el, ...this.extras(key, c, t, pool)]);
      Object.assign(box, { c, lang: this.language, operands: this._operands });
    }
    this._operands = box.operands;
    for (const [k, b] of boxes) {
      const off = k !== key;
      if (b.wrap.classList.contains('off') !== off) {
        b.wrap.classList.toggle('off', off);
        b.wrap.inert = off;
        if (off) for (const op of b.operands) op.heat.highlight({});
      }
    }
    const stepBoxes = (this._stepsEl ??= el('div', { class: 'step-boxes' }));
    place(stepBoxes, [...boxes.values()].map((b) => b.wrap));
    inPanel.push(stepBoxes);
    place(panel, inPanel);

    const block = (this._block ??= el('div', { class: 'block' }));
    place(block, [tabs.wrap, panel]);
    out.push(block);
    place(root, out);
    if (this._focusTab) {
      this._focusTab = false;
      tabs.buttons[index].focus();
    }
  }

  /** Per step: the heads, the operands (hover a cell to see where it came from), row statistics, notes. */
  extras(key, c, t, pool) {
    const { model, matrices, result } = c;
    const { n, tokens } = model;
    const { dModel } = model.config;
    const items = [];
    this._operands = [];
    const operand = (k, map) => {
      const m = matrices[k];
      const h = createHeatmap({ t, name: `${t(`transformer.name.${k}`)}`, matrix: m, rowLabels: tokens, colLabels: dims(m.cols, k === 'hidden' ? 'f' : 'd'), compact: true, exportable: false, pool, slot: `op-${key}-${k}` });
      h.el.dataset.matrix = `op-${k}`;
      this._operands.push({ heat: h, map });
      return h.el;
    };
    // The operands, in a section of this step's own: open at first while they are at most
    // OPEN_CELLS numbers (two 32×64 tables cannot be rewritten within a frame on every change);
    // the reader's choice then stays. Drawn only while open.
    const operands = (list) => {
      const cells = list.reduce((sum, [k]) => sum + matrices[k].data.length, 0);
      const section = ((this._opSections ??= {})[key] ??= this.operandSection(key));
      if (!section._chosen && section.open !== cells <= OPEN_CELLS) section.open = cells <= OPEN_CELLS;
      section._drawn = section.open;
      section.firstChild.textContent = t('transformer.operands', { list: list.map(([k]) => t(`transformer.short.${k}`)).join(', '), cells, max: OPEN_CELLS });
      const figures = section.open ? list.map(([k, map]) => operand(k, map)) : [];
      const inner = (section._inner ??= el('div', { class: 'operands', part: 'operands' }));
      place(inner, [el('p', { class: 'note wide', text: t('transformer.hoverHint') }), ...figures]);
      place(section, figures.length ? [section.firstChild, inner] : [section.firstChild]);
      items.push(section);
    };
    const why = (k, vars = {}) => items.push(el('p', { class: 'why', 'data-role': k, text: t(`transformer.${k}`, vars) }));
    const same = (i, j) => ({ cells: [[i, j]] });
    const row = (i) => ({ rows: [i] });
    switch (key) {
      case 'X':
        if (c.positional) items.push(el('p', { class: 'note', text: t('transformer.positionalOn') }));
        break;
      case 'attention': {
        items.push(el('p', { class: 'note', 'data-role': 'heads', text: t('transformer.heads', { h: result.heads.length }) }));
        const grid = (this._headsGrid ??= el('div', { class: 'heads-grid', part: 'heads' }));
        place(
          grid,
          result.heads.map((head, k) => {
            const h = createHeatmap({ t, name: t('transformer.head', { h: k + 1 }), matrix: head.weights, mask: c.bits, maskedText: '0', rowLabels: tokens, colLabels: tokens, compact: true, exportable: false, pool, slot: `head-${k}` });
            h.el.dataset.matrix = `head-${k}`;
            return h.el;
          }),
        );
        items.push(grid);
        break;
      }
      case 'residual1':
        operands([['X', same], ['attention', same]]);
        why('whyResidual');
        break;
      case 'norm1':
      case 'output': {
        const before = key === 'norm1' ? 'residual1' : 'residual2';
        operands([[before, row]]);
        items.push(this.statsTable(c, before, key, t));
        why('whyLayerNorm');
        if (key === 'output') {
          why('stack', { n, d: dModel });
          items.push(this.decoderNote(t));
        }
        break;
      }
      case 'hidden': {
        const H = matrices.hidden.data;
        let zeros = 0;
        for (let k = 0; k < H.length; k++) if (H[k] === 0) zeros++;
        items.push(el('p', { class: 'note', 'data-role': 'relu', text: t('transformer.relu', { z: zeros, all: H.length, p: ((100 * zeros) / H.length).toFixed(0) }) }));
        operands([['norm1', row]]);
        why('whyPositionwise');
        break;
      }
      case 'ffn':
        // No H operand here: at n = 32 it is another n × 4·d_model table to restyle on every change;
        // the hidden step shows the same row-to-row dependence.
        why('whyPositionwise');
        break;
      case 'residual2':
        operands([['norm1', same], ['ffn', same]]);
        why('whyResidual');
        break;
      default:
    }
    return items;
  }

  /** A step's operands section; a toggle redraws the step unless this render drew it so. */
  operandSection(key) {
    const section = el('details', { part: 'data', 'data-role': 'operands' }, el('summary'));
    section.addEventListener('toggle', () => {
      if (section.open === section._drawn) return;
      const box = this._stepBoxes?.get(key);
      if (box) box.c = null;
      this.requestRender();
    });
    section.firstChild.addEventListener('click', () => (section._chosen = true), { once: true });
    return section;
  }

  /** Each token's mean and variance over its d_model features, before and after the LayerNorm. */
  statsTable(c, before, after, t) {
    const { tokens } = c.model;
    // One per step (norm1, output), kept with its open state; drawn with its step's box.
    const details = ((this._stats ??= {})[after] ??= el('details', { part: 'data', 'data-role': 'stats-details' }, el('summary')));
    if (!details._opened) {
      details._opened = true;
      details.open = tokens.length <= 12;
    }
    const a = this.statsOf(c, before);
    const b = this.statsOf(c, after);
    const table = el('table', { class: 'stats', 'data-role': 'stats' });
    table.append(el('caption', { text: t('transformer.statsCaption', { d: c.model.config.dModel }) }));
    const head = el('tr', {}, el('th', { scope: 'col', text: t('transformer.token') }));
    for (const k of ['meanBefore', 'varBefore', 'meanAfter', 'varAfter']) head.append(el('th', { scope: 'col', text: t(`transformer.${k}`, { before: t(`transformer.short.${before}`), after: t(`transformer.short.${after}`) }) }));
    const body = el('tbody');
    tokens.forEach((tok, i) => {
      const tr = el('tr', {}, el('th', { scope: 'row', text: tok }));
      for (const [v, f] of [[a[i].mean, fmtMean], [a[i].variance, fmtVar], [b[i].mean, fmtMean], [b[i].variance, fmtVar]]) tr.append(el('td', { class: 'num', text: f(v), 'data-value': String(v) }));
      body.append(tr);
    });
    table.append(el('thead', {}, head), body);
    // A row that was constant has nothing to rescale: LayerNorm gives β (0 here), variance 0.
    // With d_model = 1 every row is constant.
    const flat = [];
    const normal = [];
    b.forEach((st, i) => (a[i].variance === 0 ? flat.push(tokens[i]) : normal.push(st)));
    const parts = [];
    if (normal.length) {
      const maxMean = Math.max(...normal.map((st) => Math.abs(st.mean)));
      const lo = Math.min(...normal.map((st) => st.variance));
      const hi = Math.max(...normal.map((st) => st.variance));
      parts.push(t('transformer.statsSummary', { m: exact(Math.fround(maxMean)), lo: fmtVar(lo), hi: fmtVar(hi) }));
    }
    if (flat.length) parts.push(t('transformer.statsFlat', { rows: flat.join(', ') }));
    const summary = el('p', { class: 'note', 'data-role': 'stats-summary', text: parts.join(' ') });
    details.firstChild.textContent = t('transformer.statsShow');
    place(details, [details.firstChild, summary, table]);
    return details;
  }

  /** Decoder blocks: a causal mask and cross-attention (a button to that panel inside the explorer). */
  decoderNote(t) {
    const box = el('div', { class: 'why', 'data-role': 'decoder' }, el('p', { text: t('transformer.decoder') }));
    const host = this.getRootNode()?.host;
    if (host && typeof host.selectPanel === 'function' && host.panels?.cross) {
      box.append(el('button', { type: 'button', part: 'button', 'data-key': 'open-cross', text: t('transformer.openCross'), onclick: () => host.selectPanel('cross') }));
    } else {
      box.append(el('p', { class: 'note', text: t('transformer.crossElsewhere') }));
    }
    return box;
  }

  highlightOperands(i, j) {
    for (const op of this._operands ?? []) op.heat.highlight(i === null ? {} : op.map(i, j));
  }
}
