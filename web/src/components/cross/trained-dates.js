// <attention-cross> with trained weights: the shipped dates checkpoint (an encoder–decoder trained
// to write a date in any of the task's forms as YYYY-MM-DD), loaded with the training build on
// first use only, so a page whose panels show random weights never fetches either. The output is
// the model's greedy decode and the weights are its decoder's cross-attention, per head and their
// average, every number from the library (model.generate; the average a lab.matmul).
import { foldCharacters } from '../../tokenize.js';
import { getTrained } from '../../training-lab.js';

/** The date the panel reads when none is typed, in the page's language. */
export const DEFAULT_DATE = { en: 'December 1, 2026', 'zh-CN': '2026年12月1日' };
export const defaultDate = (lang) => DEFAULT_DATE[lang] ?? DEFAULT_DATE.en;
/** The checkpoint the panel shows. */
export const CHECKPOINT = 'dates';

/** The training build and the dates model, loaded once and shared by every panel: { lab, model }. */
export const getTrainedDates = () => getTrained(CHECKPOINT);

/** rows×cols number[][] → a Matrix. */
const toMatrix = (rows) => {
  const cols = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * cols);
  rows.forEach((row, i) => data.set(row, i * cols));
  return { rows: rows.length, cols, data };
};

/**
 * The average of h equally shaped n×m matrices as one library product: [A₀ … A_(h−1)] (n×hm)
 * times h identities stacked and scaled by 1/h (hm×m).
 */
function averageOf(lab, mats) {
  const h = mats.length;
  const { rows: n, cols: m } = mats[0];
  const side = new Float32Array(n * h * m);
  mats.forEach((A, k) => {
    for (let i = 0; i < n; i++) side.set(A.data.subarray(i * m, (i + 1) * m), i * h * m + k * m);
  });
  const stack = new Float32Array(h * m * m);
  for (let k = 0; k < h; k++) for (let j = 0; j < m; j++) stack[(k * m + j) * m + j] = 1 / h;
  return lab.matmul({ rows: n, cols: h * m, data: side }, { rows: h * m, cols: m, data: stack });
}

/**
 * The model on one typed date: `text` cut to the model's source length, each letter outside the
 * vocabulary read in its other case where that is in it ("DECEMBER" as the model's letters: matched
 * without regard to case, foldCharacters). Returns { chars (the source as read, one per position), cut (characters beyond the length, 0 if none), unknown
 * (the distinct characters outside the vocabulary), output (the decoded text), outTokens (one
 * label per decoder row: the token that row wrote), heads (per layer, per head: Matrix, rows ×
 * source), average (per layer), correct (task.check) }.
 */
export function runDates({ lab, model }, text) {
  const task = lab.tasks.dates;
  const all = Array.from(foldCharacters(text, task.vocabulary.slice(task.unk + 1)).text);
  const chars = all.slice(0, model.config.maxLength);
  const ids = task.encode(chars.join(''));
  const unknown = [...new Set(chars.filter((_, i) => ids[i] === task.unk))];
  const { tokens, text: output, attention } = model.generate(ids, { attention: true });
  const outTokens = tokens.map((id) => task.vocabulary[id]);
  const heads = attention.cross.map((layer) => layer.map(toMatrix));
  const average = heads.map((layer) => averageOf(lab, layer));
  return { chars, cut: all.length - chars.length, unknown, output, outTokens, heads, average, correct: task.check(chars.join(''), output) };
}
