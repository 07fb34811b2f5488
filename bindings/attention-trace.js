// The buffers and steps every softmax-attention form shares: weights, output,
// and, when traced, the scores before and after scaling and masking.
import { step } from './steps.js';
import { MaskKind } from './validate.js';

/** The n×m visibility bits (1 = may attend) of a checked mask. */
function maskBits(mask, n, m) {
  if (mask.kind === MaskKind.matrix) return mask.bits.slice();
  const bits = new Uint8Array(n * m);
  for (let i = 0; i < n; i++) {
    const end = mask.kind === MaskKind.causal ? Math.min(i + 1, m) : mask.kind === MaskKind.validLens ? mask.lens[i] : m;
    bits.fill(1, i * m, i * m + end);
  }
  return bits;
}

/**
 * Output slots of one attention in frame `f`: weights and output always, the
 * trace buffers when asked for; `scaled: false` for a form without a scaled step.
 */
export function attentionSlots(f, n, m, dv, mask, trace, { scaled = true } = {}) {
  const slots = { weights: f.output(n * m), output: f.output(n * dv), scores: f.output(n * m, trace) };
  if (scaled) slots.scaled = f.output(n * m, trace);
  slots.masked = f.output(n * m, trace && mask.kind !== MaskKind.none);
  return slots;
}

/** The trace steps from scores to output, in computation order. */
export function attentionSteps(f, slots, n, m, mask, family, result, extra = {}) {
  const steps = [step('scores', f.matrix(slots.scores, n, m), family)];
  if (slots.scaled) steps.push(step('scaled', f.matrix(slots.scaled, n, m), family, extra));
  if (slots.masked) steps.push(step('masked', f.matrix(slots.masked, n, m), family, { mask: maskBits(mask, n, m) }));
  steps.push(step('weights', result.weights, family, { afterMask: Boolean(slots.masked) }), step('output', result.output, family));
  return steps;
}
