// Train a task's model from lab.createTransformer until its validation goal is reached, and time it.
// Shared by bench/train.mjs (Node) and bench/train-browser.mjs (the same loop in Chromium), so both
// measure the same thing. No Node API here: it runs in a page too.
//
// Each step trains on a fresh seeded batch of the train split, at lab.learningRateAt(step, options):
// a linear warm-up, then a cosine down to a tenth of the peak at `steps`. Every `every` steps the validation split (`validation` seeded batches of 64, whatever the
// training batch) is scored with teacher forcing (model.evaluate's exactMatch: a row is right when
// every counted position, its EOS included, is predicted right, which is exactly when greedy
// decoding reproduces it). For an encoder–decoder task, once that reaches the goal the sources are
// decoded greedily (model.generate) and checked with task.check, and the clock stops at the first
// greedy check at the goal. The time includes every check.

/** The options train() understands, with the task's own defaults filled in. */
export function trainingOptions(task, given = {}) {
  const { training, model } = task.defaults;
  const pick = (name, fallback) => (given[name] === undefined ? fallback : given[name]);
  return {
    seed: pick('seed', 1),
    batchSize: pick('batchSize', training.batchSize),
    learningRate: pick('learningRate', training.learningRate),
    warmup: pick('warmup', training.warmup),
    steps: pick('steps', training.steps),
    clipNorm: pick('clipNorm', training.clipNorm),
    every: pick('every', 100),
    validation: pick('validation', 8),
    limitSeconds: pick('limitSeconds', 300),
    maxSteps: pick('maxSteps', Infinity),
    model: { ...model, ...(given.model ?? {}) },
  };
}

function validationBatches(task, count) {
  const extra = task.goal.count ? { count: task.goal.count } : {};
  return Array.from({ length: count }, (_, i) => task.batch({ seed: 1000 + i, size: 64, split: 'validation', ...extra }));
}

function teacherForcedExactMatch(model, batches) {
  let right = 0;
  let rows = 0;
  for (const b of batches) {
    right += model.evaluate(b).exactMatch * b.size;
    rows += b.size;
  }
  return right / rows;
}

function greedyExactMatch(task, model, batches) {
  let right = 0;
  let rows = 0;
  for (const b of batches)
    for (const e of b.examples) {
      rows++;
      if (task.check(e.source, model.generate(task.encode(e.source)).text)) right++;
    }
  return right / rows;
}

/**
 * Train lab.tasks[taskName] to its goal (or until limitSeconds or maxSteps). log(line) gets a line per check.
 * Returns a plain object (JSON-ready): reached, exactMatch, steps, seconds, trainSeconds, checkSeconds,
 * stepsPerSecond, the options used, parameters, a sample of outputs and the curve.
 */
export function trainToGoal(lab, taskName, given = {}, log = () => {}) {
  const task = lab.tasks[taskName];
  const o = trainingOptions(task, given);
  const batches = validationBatches(task, o.validation);
  const greedy = task.kind === 'seq2seq';
  const start = performance.now();
  const model = lab.createTransformer({ task, seed: o.seed, ...o.model });
  let step = 0;
  let exact = 0;
  let trainMs = 0;
  let checkMs = 0;
  const curve = [];
  try {
    while (performance.now() - start < o.limitSeconds * 1000 && step < o.maxSteps) {
      const t0 = performance.now();
      let result;
      for (let i = 0; i < o.every; i++) {
        step++;
        const batch = task.batch({ seed: step, size: o.batchSize, split: 'train' });
        result = model.trainStep(batch, { learningRate: lab.learningRateAt(step, o), clipNorm: o.clipNorm });
        if (result.diverged) throw new Error(`${taskName}: diverged at step ${result.step}`);
      }
      const t1 = performance.now();
      exact = teacherForcedExactMatch(model, batches);
      if (greedy && exact >= task.goal.value) exact = greedyExactMatch(task, model, batches);
      const t2 = performance.now();
      trainMs += t1 - t0;
      checkMs += t2 - t1;
      const seconds = +((t2 - start) / 1000).toFixed(1);
      curve.push({ step, loss: +result.loss.toFixed(4), exactMatch: exact, seconds });
      log(`${taskName}: step ${step}  loss ${result.loss.toFixed(4)}  validation exact match ${(100 * exact).toFixed(1)} %  ${seconds} s`);
      if (exact >= task.goal.value) break;
    }
    const sample = greedy
      ? batches[0].examples.slice(0, 3).map((e) => ({ source: e.source, output: model.generate(task.encode(e.source)).text }))
      : [];
    return {
      task: taskName, build: lab.simd ? 'simd' : 'scalar', reached: exact >= task.goal.value, goal: task.goal.value,
      measure: greedy ? 'greedy decoding, task.check' : `teacher-forced exact match${task.goal.count ? ` (count: ${task.goal.count})` : ''}`,
      exactMatch: exact, steps: step, seconds: +((performance.now() - start) / 1000).toFixed(1),
      trainSeconds: +(trainMs / 1000).toFixed(1), checkSeconds: +(checkMs / 1000).toFixed(1),
      stepsPerSecond: +(step / (trainMs / 1000)).toFixed(1), options: o, parameters: model.parameterCount,
      validation: batches.length * 64, sample, curve,
    };
  } finally {
    model.dispose();
  }
}
