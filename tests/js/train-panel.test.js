// The DOM-free parts of <attention-train> (web/src/components/train/): its settings against the
// training build's tasks, the createTransformer options they give, a Trainer run (validation every
// EVERY steps, the same curve for the same seed, the attention shapes), and the page's TrainSession
// driven by a stand-in worker (pause and resume, a stale model's messages, errors, silence).
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOAD_MS, STALL_MS, TrainSession } from '../../web/src/components/train/session.js';
import { TASK_FACTS, TRAIN_TASKS, factsOf, modelOptions, settingsKey, trainSettings } from '../../web/src/components/train/settings.js';
import { EVERY, Trainer } from '../../web/src/components/train/trainer.js';
import { FakeWorker } from './fake-worker.js';
import { loadTrainingLab } from './helpers.js';

let lab;
beforeAll(async () => {
  lab = await loadTrainingLab(true);
});

describe('settings', () => {
  it('TASK_FACTS is what the training build’s tasks say', () => {
    expect(Object.keys(TASK_FACTS)).toEqual(TRAIN_TASKS);
    for (const name of TRAIN_TASKS) expect(TASK_FACTS[name], name).toEqual(factsOf(lab.tasks[name]));
  });

  it('defaults are the task’s own model; values out of bounds are clamped and noted', () => {
    const none = { task: null, layers: null, heads: null, dModel: null, scoring: null, seed: null };
    expect(trainSettings(none)).toEqual({ task: 'reverse', layers: 1, heads: 4, dModel: 32, scoring: 'dot', seed: 1, seq2seq: true, example: 'abcdef', compare: '', compareAsked: '', changed: [] });
    expect(trainSettings({ ...none, task: 'repeat' })).toMatchObject({ layers: 2, heads: 4, dModel: 32, seq2seq: false });
    const s = trainSettings({ task: 'fly', layers: '9', heads: '3', dModel: '30', scoring: 'cosine', seed: '-4' });
    expect(s).toMatchObject({ task: 'reverse', layers: 3, heads: 2, dModel: 30, scoring: 'dot', seed: 0 });
    expect(s.changed).toEqual([
      { name: 'task', given: 'fly', used: 'reverse' },
      { name: 'layers', given: '9', used: '3' },
      { name: 'train-heads', given: '3', used: '2' },
      { name: 'scoring', given: 'cosine', used: 'dot' },
      { name: 'train-seed', given: '-4', used: '0' },
    ]);
    // d_model splits into the heads: rounded down to a multiple of them (at least one per head).
    expect(trainSettings({ heads: '8', dModel: '30' })).toMatchObject({ heads: 8, dModel: 24, changed: [{ name: 'train-d-model', given: '30', used: '24' }] });
    expect(trainSettings({ heads: '8', dModel: '1' })).toMatchObject({ dModel: 8 });
    expect(trainSettings({ dModel: 'wide' }).dModel).toBe(32);
    // A decoder-only task has no cross-attention: any scoring is used as 'dot', and not noted (the form says why).
    expect(trainSettings({ task: 'grammar', scoring: 'additive' })).toMatchObject({ scoring: 'dot', changed: [] });
  });

  it('modelOptions: the three scorings, the layers per side, d_ff', () => {
    const task = lab.tasks.reverse;
    const on = (scoring) => modelOptions(trainSettings({ scoring, layers: '2' }), task);
    expect(on('dot')).toMatchObject({ crossScoring: 'dot', scaled: true, encoderLayers: 2, decoderLayers: 2, dFF: 64 });
    expect(on('unscaled')).toMatchObject({ crossScoring: 'dot', scaled: false });
    expect(on('additive')).toMatchObject({ crossScoring: 'additive' });
    expect(on('additive')).not.toHaveProperty('scaled');
    expect(modelOptions(trainSettings({ dModel: '48' }), task).dFF).toBe(96);
    const lm = modelOptions(trainSettings({ task: 'repeat', layers: '1' }), lab.tasks.repeat);
    expect(lm).toMatchObject({ decoderLayers: 1 });
    expect(lm).not.toHaveProperty('encoderLayers');
    expect(lm).not.toHaveProperty('crossScoring');
    // Every combination builds (the library checks the sizes).
    for (const scoring of ['dot', 'additive', 'unscaled']) {
      const m = lab.createTransformer(modelOptions(trainSettings({ scoring, heads: '8', dModel: '16' }), task));
      expect(m.config).toMatchObject({ heads: 8, dModel: 16, crossScoring: scoring === 'additive' ? 'additive' : 'dot', scaled: scoring !== 'unscaled' });
      m.dispose();
    }
    expect(settingsKey(trainSettings({}))).not.toBe(settingsKey(trainSettings({ seed: '2' })));
  });
});

describe('Trainer', () => {
  it('validates every EVERY steps; the same seed gives the same curve; attention per layer and head', () => {
    const settings = trainSettings({ task: 'reverse', layers: '2', heads: '2' });
    const run = () => {
      const tr = new Trainer(lab, settings);
      const reports = [];
      while (tr.step < 2 * EVERY) reports.push(tr.chunk(Infinity));
      return { tr, reports };
    };
    const a = run();
    const b = run();
    // chunk(Infinity) stops at each validation step.
    expect(a.reports.map((r) => r.step)).toEqual([EVERY, 2 * EVERY]);
    expect(a.reports.every((r) => r.validated && r.accuracy >= 0 && r.accuracy <= 1)).toBe(true);
    expect(a.reports.map((r) => r.loss)).toEqual(b.reports.map((r) => r.loss));
    expect(a.reports[1].learningRate).toBe(lab.learningRateAt(2 * EVERY, lab.tasks.reverse.defaults.training));
    const snap = a.tr.snapshot();
    expect(snap).toMatchObject({ input: 'abcdef', kind: 'cross' });
    expect(snap.maps.length).toBe(2);
    expect(snap.maps.every((layer) => layer.length === 2)).toBe(true);
    const m = snap.maps[1][1];
    expect(m.cols).toBe(6);
    expect(snap.colLabels).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // Each row of the cross-attention sums to 1 (as the library computed it).
    for (let i = 0; i < m.rows; i++) expect(m.data.subarray(i * m.cols, (i + 1) * m.cols).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 5);
    expect(snap).toEqual(b.tr.snapshot());
    // The reader's input: characters outside the vocabulary are <unk> tokens, and named; an empty or
    // too long input is not decoded but refused with its counts (the panel says why in its language).
    const odd = a.tr.generate('xyz!');
    expect(odd.colLabels).toEqual(['<unk>', '<unk>', '<unk>', '<unk>']);
    expect(odd.unknown).toEqual(['x', 'y', 'z', '!']);
    expect(a.tr.generate('ABC').colLabels).toEqual(['a', 'b', 'c']);
    expect(a.tr.generate('')).toEqual({ input: '', refused: { problem: 'empty', count: 0, max: 10, unit: 'chars' }, unknown: [] });
    expect(a.tr.generate('abcdefghijab')).toMatchObject({ refused: { problem: 'long', count: 12, max: 10, unit: 'chars' } });
    a.tr.dispose();
    b.tr.dispose();
  });

  it('a short budget stops within a chunk, before the next validation step', () => {
    const tr = new Trainer(lab, trainSettings({ task: 'repeat' }));
    const r = tr.chunk(0);
    expect(r).toMatchObject({ step: 1, validated: false, accuracy: null, reached: false, diverged: false });
    expect(Number.isFinite(r.loss) && r.stepsPerSecond > 0).toBe(true);
    expect(tr.snapshot().kind).toBe('self');
    tr.dispose();
  });
});

describe('TrainSession', () => {
  afterEach(() => vi.useRealTimers());
  const setUp = () => {
    const workers = [];
    const changes = [];
    const session = new TrainSession(() => workers[workers.push(new FakeWorker()) - 1], (what) => changes.push(what));
    return { session, workers, changes };
  };
  const progress = (step, extra = {}) => ({ type: 'progress', run: 0, step, loss: 1 / step, learningRate: 0.01, stepsPerSecond: 100, validated: step % 50 === 0, accuracy: 0.5, reached: false, diverged: false, stopped: false, ...extra });

  it('train, pause (until the worker says so), resume on the same curve, reset', () => {
    const { session, workers } = setUp();
    session.train({ task: 'reverse' });
    expect(session.state).toBe('loading');
    const w = workers[0];
    expect(w.posted).toEqual([{ type: 'train', settings: { task: 'reverse' }, run: 0 }]);
    w.say({ type: 'started', run: 0, step: 0, parameters: 10, goal: 0.99 });
    expect(session.state).toBe('running');
    for (const step of [30, 50]) w.say(progress(step));
    session.pause();
    expect(session.state).toBe('pausing');
    w.say(progress(70)); // the chunk in hand
    w.say({ type: 'paused', run: 0, step: 70 });
    expect(session.state).toBe('paused');
    session.train({ task: 'reverse' });
    expect(session.state).toBe('running');
    w.say(progress(90));
    expect(session.losses.map((p) => p.step)).toEqual([30, 50, 70, 90]);
    expect(session.accuracies).toEqual([{ step: 50, accuracy: 0.5 }]);
    session.reset();
    expect(session).toMatchObject({ state: 'idle', losses: [], accuracies: [], last: null, info: null });
    expect(w.posted.at(-1)).toEqual({ type: 'reset' });
    // Messages about the old model (run 0) are dropped; the next one is run 1.
    session.train({ task: 'reverse' });
    w.say(progress(110));
    expect(session.losses).toEqual([]);
    expect(w.posted.at(-1).run).toBe(1);
    w.say({ type: 'started', run: 1, step: 0 });
    w.say({ ...progress(5), run: 1 });
    expect(session.losses).toEqual([{ step: 5, loss: 0.2 }]);
  });

  it('the goal, a loop that ends for a pause while Train was pressed again', () => {
    const { session, workers } = setUp();
    session.train({});
    const w = workers[0];
    w.say({ type: 'started', run: 0, step: 0 });
    session.pause();
    session.train({});
    w.say({ type: 'paused', run: 0, step: 20 }); // the loop saw the pause before the Train
    expect(session.state).toBe('running');
    w.say(progress(50, { reached: true, accuracy: 1 }));
    w.say({ type: 'paused', run: 0, step: 50 });
    expect(session.state).toBe('reached');
  });

  it('an error event, an error message, a diverged loss: failed; Reset replaces the worker', () => {
    const { session, workers } = setUp();
    session.train({});
    workers[0].dispatchEvent(Object.assign(new Event('error', { cancelable: true }), { message: 'Uncaught Error: boom' }));
    expect(session).toMatchObject({ state: 'failed', error: { code: 'WORKER', message: 'Uncaught Error: boom' } });
    expect(workers[0].terminated).toBe(true);
    session.reset();
    expect(session.state).toBe('idle');
    session.train({});
    expect(workers.length).toBe(2);
    workers[1].say({ type: 'error', run: 1, error: { name: 'AttentionError', code: 'INVALID_ARGUMENT', message: 'bad' } });
    expect(session).toMatchObject({ state: 'failed', error: { code: 'INVALID_ARGUMENT' } });
    session.train({}); // Train after a failure starts over with a fresh worker
    expect(workers.length).toBe(3);
    workers[2].say({ type: 'started', run: 2, step: 0 });
    workers[2].say({ ...progress(3, { diverged: true }), run: 2 });
    expect(session).toMatchObject({ state: 'failed', error: { code: 'DIVERGED', step: 3 } });
  });

  it('silence: a worker that posts nothing while training (terminated, hung) is a failure', () => {
    vi.useFakeTimers();
    const { session, workers } = setUp();
    session.train({});
    vi.advanceTimersByTime(LOAD_MS - 1);
    expect(session.state).toBe('loading');
    workers[0].say({ type: 'started', run: 0, step: 0 });
    vi.advanceTimersByTime(STALL_MS - 1);
    workers[0].say(progress(10));
    vi.advanceTimersByTime(STALL_MS - 1);
    expect(session.state).toBe('running');
    vi.advanceTimersByTime(1);
    expect(session).toMatchObject({ state: 'failed', error: { code: 'STALLED', seconds: STALL_MS / 1000 } });
    // Paused, no message is due: no failure.
    const second = setUp();
    second.session.train({});
    second.workers[0].say({ type: 'started', run: 0, step: 0 });
    second.session.pause();
    second.workers[0].say({ type: 'paused', run: 0, step: 4 });
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(second.session.state).toBe('paused');
  });

  it('generate: the answer to each request by id; none without a model', async () => {
    const { session, workers } = setUp();
    expect(await session.generate('abc')).toBeNull();
    session.train({});
    workers[0].say({ type: 'started', run: 0, step: 0 });
    const answer = session.generate('abc');
    const { id } = workers[0].posted.at(-1);
    workers[0].say({ type: 'generated', id, output: 'cba' });
    expect(await answer).toMatchObject({ output: 'cba' });
  });
});
