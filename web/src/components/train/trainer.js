// One training run of <attention-train>, DOM-free (the worker drives it; tests/js runs it in Node):
// the model of the settings, trained on fresh seeded batches of the task's train split at
// lab.learningRateAt; every EVERY steps the validation split is scored (model.evaluate's exact
// match, and for an encoder–decoder task greedy decoding checked by task.check once that reaches
// the goal, as bench/lib/train-to-goal.mjs does); the attention of a fixed example for every layer
// and head (model.generate). Every number is the library's; this file only counts and times.
import { modelOptions, schedule } from './settings.js';
import { readInput } from './try-input.js';

/** Steps between two validation scores (and attention snapshots). */
export const EVERY = 50;
/** Validation batches of 64 rows (seeded, the same for every run). */
const VALIDATION = 2;

const flat = (rows) => {
  const data = new Float32Array(rows.length * (rows[0]?.length ?? 0));
  rows.forEach((row, i) => data.set(row, i * row.length));
  return { rows: rows.length, cols: rows[0]?.length ?? 0, data };
};

/**
 * The attention of `ids` decoded greedily by `model` (trained on `task`): { output, kind: 'cross' |
 * 'self', maps: [layer][head] { rows, cols, data }, rowLabels, colLabels }. An encoder–decoder
 * model's cross-attention (decoder steps × source tokens), a decoder-only model's causal
 * self-attention. A row is labelled with the token its position wrote (or, over a decoder-only
 * model's input, the input's next token), as the cross-attention panel labels them: the library's
 * labels name the token each row read, one step earlier. Columns are the tokens read.
 */
export function attentionOf(model, ids, task) {
  const r = model.generate(ids, { attention: true });
  const kind = r.attention.cross ? 'cross' : 'self';
  const maps = r.attention[kind === 'cross' ? 'cross' : 'decoder'].map((layer) => layer.map(flat));
  const labels = r.attention.labels[kind === 'cross' ? 'cross' : 'decoder'];
  // Row i read token i of <bos> + input + output and wrote token i + 1: the input after <bos> (decoder-only), then the output.
  const written = task.tokens([...(kind === 'self' ? ids : []), ...r.tokens]).slice(0, labels.rows.length);
  return { output: r.text ?? r.tokens.join(' '), kind, maps, rowLabels: written, colLabels: labels.cols };
}

export class Trainer {
  #lab;
  #task;
  #model;
  #plan;
  #batches;
  #example;
  step = 0;
  accuracy = null;
  trainMs = 0;
  reached = false;

  /** `settings`: trainSettings(...) as used. Throws the library's AttentionError for a bad model. */
  constructor(lab, settings) {
    this.#lab = lab;
    this.#task = lab.tasks[settings.task];
    this.#plan = schedule(this.#task);
    this.#model = lab.createTransformer(modelOptions(settings, this.#task));
    const extra = this.#task.goal.count ? { count: this.#task.goal.count } : {};
    this.#batches = Array.from({ length: VALIDATION }, (_, i) => this.#task.batch({ seed: 1000 + i, size: 64, split: 'validation', ...extra }));
    this.#example = this.#task.examples[0];
  }

  get goal() {
    return this.#task.goal.value;
  }
  get maxSteps() {
    return this.#plan.maxSteps;
  }
  get parameters() {
    return this.#model.parameterCount;
  }
  get example() {
    return this.#example;
  }

  /**
   * Train for about `budgetMs` milliseconds (at least one step, at most up to the next validation
   * step): { step, loss (the chunk's last step's), learningRate, stepsPerSecond (over the run's
   * training time), gradientNorm (the chunk's last step's, before clipping), validated (this chunk ended on a validation step), accuracy, reached, diverged }.
   */
  chunk(budgetMs) {
    const start = performance.now();
    const t = this.#task;
    let result;
    let learningRate;
    do {
      this.step++;
      learningRate = this.#lab.learningRateAt(this.step, this.#plan);
      const batch = t.batch({ seed: this.step, size: this.#plan.batchSize, split: 'train' });
      result = this.#model.trainStep(batch, { learningRate, clipNorm: this.#plan.clipNorm });
      if (result.diverged) break;
    } while (this.step % EVERY !== 0 && performance.now() - start < budgetMs);
    this.trainMs += performance.now() - start;
    const validated = !result.diverged && this.step % EVERY === 0;
    if (validated) this.#validate();
    return {
      step: this.step, loss: result.loss, gradientNorm: result.gradientNorm, learningRate, stepsPerSecond: this.step / (this.trainMs / 1000),
      validated, accuracy: this.accuracy, reached: this.reached, diverged: Boolean(result.diverged), stopped: this.step >= this.#plan.maxSteps,
    };
  }

  /** The validation exact match (teacher-forced; for seq2seq at the goal, greedy and task.check). */
  #validate() {
    let right = 0;
    let rows = 0;
    for (const b of this.#batches) {
      right += this.#model.evaluate(b).exactMatch * b.size;
      rows += b.size;
    }
    this.accuracy = right / rows;
    if (this.#task.kind === 'seq2seq' && this.accuracy >= this.goal) this.accuracy = this.#greedy();
    this.reached = this.accuracy >= this.goal;
  }

  #greedy() {
    let right = 0;
    let rows = 0;
    for (const b of this.#batches)
      for (const e of b.examples) {
        rows++;
        if (this.#task.check(e.source, this.#model.generate(this.#task.encode(e.source)).text)) right++;
      }
    return right / rows;
  }

  /** The fixed example's attention now (attentionOf), with the example. */
  snapshot() {
    return { input: this.#example, ...attentionOf(this.#model, this.#task.encode(this.#example), this.#task) };
  }

  /**
   * The reader's input read with the task's vocabulary (try-input.js) and decoded with its attention,
   * with the pieces outside the vocabulary (`unknown`); an empty input, or one longer than the task's,
   * is not decoded: { input, refused: { problem, count, max, unit } } (the panel says why).
   */
  generate(text) {
    const read = readInput(this.#task, text, this.#model.config.maxLength);
    const { problem, count, max, unit, unknown } = read;
    if (problem) return { input: text, refused: { problem, count, max, unit }, unknown };
    return { input: text, unknown, ...attentionOf(this.#model, read.ids, this.#task) };
  }

  /** Copies of the model's parameters by name: { [name]: { rows, cols, data: Float32Array } }. */
  weights() {
    return this.#model.parameters();
  }

  dispose() {
    this.#model.dispose();
  }
}
