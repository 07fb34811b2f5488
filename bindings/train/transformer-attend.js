// model.attend: one forward pass of a decoder-only ('lm') or encoder-only ('mlm') model over
// given ids, and what it computed: every layer's and head's self-attention weights (n × n; the
// decoder's causal, the encoder's over every position) and the logits of every position (n × V).
// The ids are read as given (no BOS is added). With { inputs: true }, also each layer's
// self-attention input (n × d_model, after the pre-norm when norm is 'pre'): X W_Q, X W_K, X W_V of
// it are the layer's Q, K, V. Results are copies, never views of the heap.
import { AttentionError, fail } from '../errors.js';
import { checkOptions } from '../validate.js';
import { checkCoreStatus, toIds } from './transformer-batch.js';

const { INVALID_ARGUMENT } = AttentionError.codes;

/** The checked ids of an attend call: a non-empty sequence of at most maxLength ids of the vocabulary. */
function attendIds(fn, config, ids) {
  if (config.kind === 'seq2seq')
    fail(INVALID_ARGUMENT, `${fn}: an encoder–decoder ('seq2seq') model's attention depends on a source and a decoder input; attend takes 'lm' and 'mlm' models (use generate(ids, { attention: true }) for this one)`);
  const given = toIds(fn, 'ids', ids, config.vocabSize);
  if (given.length === 0) fail(INVALID_ARGUMENT, `${fn}: ids is empty; give at least one token id`);
  if (given.length > config.maxLength)
    fail(INVALID_ARGUMENT, `${fn}: ids has ${given.length} tokens but this model reads at most maxLength = ${config.maxLength}`);
  return given;
}

/**
 * → { attention: Matrix[layer][head], logits?: Matrix, inputs?: Matrix[layer] }, Matrix = { rows, cols, data: Float32Array }.
 * { logits: false } skips the output head (n × dModel × vocabSize of a pass's work) and its copy.
 */
export function attend(state, ids, options) {
  const fn = 'TransformerModel.attend';
  const { config } = state;
  const given = attendIds(fn, config, ids);
  const { inputs = false, logits = true } = checkOptions(fn, options, ['inputs', 'logits']);
  if (typeof inputs !== 'boolean') fail(INVALID_ARGUMENT, `${fn}: inputs must be true or false, got ${String(inputs)}`);
  if (typeof logits !== 'boolean') fail(INVALID_ARGUMENT, `${fn}: logits must be true or false, got ${String(logits)}`);
  const n = given.length;
  const layers = config.kind === 'mlm' ? config.encoderLayers : config.decoderLayers;
  const f = state.context.frame(fn);
  const slots = {
    ids: f.input(given), length: n, maps: f.output(layers * config.heads * n * n), logits: f.output(n * config.vocabSize, logits),
    inputs: f.output(layers * n * config.dModel, inputs), status: f.output(1),
  };
  f.call('modelAttend', { model: state.handle, ...slots });
  // Read the heap after the call: the model's own buffers may have grown the memory.
  const { HEAP32, HEAPF32 } = state.context.module;
  checkCoreStatus(fn, HEAP32[f.addr(slots.status) >> 2], `a sequence of ${n} tokens`);
  const copy = (slot, first, rows, cols) => {
    const start = (f.addr(slot) >> 2) + first;
    return { rows, cols, data: HEAPF32.slice(start, start + rows * cols) };
  };
  const attention = Array.from({ length: layers }, (_, l) =>
    Array.from({ length: config.heads }, (_, h) => copy(slots.maps, (l * config.heads + h) * n * n, n, n)));
  const result = { attention };
  if (logits) result.logits = copy(slots.logits, 0, n, config.vocabSize);
  if (inputs) result.inputs = Array.from({ length: layers }, (_, l) => copy(slots.inputs, l * n * config.dModel, n, config.dModel));
  return result;
}
