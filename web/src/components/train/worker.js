// <attention-train>'s module Worker: loads the training build ('attention-lab/training') and runs
// one Trainer in chunks of about CHUNK_MS, so a pause, a reset or a reader's input is answered
// between two chunks. The page's thread only draws what this posts.
//
// In:  { type: 'train', settings }   start (or continue: same settings key) training
//      { type: 'pause' }              stop after the current chunk; the model is kept
//      { type: 'reset' }              drop the model
//      { type: 'generate', text, id } decode the reader's input with the current model
//      { type: 'weights', id }        the current model's parameters by name
// Out: { type: 'started', step, parameters, goal, maxSteps, example, simd },
//      { type: 'progress', step, loss, learningRate, stepsPerSecond, validated, accuracy, reached, diverged, stopped },
//      { type: 'attention', step, input, output, kind, maps, rowLabels, colLabels } (every EVERY steps),
//      { type: 'paused', step }, { type: 'generated', id, …attention } or { type: 'generated', id, error },
//      { type: 'weights', id, step, parameters } or { type: 'weights', id, error },
//      { type: 'error', error } (the run cannot go on)
import { init } from '../../../../dist/training.js';
import { settingsKey } from './settings.js';
import { Trainer } from './trainer.js';

const CHUNK_MS = 60;
let loading = null;
let trainer = null;
let key = '';
/** The page's number for the model (TrainSession): every message about it carries it. */
let run = 0;
/** running: the reader wants training; looping: a loop is on (a pause then a resume within one chunk keeps the one loop). */
let running = false;
let looping = false;
/** Resets so far: a train whose loading outlived a reset does nothing. */
let resets = 0;

const errorOf = (e) => ({ name: e?.name ?? 'Error', code: e?.code, message: String(e?.message ?? e) });
const buffersOf = (maps) => maps.flatMap((layer) => layer.map((m) => m.data.buffer));
const post = (message, transfer) => self.postMessage({ run, ...message }, transfer);
const postAttention = (type, extra, a) => post({ type, ...extra, ...a }, buffersOf(a.maps));
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function train(settings, given) {
  // Wanted from now: a pause before the model exists (while the build loads) is kept.
  running = true;
  const since = resets;
  loading ??= init();
  const lab = await loading;
  if (since !== resets) return;
  if (trainer && key !== settingsKey(settings)) reset();
  if (!trainer) {
    trainer = new Trainer(lab, settings);
    key = settingsKey(settings);
    run = given;
    postAttention('attention', { step: 0 }, trainer.snapshot());
  }
  post({ type: 'started', step: trainer.step, parameters: trainer.parameters, goal: trainer.goal, maxSteps: trainer.maxSteps, example: trainer.example, simd: lab.simd });
  if (looping) return;
  looping = true;
  try {
    while (running && trainer) {
      const p = trainer.chunk(CHUNK_MS);
      post({ type: 'progress', ...p });
      if (p.validated || p.reached) postAttention('attention', { step: p.step }, trainer.snapshot());
      if (p.reached || p.diverged || p.stopped) running = false;
      else await nextTask();
    }
  } finally {
    looping = false;
  }
  if (trainer) post({ type: 'paused', step: trainer.step });
}

function reset() {
  resets++;
  running = false;
  trainer?.dispose();
  trainer = null;
  key = '';
}

function generate(text, id) {
  if (!trainer) return self.postMessage({ type: 'generated', id, error: { name: 'Error', code: 'NO_MODEL', message: 'no model yet' } });
  try {
    const answer = trainer.generate(String(text));
    if (answer.refused) self.postMessage({ type: 'generated', id, ...answer });
    else postAttention('generated', { id }, answer);
  } catch (error) {
    self.postMessage({ type: 'generated', id, error: errorOf(error) });
  }
}

function weights(id) {
  if (!trainer) return self.postMessage({ type: 'weights', id, error: { name: 'Error', code: 'NO_MODEL', message: 'no model yet' } });
  const parameters = trainer.weights();
  self.postMessage({ type: 'weights', id, step: trainer.step, parameters }, Object.values(parameters).map((m) => m.data.buffer));
}

self.addEventListener('message', ({ data }) => {
  if (data?.type === 'train')
    train(data.settings, data.run).catch((error) => {
      running = false;
      post({ type: 'error', error: errorOf(error) });
    });
  else if (data?.type === 'pause') running = false;
  else if (data?.type === 'reset') reset();
  else if (data?.type === 'generate') generate(data.text, data.id);
  else if (data?.type === 'weights') weights(data.id);
});
