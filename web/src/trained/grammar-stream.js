// The shipped grammar model's residual stream on a sentence, layer by layer, without DOM: what a
// panel needs to show one layer's attention with its trained weights. The model (lab.loadTrained
// ('grammar')) is a pre-norm decoder, x₀ = √d_model · E[token] + P with sinusoidal P; its layers are
// computed by pre-norm-stack.js (library attention and matmul; layer norm, biases and ReLU in
// JavaScript). This file adds what is the grammar model's own: its tokenizer and its stack's name.
import { checkLayer, embedded as stackEmbedded, layerNorm, layerSteps as stackLayerSteps, layerWeights as stackLayerWeights, streamBefore } from './pre-norm-stack.js';

export { LAYER_STEPS, layerNorm } from './pre-norm-stack.js';

/** The grammar model as a pre-norm stack: its config, parameters (read once per model) and stack name. */
const stacks = new WeakMap();
export function grammarStack(model) {
  if (!stacks.has(model)) stacks.set(model, { config: model.config, parameters: model.parameters(), prefix: 'decoder' });
  return stacks.get(model);
}

/** The token ids read for `sentence`: <bos> and its tokens up to the model's length; all: every token. */
export function sentenceIds(lab, model, sentence) {
  const task = lab.tasks.grammar;
  const all = Array.from(task.encode(sentence));
  return { all, ids: [task.bos, ...all.slice(0, model.config.maxLength - 1)] };
}

/** x₀ = √d_model · E[token] + P for `ids` (rows: tokens). */
export const embedded = (lab, model, ids) => stackEmbedded(lab, grammarStack(model), ids);

/** Layer `layer`'s trained tensors: attention W_Q…W_O, both norms' γ, β and the FFN's W₁, b₁, W₂, b₂. */
export const layerWeights = (model, layer) => stackLayerWeights(grammarStack(model), layer);

/** One layer on stream x, every intermediate (pre-norm-stack.js layerSteps; causal). */
export const layerSteps = (lab, model, x, layer) => stackLayerSteps(lab, grammarStack(model), x, layer);

/** The stream after one pre-norm layer: x + MHA(LN₁(x)), then + FFN(LN₂(·)). */
export const throughLayer = (lab, model, x, layer) => layerSteps(lab, model, x, layer).output;

/** Layer `layer`'s steps on `sentence` (the stream it reads computed through the layers before): { steps, ids, all }. */
export function sentenceLayerSteps(lab, model, sentence, layer) {
  checkLayer(grammarStack(model), layer);
  const { ids, all } = sentenceIds(lab, model, sentence);
  const x = streamBefore(lab, grammarStack(model), ids, layer);
  return { steps: layerSteps(lab, model, x, layer), ids, all };
}

/**
 * What layer `layer`'s attention reads on `sentence`: { X (LN₁ of the stream), Wq, Wk, Wv, Wo,
 * ids, all }. Layer 0 reads LN₁(x₀); layer ℓ the stream after layers 0…ℓ−1.
 */
export function layerInput(lab, model, sentence, layer) {
  checkLayer(grammarStack(model), layer);
  const { ids, all } = sentenceIds(lab, model, sentence);
  const x = streamBefore(lab, grammarStack(model), ids, layer);
  const w = layerWeights(model, layer);
  return { X: layerNorm(x, ...w.norm1), Wq: w.Wq, Wk: w.Wk, Wv: w.Wv, Wo: w.Wo, ids, all };
}
