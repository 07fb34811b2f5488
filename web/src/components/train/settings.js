// <attention-train>'s own settings, DOM-free: the task, the model's size (layers, heads, d_model,
// bounded so a step stays well under a frame's worth of work per chunk), the cross-attention
// scoring and the seed, read from attribute values; and the createTransformer options and the
// training schedule they give. Sizes left out take the task's own defaults (the ones measured to
// learn it, bindings/tasks/*.js).
import { panelSetting } from '../../config.js';

// The choices and bounds of the panel's settings: their rows of the settings table (config.js).
const row = (attribute) => panelSetting('train', attribute);
const bounds = (attribute) => [row(attribute).min, row(attribute).max];

export const TRAIN_TASKS = row('task').choices;

/**
 * What the page needs of each task before the worker has loaded the training build: its kind, its
 * default model's layers (per side), heads and d_model, and its first example. The same as
 * lab.tasks[name] of 'attention-lab/training' (tests/js/train-panel.test.js compares them), so
 * the components bundle holds no task generator.
 */
export const TASK_FACTS = {
  reverse: { kind: 'seq2seq', layers: 1, heads: 4, dModel: 32, example: 'abcdef', training: { learningRate: 1e-2, warmup: 200, batchSize: 32, steps: 1200, clipNorm: 1 } },
  dates: { kind: 'seq2seq', layers: 1, heads: 4, dModel: 64, example: 'December 1, 2026', training: { learningRate: 1e-2, warmup: 200, batchSize: 32, steps: 1600, clipNorm: 1 } },
  grammar: { kind: 'lm', layers: 2, heads: 4, dModel: 64, example: 'the cats that the dog chased', training: { learningRate: 3e-3, warmup: 100, batchSize: 32, steps: 1500, clipNorm: 1 } },
  repeat: { kind: 'lm', layers: 2, heads: 4, dModel: 32, example: 'abcdefg|', training: { learningRate: 3e-3, warmup: 100, batchSize: 32, steps: 2000, clipNorm: 1 } },
};

/** A task's facts as TASK_FACTS holds them, read from a task object (lab.tasks[name]). */
export const factsOf = (task) => ({
  kind: task.kind, layers: task.kind === 'seq2seq' ? task.defaults.model.encoderLayers : task.defaults.model.decoderLayers,
  heads: task.defaults.model.heads, dModel: task.defaults.model.dModel, example: task.examples[0], training: { ...task.defaults.training },
});

/**
 * The least mean loss any model can reach on the grammar task's training sentences: the generator's
 * choices (language, template, then one sentence of that pool, all equally likely) carry `nats` per
 * sentence, spread over `tokens` target tokens on average (the words and the end token), so
 * floor = nats / tokens per token. tests/js/train-loss.test.js computes them from lab.tasks.grammar.
 */
export const GRAMMAR_LOSS_FLOOR = { nats: 8.84, tokens: 13.9, floor: 0.64 };
/** Scaled dot-product, additive (Bahdanau), unscaled dot-product: the cross-attention of a seq2seq model. */
export const SCORINGS = row('scoring').choices;
export const BOUNDS = { layers: bounds('layers'), heads: [Math.min(...row('train-heads').choices), Math.max(...row('train-heads').choices)], dModel: bounds('train-d-model'), seed: bounds('train-seed') };
/** The head counts offered: powers of two, so the widths offered split evenly. */
export const HEADS = row('train-heads').choices;
/** Compare modes: none, scaled vs unscaled dot-product, scaled dot-product vs additive (seq2seq only). */
export const COMPARES = row('compare').choices;
/**
 * The panel's attributes (in the order of its form) and the settings they give. Not `heads`,
 * `d-model` or `seed`: those are the input model's, which the explorer gives every panel.
 */
export const TRAIN_FIELDS = [
  { attribute: 'task', name: 'task' },
  { attribute: 'layers', name: 'layers' },
  { attribute: 'train-heads', name: 'heads' },
  { attribute: 'train-d-model', name: 'dModel' },
  { attribute: 'scoring', name: 'scoring' },
  { attribute: 'train-seed', name: 'seed' },
  { attribute: 'compare', name: 'compare' },
];
const ATTRIBUTE_OF = Object.fromEntries(TRAIN_FIELDS.map((f) => [f.name, f.attribute]));

/** The settings as given on `element` ({ task, layers, heads, dModel, scoring, seed }: attribute values or null). */
export const givenSettings = (element) => Object.fromEntries(TRAIN_FIELDS.map((f) => [f.name, element.getAttribute(f.attribute)]));

const isGiven = (v) => v !== undefined && v !== null && v !== '';
const clamp = (v, [lo, hi]) => Math.min(hi, Math.max(lo, v));

function integer(given, fallback, range) {
  if (!isGiven(given)) return fallback;
  const v = Math.round(Number(given));
  return Number.isFinite(v) ? clamp(v, range) : fallback;
}

/**
 * The settings as used, from attribute values ({ task, layers, heads, dModel, scoring, seed }, each
 * a string or null) and `facts` (TASK_FACTS): { task, layers, heads, dModel, scoring, seed, seq2seq,
 * changed }. `changed` lists { name (the attribute), given, used } for each value used other than as given:
 * an unknown task or scoring, a number out of bounds, heads other than 1, 2, 4 or 8 (rounded down to one), a
 * d_model that does not split into the heads (rounded down to a multiple of them). A decoder-only task
 * has no cross-attention: its scoring is 'dot' whatever is given (the form says why).
 */
export function trainSettings(given, facts = TASK_FACTS) {
  const changed = [];
  const note = (name, value, used) => {
    if (isGiven(value) && String(value) !== String(used) && Number(value) !== used) changed.push({ name: ATTRIBUTE_OF[name], given: String(value), used: String(used) });
  };
  const taskName = TRAIN_TASKS.includes(given.task) ? given.task : TRAIN_TASKS[0];
  note('task', given.task, taskName);
  const task = facts[taskName];
  const layers = integer(given.layers, task.layers, BOUNDS.layers);
  const heads = Math.max(...HEADS.filter((h) => h <= integer(given.heads, task.heads, BOUNDS.heads)));
  const wanted = integer(given.dModel, task.dModel, BOUNDS.dModel);
  const dModel = Math.max(heads, Math.floor(wanted / heads) * heads);
  const seq2seq = task.kind === 'seq2seq';
  const scoring = seq2seq && SCORINGS.includes(given.scoring) ? given.scoring : 'dot';
  const seed = integer(given.seed, 1, BOUNDS.seed);
  note('layers', given.layers, layers);
  note('heads', given.heads, heads);
  note('dModel', given.dModel, dModel);
  if (seq2seq) note('scoring', given.scoring, scoring);
  note('seed', given.seed, seed);
  // 'scoring' compares cross-attention: a decoder-only task has none, so none is run (the panel says why).
  const asked = COMPARES.includes(given.compare ?? '') ? given.compare ?? '' : '';
  if (isGiven(given.compare)) note('compare', given.compare, asked);
  const compare = asked === 'scoring' && !seq2seq ? '' : asked;
  return { task: taskName, layers, heads, dModel, scoring, seed, seq2seq, example: task.example, compare, compareAsked: asked, changed };
}

/** createTransformer's options for `settings` on `task` (d_ff: the task's, or 2·d_model for another width). */
export function modelOptions(settings, task) {
  const model = task.defaults.model;
  const dFF = settings.dModel === model.dModel ? model.dFF : 2 * settings.dModel;
  const base = { task, seed: settings.seed, dModel: settings.dModel, heads: settings.heads, dFF, norm: model.norm, positions: model.positions };
  // A decoder-only model has no cross-attention, but its self-attention can go unscaled (a compare run).
  if (!settings.seq2seq) return { ...base, decoderLayers: settings.layers, ...(settings.scoring === 'unscaled' ? { scaled: false } : {}) };
  const scoring = settings.scoring === 'additive' ? { crossScoring: 'additive' } : { crossScoring: 'dot', scaled: settings.scoring !== 'unscaled' };
  return { ...base, encoderLayers: settings.layers, decoderLayers: settings.layers, ...scoring };
}

/** The training schedule: the task's (rate, warm-up, batch, clipping), and where to stop trying (4× its steps). */
export function schedule(task) {
  const { learningRate, warmup, steps, batchSize, clipNorm } = task.defaults.training;
  return { learningRate, warmup, steps, batchSize, clipNorm, maxSteps: 4 * steps };
}

/** A key naming a model: runs with the same key continue each other, a different key starts over. */
export const settingsKey = (s) => [s.task, s.layers, s.heads, s.dModel, s.scoring, s.seed, s.compare ?? ''].join(' ');
