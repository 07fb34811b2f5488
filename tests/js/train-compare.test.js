// <attention-train>'s compare mode and exports, DOM-free: the settings' compare key, the two runs a
// mode gives, a RunPair driving two sessions in step (train, pause, reset), the gradient norm the
// Trainer reports (the model's own), the curves CSV, and the weights JSON loading back into a model.
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_PAIRS, compareRuns, curvesCsv } from '../../web/src/components/train/compare-runs.js';
import { exportFile, weightsJson } from '../../web/src/components/train/exports.js';
import { RunPair } from '../../web/src/components/train/run-pair.js';
import { modelOptions, settingsKey, trainSettings } from '../../web/src/components/train/settings.js';
import { Trainer } from '../../web/src/components/train/trainer.js';
import { FakeWorker } from './fake-worker.js';
import { loadTrainingLab } from './helpers.js';

let lab;
beforeAll(async () => {
  lab = await loadTrainingLab(true);
});

describe('compare settings', () => {
  it('reads compare, notes an unknown one, and runs no scoring comparison on a decoder-only task', () => {
    expect(trainSettings({ compare: 'scaling' })).toMatchObject({ compare: 'scaling', compareAsked: 'scaling', changed: [] });
    expect(trainSettings({ task: 'dates', compare: 'scoring' })).toMatchObject({ compare: 'scoring', compareAsked: 'scoring' });
    expect(trainSettings({ task: 'grammar', compare: 'scoring' })).toMatchObject({ compare: '', compareAsked: 'scoring', changed: [] });
    expect(trainSettings({ task: 'grammar', compare: 'scaling' }).compare).toBe('scaling');
    expect(trainSettings({ compare: 'both' })).toMatchObject({ compare: '', changed: [{ name: 'compare', given: 'both', used: '' }] });
    expect(settingsKey(trainSettings({ compare: 'scaling' }))).not.toBe(settingsKey(trainSettings({})));
  });

  it('gives two runs that differ only in their scoring', () => {
    const s = trainSettings({ task: 'dates', compare: 'scoring', seed: '7' });
    const runs = compareRuns(s);
    expect(runs.map((r) => r.scoring)).toEqual(COMPARE_PAIRS.scoring);
    for (const r of runs) expect({ ...r.settings, scoring: s.scoring, compare: s.compare }).toEqual(s);
    const [dot, additive] = runs.map((r) => modelOptions(r.settings, lab.tasks.dates));
    expect(dot).toMatchObject({ crossScoring: 'dot', scaled: true, seed: 7 });
    expect(additive).toMatchObject({ crossScoring: 'additive', seed: 7 });
    // Scaling on a decoder-only task: the self-attention goes unscaled.
    const lm = compareRuns(trainSettings({ task: 'repeat', compare: 'scaling' })).map((r) => modelOptions(r.settings, lab.tasks.repeat));
    expect(lm[0].scaled).toBeUndefined();
    expect(lm[1].scaled).toBe(false);
    expect(lab.createTransformer(lm[1]).config.scaled).toBe(false);
  });

  it('refuses no compare mode and a scoring comparison without cross-attention, naming them', () => {
    expect(() => compareRuns(trainSettings({}))).toThrow(/compare is ""/);
    expect(() => compareRuns({ ...trainSettings({ task: 'grammar' }), compare: 'scoring' })).toThrow(/grammar task is decoder-only/);
  });
});

describe('RunPair', () => {
  const progress = (run, step, extra = {}) => ({ type: 'progress', run, step, loss: 1 / step, gradientNorm: step / 10, learningRate: 0.01, stepsPerSecond: 100, validated: false, accuracy: null, reached: false, diverged: false, stopped: false, ...extra });

  it('trains, pauses and resets both runs, each in its own worker with its own scoring', () => {
    const workers = [];
    const pair = new RunPair(() => workers[workers.push(new FakeWorker()) - 1], () => {});
    expect(pair.state).toBe('idle');
    pair.train(trainSettings({ task: 'reverse', compare: 'scaling' }));
    expect(workers.map((w) => w.posted[0].settings.scoring)).toEqual(['dot', 'unscaled']);
    expect(pair.state).toBe('loading');
    for (const w of workers) w.say({ type: 'started', run: 0, step: 0 });
    workers[0].say(progress(0, 10));
    workers[1].say(progress(0, 20));
    expect(pair.runs.map((r) => r.session.losses)).toEqual([[{ step: 10, loss: 0.1, gradientNorm: 1 }], [{ step: 20, loss: 0.05, gradientNorm: 2 }]]);
    pair.pause();
    expect(workers.map((w) => w.posted.at(-1).type)).toEqual(['pause', 'pause']);
    workers[0].say({ type: 'paused', run: 0 });
    expect(pair.state).toBe('pausing');
    workers[1].say({ type: 'paused', run: 0 });
    expect(pair.state).toBe('paused');
    pair.reset();
    expect(workers.map((w) => w.posted.at(-1).type)).toEqual(['reset', 'reset']);
    expect(pair.state).toBe('idle');
  });

  it('a run at its goal stays there when the other one continues', () => {
    const workers = [];
    const pair = new RunPair(() => workers[workers.push(new FakeWorker()) - 1], () => {});
    const s = trainSettings({ task: 'reverse', compare: 'scaling' });
    pair.train(s);
    for (const w of workers) w.say({ type: 'started', run: 0, step: 0 });
    workers[0].say(progress(0, 50, { reached: true }));
    workers[0].say({ type: 'paused', run: 0 });
    pair.pause();
    workers[1].say({ type: 'paused', run: 0 });
    pair.train(s);
    expect(workers.map((w) => w.posted.filter((m) => m.type === 'train').length)).toEqual([1, 2]);
    expect(pair.state).toBe('running');
  });
});

describe('Trainer and exports', () => {
  it('reports the gradient norm of the model’s step', () => {
    const s = trainSettings({ task: 'reverse' });
    const tr = new Trainer(lab, s);
    const p = tr.chunk(0);
    // The same first step on a fresh model of the same settings: the same norm, the model's own.
    const model = lab.createTransformer(modelOptions(s, lab.tasks.reverse));
    const batch = lab.tasks.reverse.batch({ seed: 1, size: lab.tasks.reverse.defaults.training.batchSize, split: 'train' });
    const r = model.trainStep(batch, { learningRate: lab.learningRateAt(1, { ...lab.tasks.reverse.defaults.training }), clipNorm: 1 });
    expect(p.step).toBe(1);
    expect(p.gradientNorm).toBeGreaterThan(0);
    expect(p.gradientNorm).toBe(r.gradientNorm);
    tr.dispose();
    model.dispose();
  });

  it('the curves CSV holds each run’s recorded numbers, one row per step', () => {
    const runs = [
      { name: 'scaled "dot"', losses: [{ step: 50, loss: 1.5, gradientNorm: 0.25 }, { step: 100, loss: 0.5, gradientNorm: 0.75 }], accuracies: [{ step: 50, accuracy: 0.125 }] },
      { name: 'unscaled', losses: [{ step: 60, loss: 2, gradientNorm: 3 }], accuracies: [] },
    ];
    expect(curvesCsv(runs)).toBe(
      ['"step","scaled ""dot"" loss","scaled ""dot"" validation","scaled ""dot"" gradient norm","unscaled loss","unscaled validation","unscaled gradient norm"',
        '50,1.5,0.125,0.25,,,', '60,,,,2,,3', '100,0.5,,0.75,,,', ''].join('\n'),
    );
  });

  it('the weights JSON has every parameter with its shape and loads back into a model', () => {
    const s = trainSettings({ task: 'reverse', seed: '3' });
    const tr = new Trainer(lab, s);
    tr.chunk(0);
    const parameters = tr.weights();
    const json = JSON.parse(weightsJson(s, [{ scoring: s.scoring, step: tr.step, parameters }]));
    expect(json).toMatchObject({ task: 'reverse', seed: 3, runs: [{ scoring: 'dot', step: 1 }] });
    const fresh = lab.createTransformer(modelOptions(s, lab.tasks.reverse));
    const loaded = json.runs[0].parameters;
    expect(Object.keys(loaded)).toEqual(Object.keys(fresh.parameters()));
    for (const [name, m] of Object.entries(loaded)) expect([m.rows, m.cols, m.data.length, m.data[0].length], name).toEqual([fresh.parameters()[name].rows, fresh.parameters()[name].cols, m.rows, m.cols]);
    fresh.setParameters(Object.fromEntries(Object.entries(loaded).map(([name, m]) => [name, m.data])));
    for (const [name, m] of Object.entries(fresh.parameters())) expect(m.data, name).toEqual(parameters[name].data);
    expect(exportFile(s)).toBe('train-reverse-dot-seed3');
    expect(exportFile(trainSettings({ compare: 'scaling' }))).toBe('train-reverse-scaling-seed1');
    tr.dispose();
    fresh.dispose();
  });
});
