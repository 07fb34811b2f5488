// The reader's residual stream on a text, layer by layer, without DOM: its encoder ('mlm', the stack
// named encoder.*) and its decoder ('lm', decoder.*, causal) are pre-norm stacks with learned
// positions, computed by pre-norm-stack.js from reader.parameters(model) (library attention and
// matmul; layer norm, biases and ReLU in JavaScript). The pieces are reader.attend's: <bos> first
// in the decoder, at most the reader's length, with its truncated note.
import { LAYER_STEPS, layerCount, layerSteps, streamBefore } from './pre-norm-stack.js';

export { LAYER_STEPS };

/** Each reader's stacks, read once per model (reader.parameters copies every tensor). */
const stacks = new WeakMap();

/** The reader's `model` ('encoder' or 'decoder') as a pre-norm stack: { config, parameters, prefix }. */
export function readerStack(reader, model) {
  if (!stacks.has(reader)) stacks.set(reader, {});
  const kept = stacks.get(reader);
  kept[model] ??= { config: reader.models[model], parameters: reader.parameters(model), prefix: model };
  return kept[model];
}

/** The layers of the reader's `model`. */
export const readerLayers = (reader, model) => layerCount(readerStack(reader, model));

/**
 * The ids `model` reads for `text`, as reader.attend reads them: { ids, tokens, truncated? } (<bos>
 * first in the decoder; the first pieces, up to the reader's length).
 */
export function readerIds(reader, model, text) {
  const { tokens, truncated } = reader.attend(text, { model });
  const bos = model === 'decoder' ? [reader.tokenizer.pieces.indexOf('<bos>')] : [];
  const ids = [...bos, ...Array.from(reader.tokenize(text).ids).slice(0, tokens.length - bos.length)];
  return { ids, tokens, ...(truncated ? { truncated } : {}) };
}

/** Layer `layer`'s steps (pre-norm-stack.js LAYER_STEPS) of the reader's `model` on `text`: { steps, tokens, truncated? }. */
export function readerLayerSteps(lab, reader, model, text, layer) {
  const stack = readerStack(reader, model);
  const { ids, tokens, truncated } = readerIds(reader, model, text);
  const steps = layerSteps(lab, stack, streamBefore(lab, stack, ids, layer), layer);
  return { steps, tokens, ...(truncated ? { truncated } : {}) };
}
