// The long-sequences panel's online-softmax section: how the fused path gets full attention's
// output without a row of n weights, for one query row of the reader's sentence. The reader
// picks the row and the keys per block; the table shows, after each block, the library's running
// max m, the rescale e^(m_old − m_new), the running sum ℓ, the accumulator and acc / ℓ
// (lab.onlineSoftmax, through online-steps.js), then the final row beside full attention's.
import { el } from '../../dom.js';
import { place } from '../../heatmap.js';
import { renderTexCached } from '../../tex.js';
import { RECURRENCE } from './formulas.js';
import { BLOCK_SIZES, DEFAULT_BLOCK, closingValues, num, onlineWalk, rowFor, vec } from './online-steps.js';


const COLUMNS = ['onlineBlockCol', 'onlineKeys', 'onlineScores', 'onlineBlockMax', 'onlineMax', 'onlineRescale', 'onlineSum', 'onlineAcc', 'onlineOut'];

/** A table cell showing `text`, carrying the exact value(s) it stands for. */
const cell = (text, value, field) => el('td', { text, 'data-field': field, 'data-value': value });

/** The section, kept between renders (the reader's choice of row and block with it). */
export class OnlineSoftmax {
  #row = null;
  #block = DEFAULT_BLOCK;
  #texCache = new Map();
  #parts = null;

  /** The section's nodes for this render; `onChange` asks the panel to render again. */
  section(lab, t, results, tokens, onChange) {
    this.#parts ??= this.#build(onChange);
    const p = this.#parts;
    const row = rowFor(this.#row, results.n);
    const walk = onlineWalk(lab, results, row, this.#block);
    p.heading.textContent = t('cost.onlineHeading');
    p.intro.textContent = t('cost.onlineIntro');
    renderTexCached(p.formula, this.#texCache, RECURRENCE);
    this.#syncControls(t, tokens, row);
    const closing = closingValues(walk);
    const notes = [el('p', { class: 'note', 'data-role': 'online-end', text: t('cost.onlineEnd', closing.end) }), el('p', { class: 'note', 'data-role': 'online-sum', text: t('cost.onlineSumLine', closing.sum) })];
    if (walk.masked) notes.unshift(el('p', { class: 'note', text: t('cost.onlineMasked') }));
    place(p.box, [p.heading, p.intro, p.formula, p.controls, el('div', { class: 'scroll' }, this.#table(t, walk, tokens)), ...notes]);
    return p.box;
  }

  #build(onChange) {
    const select = (id, pick) => {
      const input = el('select', { id, 'data-key': id });
      input.addEventListener('change', () => {
        pick(Number(input.value));
        onChange();
      });
      const label = el('label', { for: id });
      return { input, label, field: el('div', { class: 'field' }, label, input) };
    };
    const rowSelect = select('online-row', (v) => (this.#row = v));
    const blockSelect = select('online-block', (v) => (this.#block = v));
    return {
      box: el('section', { 'data-role': 'online-softmax' }),
      heading: el('h3'),
      intro: el('p', { class: 'intro' }),
      formula: el('div', { class: 'formula', part: 'formula' }),
      rowSelect,
      blockSelect,
      controls: el('div', { class: 'controls' }, rowSelect.field, blockSelect.field),
    };
  }

  /** The two selects' labels and options in the reader's language, their values the ones traced. */
  #syncControls(t, tokens, row) {
    const { rowSelect, blockSelect } = this.#parts;
    rowSelect.label.textContent = t('cost.onlineRow');
    blockSelect.label.textContent = t('cost.onlineBlock');
    const rowOptions = tokens.map((token, i) => `${i + 1}: ${token}`); // counted from 1, as the page does
    if ([...rowSelect.input.options].map((o) => o.textContent).join('\n') !== rowOptions.join('\n'))
      rowSelect.input.replaceChildren(...rowOptions.map((text, i) => el('option', { value: String(i), text })));
    if (!blockSelect.input.options.length) blockSelect.input.replaceChildren(...BLOCK_SIZES.map((b) => el('option', { value: String(b), text: String(b) })));
    rowSelect.input.value = String(row);
    blockSelect.input.value = String(this.#block);
  }

  /** One row per block of keys: which keys, their scores, and the state after the block. */
  #table(t, walk, tokens) {
    const { trace } = walk;
    const head = el('tr', {}, ...COLUMNS.map((key) => el('th', { scope: 'col', text: t(`cost.${key}`) })));
    const body = el('tbody');
    trace.blocks.forEach((b, index) => {
      const scores = Array.from(trace.scores.subarray(b.first, b.end));
      const keys = Array.from({ length: b.end - b.first }, (_, c) => `${b.first + c} ${tokens[b.first + c] ?? ''}`.trim()).join(', ');
      body.append(
        el('tr', { 'data-block': String(index) },
          el('th', { scope: 'row', text: String(index + 1) }),
          el('td', { text: keys, 'data-field': 'keys', 'data-value': `${b.first}-${b.end}` }),
          cell(scores.map(num).join(', '), scores.join(' '), 'scores'),
          cell(num(b.blockMax), String(b.blockMax), 'blockMax'),
          cell(num(b.max), String(b.max), 'max'),
          cell(num(b.rescale), String(b.rescale), 'rescale'),
          cell(num(b.sum), String(b.sum), 'sum'),
          cell(vec(b.accumulator), Array.from(b.accumulator).join(' '), 'accumulator'),
          cell(vec(b.output), Array.from(b.output).join(' '), 'output'),
        ),
      );
    });
    const caption = el('caption', { text: t('cost.onlineCaption', { i: walk.row + 1, token: tokens[walk.row] ?? '', b: walk.block }) });
    return el('table', { class: 'stats online-table', part: 'stats', 'data-role': 'online-table' }, caption, el('thead', {}, head), body);
  }
}
