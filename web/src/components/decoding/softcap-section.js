// <attention-decoding>'s soft-capping and sliding-window sections: the scores before and after
// c·tanh(s/c) (batchedAttention's trace steps `scores` and `capped`) beside the curve, the weights
// with and without the cap, and causal attention with a sliding window of w keys
// (batchedAttention's `window`). Numbers from softcap-model.js, i.e. from the library.
import { PALETTE, legendItem, lineChart } from '../../chart.js';
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { exact } from '../../format.js';
import { createHeatmap, place } from '../../heatmap.js';
import { fieldset, settingField } from './controls.js';
import { factorText, largestMagnitude, largestWeightRatio, softcapCurve, softcapRun, windowRun } from './softcap-model.js';

export class SoftcapSection {
  #host;
  #ui = null;
  #pool = new Map();

  /** `host`: the <attention-decoding> whose `softcap` and `sliding-window` attributes the controls set. */
  constructor(host) {
    this.#host = host;
  }

  #heat(t, slot, name, matrix, tokens, extra = {}) {
    const h = createHeatmap({ base: 1, t, name, file: `decoding-${slot}`, matrix, rowLabels: tokens, colLabels: tokens, pool: this.#pool, slot, compact: matrix.rows > 10, ...extra });
    h.el.dataset.matrix = slot;
    return h.el;
  }

  /** Soft-capping with cap c, then the sliding window of w keys, for head 0's projections. */
  build(lab, t, proj, tokens, c, w) {
    const ui = (this.#ui ??= this.#build());
    const run = softcapRun(lab, proj, c);
    ui.capLegend.textContent = t('decoding.capControls');
    ui.cap.sync({ text: t('decoding.cap'), min: 0.1, max: 50, value: c, helpText: t('decoding.capHelp') });
    // Scores before and after the cap on one colour scale (the cap's narrower range shows), and the
    // two weight matrices on another: figures of one quantity side by side share one scale and legend.
    const [scores, capped] = onOneScale([run.scores, run.capped]);
    place(ui.capGrid, [this.#heat(t, 'scores', t('decoding.scores'), scores, tokens), this.#heat(t, 'capped', t('decoding.capped', { c }), capped, tokens), this.#curve(lab, t, c, run)]);
    const weights = { mask: run.mask, maskedText: '0' };
    const [plainW, cappedW] = onOneScale([run.plainWeights, run.weights], [run.mask, run.mask]);
    place(ui.weightGrid, [this.#heat(t, 'plain-weights', t('decoding.plainWeights'), plainW, tokens, weights), this.#heat(t, 'capped-weights', t('decoding.cappedWeights', { c }), cappedW, tokens, weights)]);
    const n = tokens.length;
    const win = windowRun(lab, proj, Math.min(w, n));
    ui.winLegend.textContent = t('decoding.windowControls');
    ui.win.sync({ text: t('decoding.window', { w: Math.min(w, n), n }), min: 1, max: Math.max(1, n), value: Math.min(w, n), helpText: t('decoding.windowHelp') });
    place(ui.winGrid, [this.#heat(t, 'window-weights', t('decoding.windowWeights', { w: Math.min(w, n) }), win.weights, tokens, { mask: win.mask, maskedText: '0' })]);
    return [
      el('h3', { text: t('decoding.capHeading') }),
      el('p', { class: 'intro', text: t('decoding.capIntro') }),
      ui.capForm,
      ui.capGrid,
      // "below c" only when it is: float32 rounds c·tanh(s/c) to c itself for a score of about 9c or more.
      el('p', { class: 'note', 'data-role': 'cap-bound', text: t(largestMagnitude(run.capped) < c ? 'decoding.capBound' : 'decoding.capBoundAt', { before: exact(largestMagnitude(run.scores)), after: exact(largestMagnitude(run.capped)), c }) }),
      ui.weightGrid,
      el('p', { class: 'note', 'data-role': 'cap-ratio', text: t('decoding.capRatio', { c, bound: factorText(Math.exp(2 * c)), seen: factorText(largestWeightRatio(run.weights, run.mask)) }) }),
      el('h3', { text: t('decoding.windowHeading') }),
      el('p', { class: 'intro', text: t('decoding.windowIntro') }),
      ui.winForm,
      ui.winGrid,
      el('p', { class: 'note', 'data-role': 'window-seen', text: t('decoding.windowSeen', { counts: win.seen.join(', '), w: Math.min(w, n) }) }),
    ];
  }

  /** The library's curve c·tanh(s/c) for s in [−4c, 4c], the sentence's scores as points on it. */
  #curve(lab, t, c, run) {
    const curve = softcapCurve(lab, c);
    const x = Array.from(curve.s);
    // The uncapped line s, drawn where it stays inside the chart's ±1.1c.
    const identity = x.filter((v) => Math.abs(v) <= 1.1 * c);
    const points = { label: t('decoding.curvePoints'), x: Array.from(run.scores.data), y: Array.from(run.capped.data), color: PALETTE.vermillion, points: true };
    const chart = lineChart({
      x,
      xTicks: [-4 * c, -2 * c, 0, 2 * c, 4 * c],
      yRange: [-1.1 * c, 1.1 * c],
      yTicks: [-c, 0, c],
      series: [{ label: t('decoding.curveLine'), y: Array.from(curve.capped), color: PALETTE.blue }, { label: t('decoding.curveIdentity'), x: identity, y: identity, color: PALETTE.green, dash: '4 3', width: 1.5 }, points],
      xLabel: t('decoding.curveX'),
      title: t('decoding.curveTitle', { c }),
      width: 320,
      height: 220,
    });
    chart.setAttribute('part', 'chart');
    chart.dataset.role = 'curve';
    chart.dataset.capped = Array.from(curve.capped).join(' ');
    chart.dataset.s = x.join(' ');
    const legend = el('p', { class: 'legend-line' }, legendItem(t('decoding.curveLine'), PALETTE.blue), legendItem(t('decoding.curveIdentity'), PALETTE.green, true), legendItem(t('decoding.curvePoints'), PALETTE.vermillion));
    return el('figure', { class: 'chart', 'data-figure': 'curve' }, el('figcaption', { text: t('decoding.curveTitle', { c }) }), chart, legend);
  }

  #build() {
    const host = this.#host;
    const cap = settingField(host, 'softcap', { type: 'number', step: '0.1', help: true });
    const win = settingField(host, 'sliding-window', { help: true });
    const [capLegend, winLegend] = [el('legend'), el('legend')];
    const grid = () => el('div', { class: 'grid decoding-grid' });
    return { cap, win, capLegend, winLegend, capForm: fieldset(capLegend, [cap]), winForm: fieldset(winLegend, [win]), capGrid: grid(), weightGrid: grid(), winGrid: grid() };
  }
}
