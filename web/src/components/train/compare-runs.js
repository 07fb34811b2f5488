// <attention-train>'s compare mode, DOM-free: the two runs a compare setting trains side by side
// (the same task, sizes and seed; only the attention's scoring differs), and the curves of both as
// one CSV. 'scaling': scaled vs unscaled dot-product (÷√d_k or not, in self- and cross-attention);
// 'scoring': scaled dot-product vs additive cross-attention (seq2seq tasks only).

/** The scorings of each compare mode's two runs, in the order they are drawn (colours, labels). */
export const COMPARE_PAIRS = { scaling: ['dot', 'unscaled'], scoring: ['dot', 'additive'] };

/**
 * The two runs of `settings` (trainSettings(...) with compare set): [{ scoring, settings }] with the
 * run's own settings (scoring replaced). Throws for no compare mode, or 'scoring' on a decoder-only task.
 */
export function compareRuns(settings) {
  const pair = COMPARE_PAIRS[settings.compare];
  if (!pair) throw new Error(`compareRuns: compare is ${JSON.stringify(settings.compare)}; give 'scaling' or 'scoring'`);
  if (settings.compare === 'scoring' && !settings.seq2seq)
    throw new Error(`compareRuns: the ${settings.task} task is decoder-only, with no cross-attention to score; compare 'scaling' instead`);
  return pair.map((scoring) => ({ scoring, settings: { ...settings, scoring, compare: '' } }));
}

const cell = (v) => (v === null || v === undefined ? '' : String(v));

/**
 * The curves of runs as CSV, one row per step any run recorded: step, then per run its loss,
 * validation exact match (empty off the validation steps) and gradient norm (empty where that run
 * has no point). `runs`: [{ name, losses: { step, loss, gradientNorm }[], accuracies: { step, accuracy }[] }].
 */
export function curvesCsv(runs) {
  const quote = (s) => `"${String(s).replaceAll('"', '""')}"`;
  const head = ['step', ...runs.flatMap((r) => [`${r.name} loss`, `${r.name} validation`, `${r.name} gradient norm`])];
  const byStep = runs.map((r) => ({ loss: new Map(r.losses.map((p) => [p.step, p])), accuracy: new Map(r.accuracies.map((p) => [p.step, p.accuracy])) }));
  const steps = [...new Set(runs.flatMap((r) => r.losses.map((p) => p.step)))].sort((a, b) => a - b);
  const lines = [head.map(quote).join(',')];
  for (const step of steps) {
    const row = [step];
    for (const m of byStep) {
      const p = m.loss.get(step);
      row.push(cell(p?.loss), cell(m.accuracy.get(step)), cell(p?.gradientNorm));
    }
    lines.push(row.join(','));
  }
  return `${lines.join('\n')}\n`;
}
