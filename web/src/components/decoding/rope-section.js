// <attention-decoding>'s RoPE section: the angle of every frequency pair at every position
// (lab.rotaryAngles), each pair's rotated coordinates of q on its circle (lab.rotaryEmbedding),
// and the scores q_rot(m)·k_rot(n), constant along diagonals (m − n fixed), then the same with both positions
// moved by a shift: unchanged; the pairings (rotate-half here, RoFormer's interleaved) and a link to the
// positional-encoding panel's rotation. Numbers from rope-model.js, i.e. from the library.
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { exact } from '../../format.js';
import { createHeatmap, place } from '../../heatmap.js';
import { fieldset, panelLink, settingField } from './controls.js';
import { pairChart } from './pair-chart.js';
import { pairPoints, ropeRun } from './rope-model.js';

export class RopeSection {
  #host;
  #ui = null;
  #pool = new Map();

  /** `host`: the <attention-decoding> whose `rope-base` and `rope-shift` attributes the controls set. */
  constructor(host) {
    this.#host = host;
  }

  build(lab, t, proj, base, shift) {
    const heading = el('h3', { text: t('decoding.ropeHeading') });
    const intro = el('p', { class: 'intro', text: t('decoding.ropeIntro') });
    const pairing = el('p', { class: 'intro', 'data-role': 'rope-pairing', text: t('decoding.ropePairing') });
    const link = el('div', { class: 'why', 'data-role': 'rope-link' }, el('p', { text: t('decoding.ropeLink') }), ...panelLink(this.#host, 'positions', t('decoding.openPositions')));
    const d = proj.Q.cols;
    if (d % 2) return [heading, intro, pairing, link, el('p', { class: 'note', 'data-role': 'rope-odd', text: t('decoding.ropeOdd', { d }) })];
    const ui = (this.#ui ??= this.#build());
    ui.legend.textContent = t('decoding.ropeControls');
    ui.base.sync({ text: t('decoding.ropeBase'), min: 2, max: 1e6, value: base });
    ui.shift.sync({ text: t('decoding.ropeShift'), min: 0, max: 64, value: shift });
    const r = ropeRun(lab, proj, { base, shift });
    const positions = Array.from({ length: r.scores.rows }, (_, p) => String(p));
    const pairs = Array.from({ length: d / 2 }, (_, i) => String(i));
    const heat = (slot, name, matrix, rows, cols, extra = {}) => {
      const h = createHeatmap({ t, name, file: `decoding-${slot}`, matrix, rowLabels: rows, colLabels: cols, pool: this.#pool, slot, compact: true, ...extra });
      h.el.dataset.matrix = slot;
      return h.el;
    };
    const shifted = positions.map((p) => String(Number(p) + shift));
    place(ui.angles, [heat('rope-angles', t('decoding.ropeAngles'), r.angles, positions, pairs, { compact: d > 16 }), this.#pairs(t, r)]);
    // The scores before and after the shift, to be compared: one colour scale and legend.
    const [scores, moved] = onOneScale([r.scores, r.shifted]);
    place(ui.scores, [heat('rope-scores', t('decoding.ropeScores'), scores, positions, positions), heat('rope-shifted', t('decoding.ropeShifted', { shift }), moved, shifted, shifted)]);
    return [
      heading,
      intro,
      pairing,
      link,
      ui.form,
      ui.angles,
      el('p', { class: 'note', text: t('decoding.ropePairs') }),
      ui.scores,
      el('p', { class: 'note', 'data-role': 'rope-diagonal', text: t('decoding.ropeDiagonal', { spread: exact(r.spread), plain: exact(r.plain) }) }),
      el('p', { class: 'note', 'data-role': 'rope-shift', text: t('decoding.ropeMoved', { shift, moved: exact(r.moved) }) }),
    ];
  }

  /** One circle per frequency pair: q rotated at every position (pair i is coordinates i and i + d/2). */
  #pairs(t, r) {
    const box = el('div', { class: 'pair-charts chart', 'data-role': 'rope-pairs' });
    const count = r.q.cols / 2;
    for (let i = 0; i < count; i++) box.append(pairChart(pairPoints(r.q, i), { i, theta: r.angles.data[r.angles.cols + i], title: t('decoding.ropePairTitle', { i, j: i + count }) }));
    return el('figure', { class: 'chart' }, el('figcaption', { text: t('decoding.ropePairsCaption') }), box);
  }

  #build() {
    const host = this.#host;
    const base = settingField(host, 'rope-base', { type: 'number' });
    const shift = settingField(host, 'rope-shift', { type: 'number' });
    const legend = el('legend');
    return { base, shift, legend, form: fieldset(legend, [base, shift]), angles: el('div', { class: 'grid decoding-grid' }), scores: el('div', { class: 'grid decoding-grid' }) };
  }
}
