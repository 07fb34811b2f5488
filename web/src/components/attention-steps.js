// <attention-steps>: a stepper through X → Q, K, V → QKᵀ → ÷√d_k → mask →
// softmax → weights·V (→ per head, concat, W_O). Every matrix is a step of
// the library's trace; hovering a cell highlights the operands it came from.
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { renderTexCached } from '../tex.js';

const maskOf = (steps) => steps.find((s) => s.key === 'masked')?.mask;
/** Operands of more numbers than this start closed. */
export const OPEN_CELLS = 2048;
const dims = (n, prefix = 'd') => Array.from({ length: n }, (_, j) => `${prefix}${j}`);

/** The ordered steps for a model: [{ key, matrix, formula, mask?, shape }]. */
export function traceSteps(lab, model, headIndex = 0) {
  const { X, Wq, Wk, Wv, Wo, mask, config } = model;
  const input = { key: 'X', matrix: X, formula: 'X', shape: 'n \\times d_{\\text{model}}' };
  if (config.heads === 1) {
    const r = lab.selfAttention(X, { Wq, Wk, Wv, mask, trace: true });
    const shapes = { Q: 'n \\times d_k', K: 'n \\times d_k', V: 'n \\times d_v', scores: 'n \\times n', scaled: 'n \\times n', masked: 'n \\times n', weights: 'n \\times n', output: 'n \\times d_v' };
    return { result: r, steps: [input, ...r.steps.map((s) => ({ key: s.id, matrix: s.matrix, formula: s.formula, mask: s.mask, shape: shapes[s.id] }))] };
  }
  const r = lab.multiHeadAttention(X, { heads: config.heads, Wq, Wk, Wv, Wo, mask, trace: true });
  const top = Object.fromEntries(r.steps.map((s) => [s.id, s]));
  const head = r.heads[Math.min(headIndex, r.heads.length - 1)];
  const own = Object.fromEntries(head.steps.map((s) => [s.id, s]));
  const steps = [input];
  for (const id of ['Q', 'K', 'V']) steps.push({ key: id, matrix: top[id].matrix, formula: top[id].formula, shape: `n \\times h d_${id === 'V' ? 'v' : 'k'}` });
  for (const id of ['scores', 'scaled', 'masked', 'weights', 'output'])
    if (own[id]) steps.push({ key: id === 'output' ? 'head-output' : id, matrix: own[id].matrix, formula: own[id].formula, mask: own[id].mask, shape: id === 'output' ? 'n \\times d_v' : 'n \\times n', head: true });
  steps.push({ key: 'concat', matrix: top.concat.matrix, formula: top.concat.formula, shape: 'n \\times h d_v' });
  steps.push({ key: 'final', matrix: top.output.matrix, formula: top.output.formula, shape: 'n \\times d_{\\text{model}}' });
  return { result: r, steps, headSteps: own };
}

export class AttentionSteps extends AttentionElement {
  static tag = 'attention-steps';

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

  go(key) {
    if (key === this.step) return;
    this.step = key;
    this.emit('attention-step', { step: key, head: this.headIndex });
  }

  get headIndex() {
    return Math.max(0, Number(this.getAttribute('head')) || 0);
  }

  stop() {
    clearInterval(this._timer);
    this._timer = null;
  }

  play() {
    if (this._timer) return this.stop(), this.requestRender();
    this._timer = setInterval(() => {
      const keys = this._keys ?? [];
      const at = keys.indexOf(this.step);
      if (at >= keys.length - 1) this.stop(), this.requestRender();
      else this.go(keys[at + 1]);
    }, 1600);
    this.requestRender();
  }

  render(lab) {
    const t = this.t;
    // A change of step (or language) keeps the model and its trace: only what is drawn changes.
    const config = this.config();
    const key = `${JSON.stringify(config)}|${this.headIndex}`;
    if (this._traced?.key !== key || this._traced.inputs !== this.inputs || this._traced.lab !== lab) {
      const model = buildModel(config, this.inputs);
      const headIndex = Math.min(this.headIndex, model.config.heads - 1);
      this._traced = { key, inputs: this.inputs, lab, model, headIndex, ...traceSteps(lab, model, headIndex) };
    }
    const { model, headIndex, steps, result } = this._traced;
    const heads = model.config.heads;
    this._keys = steps.map((s) => s.key);
    let index = this._keys.indexOf(this.step);
    if (index < 0) index = this._keys.indexOf(this.step === 'final' ? 'output' : this.step === 'output' ? 'final' : this.step === 'head-output' ? 'final' : 'X');
    index = Math.max(0, index);
    const step = steps[index];
    const root = this.root;
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    const lang = this.language;
    const out = [this.keep('h2', lang, () => el('h2', { text: t('steps.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('steps.intro') }))];

    // Stepper: previous / play / next, a position, and the list of steps as tabs. The tabs are
    // kept between renders while the steps and language stay (their scroll position too).
    const go = (k) => this.go(this._keys[Math.max(0, Math.min(this._keys.length - 1, k))]);
    const arrows = (e) => {
      const at = Math.max(0, this._keys.indexOf(this.step));
      const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: this._keys.length - 1 };
      if (e.key in moves) {
        e.preventDefault();
        this._focusTab = e.target.getAttribute('role') === 'tab';
        go(moves[e.key]);
      }
    };
    const nav = this.keep('nav', `${lang}|${index}|${steps.length}|${Boolean(this._timer)}|${heads}|${headIndex}`, () => {
      const nav = el('div', { class: 'stepper', part: 'stepper', role: 'group', 'aria-label': t('steps.list') });
      nav.addEventListener('keydown', arrows);
      nav.append(
        el('button', { type: 'button', 'data-key': 'prev', part: 'button', 'aria-label': t('steps.prev'), text: `← ${t('steps.prev')}`, onclick: () => go(index - 1), ...(index === 0 ? { 'aria-disabled': 'true' } : {}) }),
        el('button', { type: 'button', 'data-key': 'play', part: 'button', 'aria-pressed': String(Boolean(this._timer)), text: this._timer ? `⏸ ${t('steps.pause')}` : `▶ ${t('steps.play')}`, onclick: () => this.play() }),
        el('button', { type: 'button', 'data-key': 'next', part: 'button', class: 'primary', 'aria-label': t('steps.next'), text: `${t('steps.next')} →`, onclick: () => go(index + 1), ...(index === steps.length - 1 ? { 'aria-disabled': 'true' } : {}) }),
        el('span', { class: 'position', 'aria-live': 'polite', text: t('steps.position', { i: index + 1, n: steps.length }) }),
      );
      if (heads > 1) {
        const select = el('select', { 'data-key': 'head', 'aria-label': t('steps.head') });
        for (let h = 0; h < heads; h++) select.append(el('option', { value: String(h), text: t('heads.head', { h: h + 1 }) }));
        select.value = String(headIndex);
        select.addEventListener('change', () => {
          this.setAttribute('head', select.value);
          this.emit('attention-step', { step: this.step, head: Number(select.value) });
        });
        nav.append(el('label', { class: 'row' }, el('span', { text: t('steps.head') }), select));
      }
      return nav;
    });
    out.push(nav);

    const tabsKey = `${this.language}|${this._keys.join()}`;
    if (this._tabs?.key !== tabsKey) {
      const list = el('div', { role: 'tablist', 'aria-label': t('steps.list'), part: 'tabs' });
      list.addEventListener('keydown', arrows);
      const buttons = steps.map((s, k) =>
        el('button', { type: 'button', role: 'tab', part: 'tab', id: `tab-${s.key}`, 'data-key': `tab-${s.key}`, 'aria-controls': 'step-panel', text: `${k + 1}. ${t(`step.${s.key}`)}`, onclick: () => go(k) }),
      );
      list.append(...buttons);
      this._tabs = { key: tabsKey, list, buttons, selected: -1 };
    }
    const tabs = this._tabs.list;
    if (this._tabs.selected !== index) {
      this._tabs.buttons.forEach((b, k) => {
        b.setAttribute('aria-selected', String(k === index));
        b.tabIndex = k === index ? 0 : -1;
      });
      this._tabs.selected = index;
      // On narrow screens the tabs scroll sideways: bring the selected one into view. The
      // observer reports after the next layout, so nothing here forces one.
      const io = new IntersectionObserver(([e]) => {
        io.disconnect();
        if (e.intersectionRatio < 1 && e.rootBounds) tabs.scrollLeft += e.boundingClientRect.left - e.rootBounds.left - 24;
      }, { root: tabs });
      io.observe(this._tabs.buttons[index]);
    }
    out.push(tabs);

    // The step itself: title, explanation, formula with live shape, heatmap, operands.
    const panel = (this._panel ??= el('section', { id: 'step-panel', role: 'tabpanel', part: 'step' }));
    panel.setAttribute('aria-labelledby', `tab-${step.key}`);
    panel.dataset.step = step.key;
    const title = step.head && heads > 1 ? `${t(`step.${step.key}`)} · ${t('heads.head', { h: headIndex + 1 })}` : t(`step.${step.key}`);
    const inPanel = [this.keep('title', title, () => el('h3', { class: 'step-title', text: title })), this.keep('explain', `${lang}|${step.key}`, () => el('p', { class: 'muted', text: t(`explain.${step.key}`) }))];
    const { n } = model;
    const dK = model.config.dK;
    const sizes = { n, d_k: dK, d_v: dK, d_model: model.config.dModel, h: heads };
    const live = step.shape.replace(/h d_(k|v)/, `${heads}\\cdot ${dK}`).replace(/d_\{\\text\{model\}\}/, String(sizes.d_model)).replace(/d_(k|v)/, String(dK)).replace(/\bn\b/g, String(n));
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    formula.dataset.tex = step.formula;
    renderTexCached(formula, (this._texCache ??= new Map()), `${step.formula} \\qquad \\big[\\, ${step.shape} = ${live} \\,\\big]`);
    inPanel.push(formula);

    const tokens = model.tokens;
    const heat = this.mainHeatmap(step, steps, model, t);
    heat.el.dataset.role = 'main';
    inPanel.push(heat.el);

    const fully = [];
    const maskBits = steps.find((s) => s.key === 'masked')?.mask;
    if (maskBits && ['masked', 'weights', 'output', 'head-output'].includes(step.key))
      for (let i = 0; i < n; i++) if (maskBits.subarray(i * n, (i + 1) * n).every((b) => b === 0)) fully.push(tokens[i]);
    if (step.key === 'masked') inPanel.push(el('p', { class: 'note', text: t('steps.maskNote') }));
    if (fully.length) inPanel.push(el('p', { class: 'warn', role: 'note', text: t('steps.fullyMasked', { rows: fully.join(', ') }) }));

    this._operands = this.operandsFor(step, steps, model, result, headIndex, t);
    if (this._operands.length) {
      const box = (this._box ??= el('div', { class: 'operands', part: 'operands' }));
      place(box, [el('p', { class: 'note wide', text: `${t('steps.from')}: ${t('steps.hoverHint')}` }), ...this._operands.map((op) => op.node ?? op.heat.el)]);
      inPanel.push(box);
    }
    place(panel, inPanel);
    out.push(panel);
    place(root, out);
    this.prepareNeighbours(index, steps, model, result, headIndex, t);
    if (this._focusTab) {
      this._focusTab = false;
      tabs.querySelector('[aria-selected="true"]').focus();
    }
  }

  /** The step's own heatmap (kept per step in the pool). */
  mainHeatmap(step, steps, model, t) {
    const tokens = model.tokens;
    const nByN = ['scores', 'scaled', 'masked', 'weights'].includes(step.key);
    return createHeatmap({
      t,
      name: t(`step.${step.key}`),
      file: `attention-${step.key}`,
      matrix: step.matrix,
      rowLabels: tokens,
      colLabels: nByN ? tokens : dims(step.matrix.cols),
      mask: step.mask ?? (step.key === 'weights' ? maskOf(steps) : undefined),
      maskedText: step.key === 'weights' ? '0' : undefined,
      tex: step.formula,
      pool: this.pool(),
      // One kept figure per step: a change of step swaps figures instead of rewriting cells.
      slot: `main ${step.key}`,
      onCell: (i, j) => this.highlightOperands(i, j),
    });
  }

  /**
   * While the page is idle, build the figures of the other steps, nearest first (after and before
   * the shown one, then further out; one figure per idle period), so that "next", "previous" and a
   * jump to any step only swap figures: at 32 tokens and d_model 64, a first visit of a step took
   * 10–40 ms of script, one prepared so 4–9 ms. They are not in the document until shown, and are
   * brought up to date then.
   */
  prepareNeighbours(index, steps, model, result, headIndex, t) {
    if (typeof requestIdleCallback !== 'function') return;
    cancelIdleCallback(this._idle);
    const work = [];
    for (let d = 1; d < steps.length; d++)
      for (const k of [index + d, index - d]) {
        if (k < 0 || k >= steps.length) continue;
        work.push(() => this.mainHeatmap(steps[k], steps, model, t), () => this.operandsFor(steps[k], steps, model, result, headIndex, t));
      }
    const next = (deadline) => {
      if (!this.isConnected || !work.length) return;
      if (deadline.timeRemaining() > 8) work.shift()();
      if (work.length) this._idle = requestIdleCallback(next);
    };
    this._idle = requestIdleCallback(next);
  }

  /** Small heatmaps of what the current step was computed from, with how a cell maps onto them. */
  operandsFor(step, steps, model, result, headIndex, t) {
    const byKey = Object.fromEntries(steps.map((s) => [s.key, s]));
    const tokens = model.tokens;
    const pool = this.pool();
    let slot = 0;
    // An operand of more than OPEN_CELLS numbers (W_Q, W_K, W_V, W_O at d_model 64: 4,096) sits in
    // a section of its own, closed at first (the reader's choice then stays) and drawn only while
    // open: drawing it made a first visit of its step take 36–70 ms.
    const mk = (name, matrix, rowLabels, colLabels, map, mask) => {
      const key = `operand ${step.key} ${slot++}`;
      const heat = () => createHeatmap({ t, name, matrix, rowLabels, colLabels, mask, compact: matrix.cols > 8 || matrix.rows > 12, exportable: false, pool, slot: key });
      const cells = matrix.rows * matrix.cols;
      if (cells <= OPEN_CELLS) return { map, heat: heat() };
      const section = this.largeOperand(key);
      section.firstChild.textContent = t('steps.largeOperand', { name, rows: matrix.rows, cols: matrix.cols, cells, max: OPEN_CELLS });
      section._drawn = section.open;
      const shown = section.open ? heat() : null;
      place(section, shown ? [section.firstChild, shown.el] : [section.firstChild]);
      return { map, heat: shown, node: section };
    };
    const W = { Q: ['W_Q', model.Wq], K: ['W_K', model.Wk], V: ['W_V', model.Wv] };
    switch (step.key) {
      case 'Q':
      case 'K':
      case 'V':
        return [
          mk('X', model.X, tokens, dims(model.X.cols), (i) => ({ rows: [i] })),
          mk(W[step.key][0], W[step.key][1], dims(W[step.key][1].rows), dims(W[step.key][1].cols), (i, j) => ({ cols: [j] })),
        ];
      case 'scores': {
        const q = model.config.heads > 1 ? result.heads[headIndex].steps.find((s) => s.id === 'Q').matrix : byKey.Q.matrix;
        const k = model.config.heads > 1 ? result.heads[headIndex].steps.find((s) => s.id === 'K').matrix : byKey.K.matrix;
        return [mk('Q', q, tokens, dims(q.cols), (i) => ({ rows: [i] })), mk('K', k, tokens, dims(k.cols), (i, j) => ({ rows: [j] }))];
      }
      case 'scaled':
        return [mk(t('step.scores'), byKey.scores.matrix, tokens, tokens, (i, j) => ({ cells: [[i, j]] }))];
      case 'masked':
        return [mk(t('step.scaled'), byKey.scaled.matrix, tokens, tokens, (i, j) => ({ cells: [[i, j]] }))];
      case 'weights': {
        const src = byKey.masked ?? byKey.scaled;
        return [mk(t(`step.${src.key}`), src.matrix, tokens, tokens, (i) => ({ rows: [i] }), src.mask)];
      }
      case 'output':
      case 'head-output': {
        const v = model.config.heads > 1 ? result.heads[headIndex].steps.find((s) => s.id === 'V').matrix : byKey.V.matrix;
        return [mk(t('step.weights'), byKey.weights.matrix, tokens, tokens, (i) => ({ rows: [i] })), mk('V', v, tokens, dims(v.cols), (i, j) => ({ cols: [j] }))];
      }
      case 'concat': {
        const dv = result.heads[0].output.cols;
        return result.heads.map((h, k) => mk(t('heads.head', { h: k + 1 }), h.output, tokens, dims(dv), (i, j) => (Math.floor(j / dv) === k ? { cells: [[i, j % dv]] } : {})));
      }
      case 'final':
        return [mk(t('step.concat'), byKey.concat.matrix, tokens, dims(byKey.concat.matrix.cols), (i) => ({ rows: [i] })), mk('W_O', model.Wo, dims(model.Wo.rows), dims(model.Wo.cols), (i, j) => ({ cols: [j] }))];
      default:
        return [];
    }
  }

  /**
   * Kept heatmaps by slot (one per step and operand); their cells are brought up to date when
   * shown again (a new sentence of as many tokens only relabels rows). New sizes start afresh (no
   * kept figure would fit).
   */
  pool() {
    const { model } = this._traced;
    const shape = `${model.tokens.length}|${model.config.dModel}|${model.config.dK}|${model.config.heads}`;
    if (this._poolShape !== shape) this._pool?.clear();
    this._poolShape = shape;
    return (this._pool ??= new Map());
  }

  highlightOperands(i, j) {
    for (const op of this._operands ?? []) op.heat?.highlight(i === null ? {} : op.map(i, j));
  }

  /** The closed-at-first section of one large operand, kept (with its open state) per slot. */
  largeOperand(key) {
    const sections = (this._large ??= new Map());
    let section = sections.get(key);
    if (!section) {
      section = el('details', { part: 'data', 'data-role': 'large-operand' }, el('summary'));
      section.addEventListener('toggle', () => section.open !== section._drawn && this.requestRender());
      sections.set(key, section);
    }
    return section;
  }
}
