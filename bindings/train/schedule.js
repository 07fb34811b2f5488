// The learning-rate schedule the tasks' defaults were measured with: a linear warm-up to the peak
// rate, then a cosine down to a tenth of it at `steps`, constant after. The same formula as the
// core's learning_rate_at (src/train/optimizer.cpp) with floor = peak / 10; here in JS because
// trainStep takes each step's rate from its caller and this is a formula, not a kernel.
import { AttentionError, fail } from '../errors.js';

const { INVALID_ARGUMENT } = AttentionError.codes;
const FN = 'learningRateAt';

function positiveInteger(name, value) {
  if (!Number.isSafeInteger(value) || value < 1) fail(INVALID_ARGUMENT, `${FN}: ${name} must be an integer ≥ 1, got ${String(value)}`);
}

/**
 * The rate for `step` (1-based) of `schedule` ({ learningRate, warmup, steps }, e.g. a task's
 * defaults.training): learningRate·step/warmup while warming up, then
 * floor + (learningRate − floor)·(1 + cos(π·progress))/2 with floor = learningRate/10 and progress
 * going from 0 at the end of warm-up to 1 at `steps`, then the floor.
 */
export function learningRateAt(step, schedule) {
  positiveInteger('step', step);
  if (schedule === null || typeof schedule !== 'object') fail(INVALID_ARGUMENT, `${FN}: schedule must be an object { learningRate, warmup, steps }, such as task.defaults.training`);
  const { learningRate, warmup = 0, steps } = schedule;
  if (!(Number.isFinite(learningRate) && learningRate >= 0)) fail(INVALID_ARGUMENT, `${FN}: schedule.learningRate must be a finite number ≥ 0, got ${String(learningRate)}`);
  if (!Number.isSafeInteger(warmup) || warmup < 0) fail(INVALID_ARGUMENT, `${FN}: schedule.warmup must be an integer ≥ 0, got ${String(warmup)}`);
  positiveInteger('schedule.steps', steps);
  if (steps <= warmup) fail(INVALID_ARGUMENT, `${FN}: schedule.steps (${steps}) must be above schedule.warmup (${warmup})`);
  if (step <= warmup) return (learningRate * step) / warmup;
  const floor = learningRate / 10;
  if (step >= steps) return floor;
  const progress = (step - warmup) / (steps - warmup);
  return floor + (learningRate - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
}
