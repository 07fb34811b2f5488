// What goes with each step of <attention-transformer> under its heatmap: the
// heads, the operands (hover a cell to see where it came from), the row
// statistics of a LayerNorm, and the notes saying why the step is there.
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { fillStatsTable } from './stats-table.js';

/** A step's operands are shown open at first only up to this many numbers. */
export const OPEN_CELLS = 2048;

/** Column labels d1, d2, … or f1, f2, … (dimensions counted from 1, as heads and rows are in the page). */
const dims = (n, prefix) => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);
const sameCell = (i, j) => ({ cells: [[i, j]] });
const sameRow = (i) => ({ rows: [i] });

/** Per operands section: whether the last render drew it open, whether the reader chose, its figures' box. */
const sectionState = new WeakMap();

export class StepContent {
  #redraw;
  #explorer;
  #sections = new Map();
  #stats = new Map();
  #headsGrid = null;

  /** `redraw(key)`: step `key` must be drawn again; `explorer()`: the explorer this panel is in, if any. */
  constructor({ redraw, explorer }) {
    this.#redraw = redraw;
    this.#explorer = explorer;
  }

  /** Step `key` of trace `c`: { items (nodes after the heatmap), operands ({ heat, map }) }. */
  build(key, c, t, pool) {
    const s = { key, c, t, pool, items: [], operands: [] };
    const why = (k, vars = {}) => s.items.push(el('p', { class: 'why', 'data-role': k, text: t(`transformer.${k}`, vars) }));
    switch (key) {
      case 'X':
        if (c.positional) {
          const z = c.sizes;
          const f = (v) => v.toFixed(3);
          s.items.push(el('p', { class: 'note', 'data-role': 'positional-on', text: t('transformer.positionalOn', { s: f(z.scale) }) }));
          why('scaleWhy', { p: f(z.P), e: f(z.embeddings), x: f(z.X) });
        }
        break;
      case 'attention':
        s.items.push(...this.#heads(s));
        break;
      case 'residual1':
        this.#operandSection(s, [['X', sameCell], ['attention', sameCell]]);
        why('whyResidual');
        // Dropout, which this block (and the training panel's models) leave out, would sit here.
        why('dropout');
        break;
      case 'norm1':
      case 'output':
        this.#norm(s, why);
        break;
      case 'hidden':
        s.items.push(reluNote(c.matrices.hidden.data, t));
        this.#operandSection(s, [['norm1', sameRow]]);
        why('whyPositionwise');
        break;
      case 'ffn':
        // No H operand here: at n = 32 it is another n × 4·d_model table to restyle on every change;
        // the hidden step shows the same row-to-row dependence.
        why('whyPositionwise');
        break;
      case 'residual2':
        this.#operandSection(s, [['norm1', sameCell], ['ffn', sameCell]]);
        why('whyResidual');
        break;
      default:
    }
    return { items: s.items, operands: s.operands };
  }

  /** Each head's weights, small, side by side, on one colour scale. */
  #heads({ c, t, pool }) {
    const { tokens } = c.model;
    const grid = (this.#headsGrid ??= el('div', { class: 'heads-grid', part: 'heads' }));
    // One quantity side by side: the heads' weights on one colour scale and legend.
    const weights = onOneScale(c.result.heads.map((head) => head.weights), c.result.heads.map(() => c.bits));
    const figures = c.result.heads.map((head, k) => {
      const h = createHeatmap({ base: 1, t, name: t('transformer.head', { h: k + 1 }), matrix: weights[k], mask: c.bits, maskedText: '0', rowLabels: tokens, colLabels: tokens, compact: true, exportable: false, pool, slot: `head-${k}` });
      h.el.dataset.matrix = `head-${k}`;
      return h.el;
    });
    place(grid, figures);
    return [el('p', { class: 'note', 'data-role': 'heads', text: t('transformer.heads', { h: c.result.heads.length }) }), grid];
  }

  /** A LayerNorm step (norm1 or output): its input, the row statistics, why; after the last, what comes next. */
  #norm(s, why) {
    const { key, c, t } = s;
    const before = key === 'norm1' ? 'residual1' : 'residual2';
    this.#operandSection(s, [[before, sameRow]]);
    s.items.push(this.#statsDetails(key, c, before, t));
    why('whyLayerNorm');
    if (key === 'output') {
      why('stack', { n: c.model.n, d: c.model.config.dModel });
      s.items.push(this.#decoderNote(t));
    }
  }

  /**
   * The operands, in a section of this step's own: open at first while they are at most
   * OPEN_CELLS numbers (two 32×64 tables cannot be rewritten within a frame on every change);
   * the reader's choice then stays. Drawn only while open.
   */
  #operandSection(s, list) {
    const { key, c, t } = s;
    const cells = list.reduce((sum, [k]) => sum + c.matrices[k].data.length, 0);
    const section = this.#section(key);
    const state = sectionState.get(section);
    if (!state.chosen && section.open !== cells <= OPEN_CELLS) section.open = cells <= OPEN_CELLS;
    state.drawn = section.open;
    section.firstChild.textContent = t('transformer.operands', { list: list.map(([k]) => t(`transformer.short.${k}`)).join(', '), cells, max: OPEN_CELLS });
    const figures = section.open ? list.map(([k, map]) => this.#operand(s, k, map)) : [];
    place(state.inner, [el('p', { class: 'note wide', text: t('transformer.hoverHint') }), ...figures]);
    place(section, figures.length ? [section.firstChild, state.inner] : [section.firstChild]);
    s.items.push(section);
  }

  #operand({ key, c, t, pool, operands }, k, map) {
    const m = c.matrices[k];
    const h = createHeatmap({ base: 1, t, name: `${t(`transformer.name.${k}`)}`, matrix: m, rowLabels: c.model.tokens, colLabels: dims(m.cols, k === 'hidden' ? 'f' : 'd'), compact: true, exportable: false, pool, slot: `op-${key}-${k}` });
    h.el.dataset.matrix = `op-${k}`;
    operands.push({ heat: h, map });
    return h.el;
  }

  /** A step's operands section, kept; a toggle redraws the step unless the last render drew it so. */
  #section(key) {
    let section = this.#sections.get(key);
    if (section) return section;
    section = el('details', { part: 'data', 'data-role': 'operands' }, el('summary'));
    const state = { drawn: false, chosen: false, inner: el('div', { class: 'operands', part: 'operands' }) };
    sectionState.set(section, state);
    section.addEventListener('toggle', () => section.open !== state.drawn && this.#redraw(key));
    section.firstChild.addEventListener('click', () => (state.chosen = true), { once: true });
    this.#sections.set(key, section);
    return section;
  }

  /** One per LayerNorm step, kept with its open state (open at first for a short sentence). */
  #statsDetails(after, c, before, t) {
    let details = this.#stats.get(after);
    if (!details) {
      details = el('details', { part: 'data', 'data-role': 'stats-details' }, el('summary'));
      details.open = c.model.tokens.length <= 12;
      this.#stats.set(after, details);
    }
    return fillStatsTable(details, c, before, after, t);
  }

  /** Decoder blocks: a causal mask and cross-attention (a button to that panel inside the explorer). */
  #decoderNote(t) {
    const box = el('div', { class: 'why', 'data-role': 'decoder' }, el('p', { text: t('transformer.decoder') }));
    const host = this.#explorer();
    if (host && typeof host.selectPanel === 'function' && host.panels?.cross) {
      box.append(el('button', { type: 'button', part: 'button', 'data-key': 'open-cross', text: t('transformer.openCross'), onclick: () => host.selectPanel('cross') }));
    } else {
      box.append(el('p', { class: 'note', text: t('transformer.crossElsewhere') }));
    }
    return box;
  }
}

/** How many of the hidden layer's numbers the ReLU set to 0. */
function reluNote(H, t) {
  let zeros = 0;
  for (let k = 0; k < H.length; k++) if (H[k] === 0) zeros++;
  return el('p', { class: 'note', 'data-role': 'relu', text: t('transformer.relu', { z: zeros, all: H.length, p: ((100 * zeros) / H.length).toFixed(0) }) });
}
