// The tasks are learnable with their own defaults: trained from lab.createTransformer by the loop that
// bench/train.mjs times (bench/lib/train-to-goal.mjs), a model reaches the task's validation goal
// before the schedule ends. Slow (tens of seconds each), so the SIMD build only: the same seed gives
// the same curve on a build, so the result does not change from run to run. And the schedule itself.
import { describe, expect, it } from 'vitest';

import { trainToGoal } from '../../bench/lib/train-to-goal.mjs';
import { GOAL_TASKS, trainingUnchanged } from '../../scripts/make-checkpoints.mjs';
import { loadTrainingLab } from './helpers.js';

const lab = await loadTrainingLab(true);

// Skipped while every input of training is what scripts/make-checkpoints.mjs last checked these goals
// with (the manifest's trainingInputsSha256); ATTENTION_LAB_RETRAIN=1 runs them anyway.
describe.skipIf(trainingUnchanged())('a task trained with its defaults reaches its goal (training inputs changed)', () => {
  // dates: the encoder–decoder, checked by greedy decoding and task.check; grammar: the decoder-only
  // model, scored where the grammar decides one word (agreement, pronoun reference).
  it.each(GOAL_TASKS)('%s', (name) => {
    const task = lab.tasks[name];
    const result = trainToGoal(lab, name, { limitSeconds: 600, maxSteps: task.defaults.training.steps });
    expect(result.reached, JSON.stringify(result.curve)).toBe(true);
    expect(result.exactMatch).toBeGreaterThanOrEqual(task.goal.value);
    expect(result.steps).toBeLessThanOrEqual(task.defaults.training.steps);
    expect(result.validation).toBe(512);
    // After the first 100 steps the model is still far from the goal (grammar's two-way choices start near 50 %).
    expect(result.curve[0].exactMatch).toBeLessThan(task.goal.value - 0.3);
  }, 600_000);
});

describe('lab.learningRateAt', () => {
  const schedule = { learningRate: 0.01, warmup: 200, steps: 1200 };
  // Plain float64 reference of the same formula, written out.
  const reference = (step) => {
    if (step <= 200) return (0.01 * step) / 200;
    if (step >= 1200) return 0.001;
    return 0.001 + 0.009 * 0.5 * (1 + Math.cos((Math.PI * (step - 200)) / 1000));
  };

  it('warms up linearly, follows a cosine to a tenth of the peak, then stays there', () => {
    for (const step of [1, 2, 100, 199, 200, 201, 450, 700, 950, 1199, 1200, 1201, 10000])
      expect(lab.learningRateAt(step, schedule), `step ${step}`).toBeCloseTo(reference(step), 15);
    expect(lab.learningRateAt(700, schedule)).toBeCloseTo(0.0055, 15); // half way: the mean of peak and floor
    // Never above the peak, never below the floor after warm-up, and falling after it.
    let previous = Infinity;
    for (let step = 200; step <= 1300; step += 7) {
      const rate = lab.learningRateAt(step, schedule);
      expect(rate).toBeLessThanOrEqual(previous);
      expect(rate).toBeGreaterThanOrEqual(0.001);
      previous = rate;
    }
    // No warm-up: the peak at step 1. Every task's defaults are a valid schedule.
    expect(lab.learningRateAt(1, { learningRate: 0.5, warmup: 0, steps: 10 })).toBeCloseTo(0.05 + 0.225 * (1 + Math.cos(Math.PI / 10)), 12);
    for (const task of Object.values(lab.tasks)) expect(lab.learningRateAt(1, task.defaults.training)).toBeGreaterThan(0);
  });

  it.each([
    [0, schedule, /step must be an integer ≥ 1, got 0/],
    [1.5, schedule, /step must be an integer ≥ 1, got 1.5/],
    [1, null, /schedule must be an object/],
    [1, { ...schedule, learningRate: -1 }, /learningRate must be a finite number ≥ 0, got -1/],
    [1, { ...schedule, learningRate: NaN }, /learningRate must be a finite number ≥ 0, got NaN/],
    [1, { ...schedule, warmup: -2 }, /warmup must be an integer ≥ 0, got -2/],
    [1, { ...schedule, steps: undefined }, /schedule.steps must be an integer ≥ 1, got undefined/],
    [1, { ...schedule, steps: 200 }, /schedule.steps \(200\) must be above schedule.warmup \(200\)/],
  ])('learningRateAt(%s, %o) is refused', (step, s, message) => {
    expect(() => lab.learningRateAt(step, s)).toThrow(message);
    try {
      lab.learningRateAt(step, s);
    } catch (e) {
      expect(e.code).toBe('INVALID_ARGUMENT');
    }
  });
});
