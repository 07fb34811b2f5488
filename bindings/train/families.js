// The operation families of the training build, each `(context) => functions` like the inference
// families of ../api.js. Adding one is a file in this folder (its raw calls in a .cpp beside it,
// built into the training .wasm only) and one entry below.
import { mlmBatch } from '../tasks/batch.js';
import { TASKS } from '../tasks/index.js';
import { backwardOps } from './backward.js';
import { learningRateAt } from './schedule.js';
import { trainingOps } from './training.js';

/** The training tasks (plain JS, shared by every instance): dates, reverse, grammar, repeat; masked batches. */
const tasksFamily = () => ({ tasks: TASKS, mlmBatch });

/** The warm-up-then-cosine learning rate the tasks' defaults were measured with (plain JS). */
const scheduleFamily = () => ({ learningRateAt });

export const TRAINING_FAMILIES = [backwardOps, trainingOps, tasksFamily, scheduleFamily];
