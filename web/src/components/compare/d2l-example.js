// <attention-compare>'s "D2L 10.3 example" button and the section it opens: the book's additive
// attention example run by the library (compare-model.js), its weights and outputs as heatmaps and
// the outputs rounded in a sentence. Built once and kept (the button keeps its focus); each render
// writes the text and, while open, the library's numbers for the panel's hidden units and seed.
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { D2L_EXAMPLE, d2lExample, roundedRows } from './compare-model.js';

const labels = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

export class D2lExample {
  #host;
  #open = false;
  #ui = null;

  /** `host`: the <attention-compare> that re-renders when the button is pressed. */
  constructor(host) {
    this.#host = host;
  }

  /** The button and, while open, the example for `dh` hidden units and `seed`, in `t`'s language. */
  render(t, lab, pool, { dh, seed }) {
    const ui = (this.#ui ??= this.#build());
    ui.button.textContent = t('compare.d2l.button');
    ui.button.setAttribute('aria-expanded', String(this.#open));
    // Named only while the section is in the page (an id that resolves).
    if (this.#open) ui.button.setAttribute('aria-controls', 'd2l-example');
    else ui.button.removeAttribute('aria-controls');
    if (!this.#open) {
      place(ui.box, [ui.button]);
      return ui.box;
    }
    const { result } = d2lExample(lab, dh, seed);
    const [first, second] = roundedRows(result.output).map((row) => `[${row.join(', ')}]`);
    const { queries, dq, keys, dk, dv, validLens } = D2L_EXAMPLE;
    const qLabels = labels('q', queries);
    const heat = (slot, name, matrix, colLabels, extra = {}) => {
      const h = createHeatmap({ base: 1, t, name, file: `d2l-10-3-${slot}`, matrix, rowLabels: qLabels, colLabels, pool, slot: `d2l-${slot}`, ...extra });
      h.el.dataset.matrix = `d2l-${slot}`;
      return h.el;
    };
    const mask = Uint8Array.from({ length: queries * keys }, (_, k) => Number(k % keys < validLens[Math.floor(k / keys)]));
    place(ui.section, [
      el('h3', { text: t('compare.d2l.heading') }),
      el('p', { 'data-role': 'd2l-setup', text: t('compare.d2l.setup', { queries, dq, keys, dk, dv, total: keys * dv - 1, a: validLens[0], b: validLens[1], dh }) }),
      el('p', { text: t('compare.d2l.why', { a: validLens[0], b: validLens[1] }) }),
      el('div', { class: 'grid' }, heat('weights', t('compare.d2l.weights', { queries, keys }), result.weights, labels('k', keys), { mask, maskedText: '0' }), heat('output', t('compare.d2l.output', { queries, dv }), result.output, labels('d', dv))),
      el('p', { 'data-role': 'd2l-outputs', text: t('compare.d2l.outputs', { first, second }) }),
    ]);
    place(ui.box, [ui.button, ui.section]);
    return ui.box;
  }

  #build() {
    const section = el('section', { id: 'd2l-example', 'data-role': 'd2l-example' });
    const button = el('button', { type: 'button', 'data-key': 'd2l-example' });
    button.addEventListener('click', () => {
      this.#open = !this.#open;
      this.#host.requestRender();
    });
    return { box: el('div', { class: 'd2l' }), button, section };
  }
}
