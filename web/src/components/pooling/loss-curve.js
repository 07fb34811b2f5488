// What a loss curve of gradient descent shows, read from the curve itself (no DOM): the sentence
// under <attention-pooling>'s loss chart is chosen from this, never written as a fixed claim (it
// said "too large a learning rate overshoots" under a curve that only fell slowly).
//
// - 'rises':   the loss went up at some step: that step went past the minimum (the learning rate
//              is too large there); `step` is the first such step (1-based), `from` → `to`.
// - 'slow':    it fell at every step and still falls at the last by at least SLOW_STEP of its
//              value: it has not levelled off in these steps.
// - 'flat':    it fell (or stayed) at every step and its last step changed it by less than
//              SLOW_STEP: it has levelled off (which need not be the lowest loss another rate reaches).
// - 'short':   fewer than two points: nothing to say.

/** A last step that lowers the loss by this share of its value or more is "still falling". */
export const SLOW_STEP = 0.001;

/** A rise smaller than this share of the loss is rounding, not a rise (float32 losses). */
const RISE_TOLERANCE = 1e-6;

/**
 * @param {ArrayLike<number>} losses  the loss before each step
 * @returns {{ kind: 'rises'|'slow'|'flat'|'short', step?: number, from?: number, to?: number, lastDrop?: number }}
 *   lastDrop: the last step's fall as a share of the loss before it
 */
export function classifyLoss(losses) {
  const y = Array.from(losses);
  if (y.length < 2) return { kind: 'short' };
  for (let k = 1; k < y.length; k++) {
    if (y[k] - y[k - 1] > RISE_TOLERANCE * Math.max(1, Math.abs(y[k - 1]))) return { kind: 'rises', step: k, from: y[k - 1], to: y[k] };
  }
  const before = y.at(-2);
  const lastDrop = before > 0 ? (before - y.at(-1)) / before : 0;
  return { kind: lastDrop >= SLOW_STEP ? 'slow' : 'flat', from: before, to: y.at(-1), lastDrop };
}

/** A share as a percentage with two significant digits ("0.13", "1.2"). */
const percent = (share) => String(Number((share * 100).toPrecision(2)));

/** The curve's kind (classifyLoss) in a sentence of `t`'s language; '' when there is nothing to say. */
export function curveSentence(t, curve, epochs) {
  if (curve.kind === 'short') return '';
  const from = curve.from.toFixed(3);
  const to = curve.to.toFixed(3);
  if (curve.kind === 'rises') return t('pooling.curve.rises', { step: curve.step, from, to });
  if (curve.kind === 'slow') return t('pooling.curve.slow', { from, to, pct: percent(curve.lastDrop), epochs });
  return t('pooling.curve.flat', { from, to, pct: percent(SLOW_STEP) });
}
