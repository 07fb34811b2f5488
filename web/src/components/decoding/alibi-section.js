// <attention-decoding>'s ALiBi section: per head, the bias −m_h·(i − j) (lab.alibiBias, slopes from
// lab.alibiSlopes) and the causal weights it gives (lab.batchedAttention with the bias, the same
// query in every head), how far back each head looks on average, and the weights without a bias.
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { alibiRun, slopeText } from './alibi-model.js';
import { fieldset, settingField } from './controls.js';

export class AlibiSection {
  #host;
  #ui = null;
  #pool = new Map();
  #boxes = new Map();

  /** `host`: the <attention-decoding> whose `alibi-heads` attribute the slider sets. */
  constructor(host) {
    this.#host = host;
  }

  build(lab, t, proj, tokens, heads) {
    const heading = el('h3', { text: t('decoding.alibiHeading') });
    const intro = el('p', { class: 'intro', text: t('decoding.alibiIntro') });
    const ui = (this.#ui ??= this.#build());
    ui.legend.textContent = t('decoding.alibiControls');
    ui.heads.sync({ text: t('decoding.alibiHeads', { h: heads }), min: 1, max: 8, value: heads });
    const r = alibiRun(lab, proj, heads);
    // Every head's bias on one colour scale, every head's weights on another: side by side, one quantity, one legend.
    const masks = r.heads.map((head) => head.mask);
    const biases = onOneScale(r.heads.map((head) => head.bias), masks);
    const weights = onOneScale(r.heads.map((head) => head.weights), masks);
    const heat = (slot, name, matrix, mask) => {
      const h = createHeatmap({ base: 1, t, name, file: `decoding-${slot}`, matrix, mask, maskedText: slot.startsWith('alibi-bias') ? '−∞' : '0', rowLabels: tokens, colLabels: tokens, pool: this.#pool, slot, compact: tokens.length > 8 });
      h.el.dataset.matrix = slot;
      return h.el;
    };
    const cards = r.heads.map((head, h) => {
      let box = this.#boxes.get(h);
      if (!box) this.#boxes.set(h, (box = el('div', { class: 'alibi-head', 'data-head': String(h) })));
      place(box, [
        el('h4', { text: t('decoding.alibiHead', { h: h + 1, m: slopeText(head.slope) }) }),
        heat(`alibi-bias-${h}`, t('decoding.alibiBias', { h: h + 1 }), biases[h], head.mask),
        heat(`alibi-weights-${h}`, t('decoding.alibiWeights', { h: h + 1 }), weights[h], head.mask),
        el('p', { class: 'note', 'data-role': `alibi-distance-${h}`, text: t('decoding.alibiDistance', { x: head.distance.toFixed(2) }) }),
      ]);
      return box;
    });
    place(ui.grid, cards);
    return [heading, intro, el('p', { class: 'intro', 'data-role': 'alibi-why', text: t('decoding.alibiWhy') }), ui.form, ui.grid, el('p', { class: 'note', 'data-role': 'alibi-plain', text: t('decoding.alibiPlain', { x: r.plainDistance.toFixed(2), slopes: r.slopes.map(slopeText).join(', ') }) })];
  }

  #build() {
    const heads = settingField(this.#host, 'alibi-heads');
    const legend = el('legend');
    return { heads, legend, form: fieldset(legend, [heads]), grid: el('div', { class: 'grid decoding-grid alibi-grid' }) };
  }
}
