// The training family: createTransformer and loadTransformer, a small
// Transformer (encoder–decoder, decoder-only or encoder-only) that the core trains with
// Adam (src/train/transformer_model.h). The model lives in the core's own
// heap allocation, held here by its address; the model object
// (transformer-model.js) frees it on dispose() or, if forgotten, when it is
// garbage-collected. Options in transformer-config.js, batches in
// transformer-batch.js, raw calls in ops/training.cpp.
import { AttentionError, fail } from '../errors.js';
import { modelConfig, settingsOf } from './transformer-config.js';
import { checkWeights, makeModel } from './transformer-model.js';

const { INVALID_ARGUMENT, INTERNAL } = AttentionError.codes;
const STATUS_NAMES = ['ok', 'shape_mismatch', 'bad_argument', 'bad_mask'];
const CONFIG_NUMBERS = 15;
// The smallest image worth handing to the core: its magic and version.
const MIN_IMAGE = 8;

/** @param {{ module: object, workspace: import('../workspace.js').Workspace, frame: (fn: string) => import('../frame.js').Frame }} context */
export function trainingOps(context) {
  // A model not disposed is destroyed when its object is garbage-collected.
  const models = new FinalizationRegistry((handle) => destroy(context, handle));
  const own = { ...context, models, destroy: (handle) => destroy(context, handle) };
  return {
    createTransformer: (options) => createTransformer(own, options),
    loadTransformer: (bytes, options) => loadTransformer(own, bytes, options),
  };
}

function destroy(context, handle) {
  context.frame('TransformerModel.dispose').query('modelDestroy', { model: handle });
}

// Create and load report through two result slots: the model's address (0 when refused) and the status.
const resultSlots = (f) => ({ handle: f.output(1), status: f.output(1) });
function readResult(context, f, slots) {
  const heap = context.module.HEAP32;
  return { handle: heap[f.addr(slots.handle) >> 2] >>> 0, status: heap[f.addr(slots.status) >> 2] };
}

// The model's config and named parameter tensors, as the core reports them.
function describe(context, fn, handle) {
  const info = (what) => context.frame(fn).query('modelInfo', { model: handle, what });
  const [count, tensors, nameBytes] = [info(0), info(1), info(2)];
  const f = context.frame(fn);
  const config = f.output(2 * CONFIG_NUMBERS);
  const names = f.output(Math.ceil(nameBytes / 4) + 1);
  const table = f.output(3 * tensors + 1);
  f.call('modelDescribe', { model: handle, config, names, table });
  const { HEAPF64, HEAPU8, HEAPU32 } = context.module;
  const numbers = Array.from(HEAPF64.subarray(f.addr(config) >> 3, (f.addr(config) >> 3) + CONFIG_NUMBERS));
  const text = new TextDecoder().decode(HEAPU8.slice(f.addr(names), f.addr(names) + nameBytes));
  const cells = HEAPU32.slice(f.addr(table) >> 2, (f.addr(table) >> 2) + 3 * tensors);
  const list = text.split('\n').slice(0, tensors).map((name, i) => ({ name, offset: cells[3 * i], rows: cells[3 * i + 1], cols: cells[3 * i + 2] }));
  return { settings: settingsOf(numbers), padId: numbers[14], parameterCount: count, tensors: list };
}

/** A loaded model's settings through createTransformer's own checks (an lm or mlm stores crossScoring 'dot', unused). */
function acceptedSettings(fn, settings) {
  const { crossScoring, ...rest } = settings;
  try {
    modelConfig('createTransformer', settings.kind !== 'seq2seq' && crossScoring === 'dot' ? rest : settings);
  } catch (error) {
    if (!(error instanceof AttentionError)) throw error;
    fail(INVALID_ARGUMENT, `${fn}: the saved model's settings are not ones createTransformer accepts: ${error.message.replace(/^createTransformer: /, '')}`);
  }
}

function adopt(context, fn, handle, task) {
  const model = makeModel(context, handle, describe(context, fn, handle), task);
  context.models.register(model, handle, model);
  return model;
}

function createTransformer(context, options) {
  const fn = 'createTransformer';
  const { config, task } = modelConfig(fn, options);
  const seedLow = config.seed % 2 ** 32;
  const seedHigh = Math.floor(config.seed / 2 ** 32);
  const { seed: _seed, ...sizes } = config;
  const f = context.frame(fn);
  const slots = resultSlots(f);
  f.call('modelCreate', { ...sizes, seedLow, seedHigh, ...slots });
  const { handle, status } = readResult(context, f, slots);
  if (!handle) {
    if (STATUS_NAMES[status] === 'bad_argument')
      fail(INVALID_ARGUMENT, `${fn}: the core refused this model (vocabSize ${config.vocabSize}, maxLength ${config.maxLength}, dModel ${config.dModel}, heads ${config.heads}, dFF ${config.dFF}, ${config.encoderLayers} + ${config.decoderLayers} layers): more than 2^28 parameters?`);
    fail(INTERNAL, `${fn}: the core refused a configuration the JS layer accepted (status ${STATUS_NAMES[status] ?? status}); please report this`);
  }
  return adopt(context, fn, handle, task);
}

function loadTransformer(context, bytes, options) {
  const fn = 'loadTransformer';
  if (!(bytes instanceof Uint8Array)) fail(INVALID_ARGUMENT, `${fn}: bytes must be a Uint8Array (what model.save() returns), got ${bytes === null ? 'null' : typeof bytes === 'object' ? bytes.constructor?.name ?? 'an object' : typeof bytes}`);
  const task = options?.task ?? null;
  if (options !== undefined && (options === null || typeof options !== 'object' || Object.keys(options).some((k) => k !== 'task')))
    fail(INVALID_ARGUMENT, `${fn}: options may only hold task (the task the model was trained on, for text and labels)`);
  if (bytes.length < MIN_IMAGE) fail(INVALID_ARGUMENT, `${fn}: ${bytes.length} bytes is too short for a saved model (model.save() writes the magic "ATLM", a version, the config and the parameters)`);
  if (bytes.length > 0xffffffff) fail(INVALID_ARGUMENT, `${fn}: ${bytes.length} bytes is more than a saved model can hold`);
  const f = context.frame(fn);
  const slots = resultSlots(f);
  f.call('modelLoad', { bytes: f.input(bytes), size: bytes.length, ...slots });
  const { handle } = readResult(context, f, slots);
  if (!handle) {
    const magic = String.fromCharCode(...bytes.subarray(0, 4));
    const why = magic === 'ATLM' ? 'its header, sizes or length do not add up (truncated, corrupt, or from another version)' : `it does not start with "ATLM" (it starts with ${JSON.stringify(magic)})`;
    fail(INVALID_ARGUMENT, `${fn}: these ${bytes.length} bytes are not a model saved by model.save(): ${why}`);
  }
  const model = adopt(context, fn, handle, task);
  try {
    if (task && task.vocabulary?.length !== model.config.vocabSize)
      fail(INVALID_ARGUMENT, `${fn}: the saved model has a vocabulary of ${model.config.vocabSize} but the task's has ${task.vocabulary?.length}`);
    // Well-formed bytes (a checksum recomputed) may still hold settings or weights no
    // createTransformer or training makes: the core's loader checks less than createTransformer.
    acceptedSettings(fn, model.config);
    for (const [name, m] of Object.entries(model.parameters())) checkWeights(fn, name, m.data, m.cols);
  } catch (error) {
    model.dispose();
    throw error;
  }
  return model;
}
