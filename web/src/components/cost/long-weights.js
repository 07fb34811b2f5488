// The long-sequences panel's full weight matrix at n = 1,024: softmax(QKᵀ/√d_k) of seeded random
// queries and keys of width d_k, from the library, drawn on a canvas heatmap (a million cells)
// once its section is opened; computed again only when d_k or the seed change.
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { randomMatrix } from '../../random.js';
import { fmt } from './sentence.js';

export const LONG_N = 1024;
const LABELS = Array.from({ length: LONG_N }, (_, i) => String(i + 1)); // positions counted from 1, as the page does

/** The section, a <details> kept between renders (its open state with it); closed, nothing is computed. */
export class LongWeights {
  #details = null;
  #key = '';
  #weights = null;
  #pool = new Map();

  /** The section for this render; `onToggle` asks the panel to render again. */
  section(lab, t, { d, seed }, onToggle) {
    if (!this.#details) {
      this.#details = el('details', { 'data-role': 'long-weights' }, el('summary'));
      this.#details.addEventListener('toggle', onToggle);
    }
    const summary = this.#details.firstChild;
    const title = `${t('cost.full')}: n = ${fmt(LONG_N)}`;
    if (summary.textContent !== title) summary.textContent = title;
    if (!this.#details.open) {
      place(this.#details, [summary]);
      return this.#details;
    }
    const key = `${d}|${seed}`;
    if (this.#key !== key) {
      const [Q, K, V] = [31, 32, 33].map((s) => randomMatrix(LONG_N, d, seed * 7 + s));
      this.#weights = lab.scaledDotProductAttention(Q, K, V, { trace: true }).weights;
      this.#key = key;
    }
    const n = LONG_N;
    // No export buttons: an SVG of a million cells is no download to offer.
    const heat = createHeatmap({ t, name: title, matrix: this.#weights, rowLabels: LABELS, colLabels: LABELS, compact: true, exportable: false, pool: this.#pool, slot: 'long', base: 1 });
    heat.el.dataset.matrix = 'full-1024';
    const note = t('cost.fullCost', { n, scores: fmt(n * n), dk: d, dv: d, macs: fmt(n * n * 2 * d), bytes: fmt(4 * n * n) });
    place(this.#details, [summary, heat.el, el('p', { class: 'note', text: note })]);
    return this.#details;
  }
}
