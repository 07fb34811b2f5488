// model.generate: greedy decoding in the core, and the attention weights of
// that decode as [layer][head] matrices (number[][]) with the tokens that
// label their rows and columns. A seq2seq model's encoder reads the ids and
// its decoder starts from BOS; a decoder-only model continues BOS + the ids.
import { AttentionError, fail } from '../errors.js';
import { checkOptions, toBoolean, toPositiveInteger } from '../validate.js';
import { checkCoreStatus, toIds } from './transformer-batch.js';

const { INVALID_ARGUMENT } = AttentionError.codes;
const GENERATE_OPTIONS = ['maxLength', 'attention', 'bos', 'eos'];
// The special ids of the task contract, for a model made without a task.
const BOS = 1;
const EOS = 2;

function specialId(fn, name, value, fallback, vocabSize) {
  const id = value ?? fallback;
  if (!Number.isInteger(id) || id < 0 || id >= vocabSize) fail(INVALID_ARGUMENT, `${fn}: ${name} must be a token id (0 … ${vocabSize - 1}), got ${String(id)}`);
  return id;
}

// What the decode reads and may write, checked against the model's positions.
function request(state, fn, ids, options) {
  const o = checkOptions(fn, options, GENERATE_OPTIONS);
  const { config, task } = state;
  if (config.kind === 'mlm')
    fail(INVALID_ARGUMENT, `${fn}: an encoder-only ('mlm') model predicts masked tokens from both sides; it does not continue text. Use model.attend(ids): its logits give the prediction at every position`);
  const bos = specialId(fn, 'bos', o.bos, task?.bos ?? BOS, config.vocabSize);
  const eos = specialId(fn, 'eos', o.eos, task?.eos ?? EOS, config.vocabSize);
  const given = toIds(fn, 'ids', ids, config.vocabSize);
  const seq2seq = config.kind === 'seq2seq';
  if (seq2seq && given.length === 0) fail(INVALID_ARGUMENT, `${fn}: ids is empty; the encoder needs at least one token to read`);
  if (seq2seq && given.length > config.maxLength)
    fail(INVALID_ARGUMENT, `${fn}: ids has ${given.length} tokens but this model reads at most maxLength = ${config.maxLength}`);
  // BOS, then (decoder-only) the ids: set, not spread (a spread of 125,000 ids overflows the stack).
  const prefixLength = seq2seq ? 1 : given.length + 1;
  const room = config.maxLength - prefixLength + 1;
  if (room < 1) fail(INVALID_ARGUMENT, `${fn}: BOS and the ${given.length} ids already fill the model's ${config.maxLength} positions; nothing can follow`);
  const prefix = new Int32Array(prefixLength);
  prefix[0] = bos;
  if (!seq2seq) prefix.set(given, 1);
  const maxNew = o.maxLength === undefined ? Math.min(room, task?.maxLength ?? room) : toPositiveInteger(fn, 'maxLength', o.maxLength);
  if (maxNew > room) fail(INVALID_ARGUMENT, `${fn}: maxLength ${maxNew} is more tokens than fit after the prefix (at most ${room} for this model's maxLength ${config.maxLength})`);
  return { source: seq2seq ? given : null, prefix, eos, maxNew, attention: toBoolean(fn, 'attention', o.attention) };
}

const labelsOf = (task, ids) => (task?.tokens ? task.tokens(ids) : Array.from(ids, String));

// One map's floats [layers][heads][stride rows][cols] → [layer][head] of rows × cols number[][].
function maps(heap, address, layers, heads, stride, rows, cols) {
  const out = [];
  for (let l = 0; l < layers; l++) {
    const perHead = [];
    for (let h = 0; h < heads; h++) {
      const start = (address >> 2) + (l * heads + h) * stride * cols;
      perHead.push(Array.from({ length: rows }, (_, i) => Array.from(heap.subarray(start + i * cols, start + (i + 1) * cols))));
    }
    out.push(perHead);
  }
  return out;
}

/** Greedy decoding → { tokens, text?, attention? }. */
export function generate(state, ids, options) {
  const fn = 'TransformerModel.generate';
  const r = request(state, fn, ids, options);
  const { config } = state;
  const S = r.source?.length ?? 0;
  // Rows (and decoder columns) of the maps: every position the decoder may read, the prefix and each output but the last.
  const T = r.prefix.length + r.maxNew - 1;
  const f = state.context.frame(fn);
  const want = (floats) => f.output(floats, r.attention && floats > 0);
  const slots = {
    source: f.input(r.source), sourceLength: S, prefix: f.input(r.prefix), prefixLength: r.prefix.length, eos: r.eos,
    maxNew: r.maxNew, tokens: f.output(r.maxNew), outLength: f.output(1),
    encoder: want(config.encoderLayers * config.heads * S * S),
    decoder: want(config.decoderLayers * config.heads * T * T),
    cross: want(config.kind === 'seq2seq' ? config.decoderLayers * config.heads * T * S : 0), status: f.output(1),
  };
  f.call('modelGenerate', { model: state.handle, ...slots });
  const { HEAP32, HEAPF32 } = state.context.module;
  checkCoreStatus(fn, HEAP32[f.addr(slots.status) >> 2], `decoding ${r.maxNew} tokens after ${r.prefix.length}${S ? ` from a source of ${S}` : ''}`);
  const length = HEAP32[f.addr(slots.outLength) >> 2];
  const start = f.addr(slots.tokens) >> 2;
  const tokens = Array.from(HEAP32.subarray(start, start + length));
  const result = { tokens };
  if (state.task?.decode) result.text = state.task.decode(tokens);
  if (!r.attention) return result;
  // Decoder rows: the tokens the decoder read (the prefix, then each output but the last).
  const read = [...r.prefix, ...tokens].slice(0, Math.max(r.prefix.length, r.prefix.length + length - 1));
  const rows = read.length;
  const decoderLabels = labelsOf(state.task, read);
  const sourceLabels = labelsOf(state.task, r.source ?? []);
  result.attention = {
    encoder: slots.encoder ? maps(HEAPF32, f.addr(slots.encoder), config.encoderLayers, config.heads, S, S, S) : null,
    decoder: maps(HEAPF32, f.addr(slots.decoder), config.decoderLayers, config.heads, T, rows, T).map((l) => l.map((h) => h.map((row) => row.slice(0, rows)))),
    cross: slots.cross ? maps(HEAPF32, f.addr(slots.cross), config.decoderLayers, config.heads, T, rows, S) : null,
    labels: {
      encoder: slots.encoder ? { rows: sourceLabels, cols: sourceLabels } : null,
      decoder: { rows: decoderLabels, cols: decoderLabels },
      cross: slots.cross ? { rows: decoderLabels, cols: sourceLabels } : null,
    },
  };
  return result;
}
