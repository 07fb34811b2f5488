// Parametric pooling (D2L 10.2.4) in <attention-pooling>: w of the Gaussian kernel learned by
// lab.fitParametricPooling, with the loss per epoch, a choice of learning rate and a button
// that uses the learned bandwidth.
import { PALETTE, lineChart } from '../../chart.js';
import { el } from '../../dom.js';
import { renderTexCached } from '../../tex.js';
import { classifyLoss, curveSentence } from './loss-curve.js';
import { RATES } from './settings.js';

const FORMULA = String.raw`f(x) = \sum_{i} \operatorname{softmax}\Big(-\tfrac{1}{2}\big((x - x_i)\,w\big)^2\Big)\, y_i, \qquad L(w) = \tfrac{1}{2} \sum_{i} \big(f_{-i}(x_i) - y_i\big)^2`;

/** The loss against epoch, line and points. */
function lossChart(t, losses) {
  return lineChart({
    title: t('pooling.lossTitle'),
    width: 420,
    height: 200,
    x: losses.map((_, e) => e),
    xLabel: t('pooling.epoch'),
    yRange: [0, Math.ceil(Math.max(...losses))],
    series: [
      { label: t('pooling.loss'), y: losses, color: PALETTE.vermillion },
      { label: t('pooling.loss'), y: losses, color: PALETTE.vermillion, points: true },
    ],
  });
}

/**
 * The section for `fit` (the library's result) learned at `rate`: `onRate(rate)` when another
 * rate is chosen, `onUse(bandwidth)` when the learned bandwidth is to be used. `texCache`: the
 * host's rendered formulas.
 */
export function fitSection(t, fit, rate, { onRate, onUse, texCache }) {
  const formula = el('div', { class: 'formula', part: 'formula' });
  renderTexCached(formula, texCache, FORMULA);
  const rates = el('select', { id: 'rate', 'data-key': 'rate' }, ...RATES.map((r) => el('option', { value: r, text: r })));
  rates.value = rate;
  rates.addEventListener('change', () => onRate(rates.value));
  const use = el('button', { type: 'button', id: 'use-learned', 'data-key': 'use-learned', text: t('pooling.useLearned', { h: fit.bandwidth.toFixed(2) }) });
  use.addEventListener('click', () => onUse(Math.min(10, Math.max(0.01, Number(fit.bandwidth.toFixed(2))))));
  const losses = Array.from(fit.losses);
  const result = t('pooling.fitResult', { w: fit.w.toFixed(3), h: fit.bandwidth.toFixed(3), first: losses[0].toFixed(2), last: losses.at(-1).toFixed(2), epochs: losses.length });
  const curve = classifyLoss(losses);
  return el(
    'section',
    { class: 'fit', part: 'fit', 'aria-labelledby': 'fit-heading' },
    el('h3', { id: 'fit-heading', text: t('pooling.fitHeading') }),
    el('p', { class: 'intro', text: t('pooling.fitIntro') }),
    formula,
    el('div', { class: 'controls' }, el('div', { class: 'field' }, el('label', { for: 'rate', text: t('pooling.rate') }), rates), use),
    el('figure', { class: 'chart chart-wrap', part: 'chart' }, lossChart(t, losses)),
    el('p', { class: 'readout', 'data-role': 'fit', text: result }),
    el('p', { class: 'readout', 'data-role': 'fit-curve', 'data-kind': curve.kind, text: curveSentence(t, curve, losses.length) }),
  );
}
