// The options of createTransformer, checked and turned into the core's
// ModelConfig (src/train/transformer_model.h): from a task (its vocabulary,
// kind, lengths and default sizes) or from explicit sizes. Nothing here
// touches WASM.
import { AttentionError, fail } from '../errors.js';
import { checkOptions, toBoolean, toCount, toPositiveSize } from '../validate.js';

const { INVALID_ARGUMENT, SHAPE_MISMATCH } = AttentionError.codes;

export const CREATE_OPTIONS = [
  'task', 'vocabSize', 'maxLength', 'kind', 'dModel', 'heads', 'dFF', 'encoderLayers', 'decoderLayers',
  'crossScoring', 'scaled', 'norm', 'positions', 'activation', 'seed',
];

// Each enumerated option's names, in the core's numbering.
export const CHOICES = {
  kind: ['seq2seq', 'lm', 'mlm'],
  crossScoring: ['dot', 'additive'],
  norm: ['post', 'pre'],
  positions: ['sinusoidal', 'learned'],
  activation: ['relu', 'gelu'],
};

// Sizes a task's model takes when neither the task nor the caller gives them (the header's defaults).
const SIZE_DEFAULTS = { dModel: 32, heads: 4, dFF: 64, decoderLayers: 1 };
const MAX_VOCABULARY = 1 << 20;
const MAX_LENGTH = 4096;

function choice(fn, name, value, fallback) {
  if (value === undefined) return CHOICES[name].indexOf(fallback);
  const index = CHOICES[name].indexOf(value);
  if (index < 0) fail(INVALID_ARGUMENT, `${fn}: ${name} must be ${CHOICES[name].map((c) => `'${c}'`).join(' or ')}, got ${JSON.stringify(value)}`);
  return index;
}

// The fields of a task createTransformer reads (see the task contract), checked.
function taskShape(fn, task) {
  if (task === null || typeof task !== 'object' || !Array.isArray(task.vocabulary))
    fail(INVALID_ARGUMENT, `${fn}: task must be a task object such as lab.tasks.dates (with a vocabulary array), got ${task === null ? 'null' : typeof task}`);
  if (!CHOICES.kind.includes(task.kind)) fail(INVALID_ARGUMENT, `${fn}: task.kind must be 'seq2seq', 'lm' or 'mlm', got ${JSON.stringify(task.kind)}`);
  const maxLength = Math.max(task.maxLength ?? 0, task.kind === 'seq2seq' ? task.maxSourceLength ?? 0 : 0);
  return { vocabSize: task.vocabulary.length, maxLength, kind: task.kind, sizes: task.defaults?.model ?? {} };
}

// An option given both by the task and by the caller must agree.
function agree(fn, name, given, fromTask) {
  if (given !== undefined && fromTask !== undefined && given !== fromTask)
    fail(SHAPE_MISMATCH, `${fn}: ${name} is ${JSON.stringify(given)} but the task's is ${JSON.stringify(fromTask)}; leave ${name} out when giving a task`);
  return given ?? fromTask;
}

function toSeed(fn, value) {
  if (value === undefined) return 1;
  if (!Number.isSafeInteger(value) || value < 0) fail(INVALID_ARGUMENT, `${fn}: seed must be an integer from 0 to 2^53 − 1, got ${String(value)}`);
  return value;
}

// The layer counts of the kind: a decoder-only model has no encoder, an encoder-only model no decoder.
function layers(fn, o, sizes, kind) {
  if (kind === 'mlm') {
    const decoderLayers = toCount(fn, 'decoderLayers', o.decoderLayers ?? 0);
    if (decoderLayers !== 0) fail(INVALID_ARGUMENT, `${fn}: an encoder-only ('mlm') model has no decoder, so decoderLayers must be 0, got ${decoderLayers}; give its layers as encoderLayers`);
    if (o.crossScoring !== undefined) fail(INVALID_ARGUMENT, `${fn}: an encoder-only ('mlm') model has no cross-attention, so crossScoring does not apply; leave it out`);
    const encoderLayers = toPositiveSize(fn, 'encoderLayers', o.encoderLayers ?? sizes.encoderLayers ?? SIZE_DEFAULTS.decoderLayers);
    return { encoderLayers, decoderLayers };
  }
  const decoderLayers = toPositiveSize(fn, 'decoderLayers', o.decoderLayers ?? sizes.decoderLayers ?? SIZE_DEFAULTS.decoderLayers);
  if (kind === 'lm') {
    const encoderLayers = toCount(fn, 'encoderLayers', o.encoderLayers ?? 0);
    if (encoderLayers !== 0) fail(INVALID_ARGUMENT, `${fn}: a decoder-only ('lm') model has no encoder, so encoderLayers must be 0, got ${encoderLayers}`);
    if (o.crossScoring !== undefined) fail(INVALID_ARGUMENT, `${fn}: a decoder-only ('lm') model has no cross-attention, so crossScoring does not apply; leave it out`);
    return { encoderLayers, decoderLayers };
  }
  return { encoderLayers: toPositiveSize(fn, 'encoderLayers', o.encoderLayers ?? sizes.encoderLayers ?? decoderLayers), decoderLayers };
}

/**
 * createTransformer's options → { config (the core's fields, numbers), settings (names, for model.config), task }.
 */
export function modelConfig(fn, options) {
  if (options === undefined) fail(INVALID_ARGUMENT, `${fn}: give options: { task } or { vocabSize, maxLength, … }`);
  const o = checkOptions(fn, options, CREATE_OPTIONS);
  const fromTask = o.task === undefined ? null : taskShape(fn, o.task);
  const sizes = fromTask?.sizes ?? {};
  const kindName = agree(fn, 'kind', o.kind, fromTask?.kind) ?? 'seq2seq';
  const kind = choice(fn, 'kind', kindName);
  const vocabSize = agree(fn, 'vocabSize', o.vocabSize, fromTask?.vocabSize);
  const maxLength = o.maxLength ?? fromTask?.maxLength;
  if (vocabSize === undefined) fail(INVALID_ARGUMENT, `${fn}: options.vocabSize is required without a task`);
  if (maxLength === undefined) fail(INVALID_ARGUMENT, `${fn}: options.maxLength is required without a task`);
  toPositiveSize(fn, 'vocabSize', vocabSize);
  toPositiveSize(fn, 'maxLength', maxLength);
  if (vocabSize > MAX_VOCABULARY) fail(INVALID_ARGUMENT, `${fn}: vocabSize ${vocabSize} is above ${MAX_VOCABULARY}`);
  if (maxLength > MAX_LENGTH) fail(INVALID_ARGUMENT, `${fn}: maxLength ${maxLength} is above ${MAX_LENGTH} positions`);
  const [dModel, heads, dFF] = ['dModel', 'heads', 'dFF'].map((name) => toPositiveSize(fn, name, o[name] ?? sizes[name] ?? SIZE_DEFAULTS[name]));
  if (dModel % heads !== 0) fail(SHAPE_MISMATCH, `${fn}: dModel ${dModel} does not split into ${heads} heads; dModel must be a multiple of heads`);
  const { encoderLayers, decoderLayers } = layers(fn, o, sizes, kindName);
  const settings = {
    kind: kindName, vocabSize, maxLength, dModel, heads, dFF, encoderLayers, decoderLayers,
    crossScoring: o.crossScoring ?? sizes.crossScoring ?? 'dot', scaled: o.scaled === undefined ? (sizes.scaled ?? true) : toBoolean(fn, 'scaled', o.scaled),
    norm: o.norm ?? sizes.norm ?? 'post', positions: o.positions ?? sizes.positions ?? 'sinusoidal',
    activation: o.activation ?? sizes.activation ?? 'relu', seed: toSeed(fn, o.seed),
  };
  const config = {
    ...settings, kind, crossScoring: choice(fn, 'crossScoring', settings.crossScoring), scaled: settings.scaled ? 1 : 0,
    norm: choice(fn, 'norm', settings.norm), positions: choice(fn, 'positions', settings.positions),
    activation: choice(fn, 'activation', settings.activation), padId: o.task?.pad ?? 0,
  };
  return { config, settings, task: o.task ?? null };
}

/** The 15 numbers modelDescribe writes (ModelConfig in order) → the settings object of model.config. */
export function settingsOf(numbers) {
  const [kind, vocabSize, maxLength, dModel, heads, dFF, encoderLayers, decoderLayers, crossScoring, scaled, norm, positions, activation, seed] = numbers;
  return {
    kind: CHOICES.kind[kind], vocabSize, maxLength, dModel, heads, dFF, encoderLayers, decoderLayers,
    crossScoring: CHOICES.crossScoring[crossScoring], scaled: scaled !== 0, norm: CHOICES.norm[norm],
    positions: CHOICES.positions[positions], activation: CHOICES.activation[activation], seed,
  };
}
