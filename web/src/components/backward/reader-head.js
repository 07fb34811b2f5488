// weights="reader" in the backward panel: one head of one layer of the reader trained on real text,
// its Q, K and V straight from reader.attend's trace (that layer's input after its layer norm times
// the head's columns of the trained W_Q, W_K, W_V, computed by the library). No DOM. The input X
// stays inside the model, so there is no X for the weights' gradients (dW = Xᵀ dG).
import { targetFor } from './backward-model.js';

/**
 * What the backward panel runs for head `head` of layer `layer` of the reader's `model` on `text`:
 * { model: { n, tokens, config }, head, inputs: { Q, K, V, mask, T }, truncated? }. The target T is
 * the seeded one (targetFor with `seed`), as for the other weights.
 */
export function readerHeadInputs(reader, model, text, { layer, head, seed }) {
  const run = reader.attend(text, { model, trace: true });
  const { heads, dModel } = reader.models[model];
  const h = Math.max(0, Math.min(head, heads - 1));
  const steps = Object.fromEntries(run.steps[layer][h].map((s) => [s.id, s.matrix]));
  const n = run.tokens.length;
  const dK = dModel / heads;
  const mask = model === 'decoder' ? 'causal' : undefined;
  return {
    model: { n, tokens: run.tokens, config: { heads, dK, dModel, seed } },
    head: h,
    inputs: { Q: steps.Q, K: steps.K, V: steps.V, mask, T: targetFor(n, steps.V.cols, seed) },
    ...(run.truncated ? { truncated: run.truncated } : {}),
  };
}
