// "The step with this id, for this head": one reading of a traced result
// (`trace: true`) for every panel, instead of `steps.find((s) => s.id === …)`
// written out in each. Pure: no DOM, no library calls.

/**
 * The traced steps of `result`: the whole call's, or head `head`'s when a head is given and the
 * result has heads (multiHeadAttention). A result without heads (selfAttention,
 * scaledDotProductAttention) is its own only head, so its steps are returned for any head.
 * Empty when the result was not traced or the head does not exist.
 */
export function traceStepsOf(result, head) {
  if (head === undefined || !result?.heads) return result?.steps ?? [];
  return result.heads[head]?.steps ?? [];
}

/** The step `id` of `result` (for head `head`, see traceStepsOf), or undefined when absent. */
export function traceStep(result, id, head) {
  return traceStepsOf(result, head).find((s) => s.id === id);
}

/** The matrix of step `id`; a step that is not there throws, naming it (a typo fails loudly). */
export function traceMatrix(result, id, head) {
  const step = traceStep(result, id, head);
  if (!step) throw new Error(`trace has no step "${id}"${head === undefined ? '' : ` for head ${head}`}`);
  return step.matrix;
}

/** The masked step's visibility bits (1 = may attend), or undefined when nothing was masked. */
export function traceMask(result, head) {
  return traceStep(result, 'masked', head)?.mask;
}

/** The steps keyed by id: { Q: step, K: step, … }, for a panel that reads several. */
export function stepsById(steps) {
  return Object.fromEntries((steps ?? []).map((s) => [s.id, s]));
}

// A TeX command or \text{…} (kept as written), or an operand letter of the trace's formulas with its
// prime and superscript: Q, K^{\top}, S'.
const OPERAND = /(\\text\{[^}]*\}|\\[a-zA-Z]+)|([QKVSAO])('?)(?:\^\{([^}]*)\})?/g;

/**
 * A single-head formula of the trace written for head `label` (1, 2, …) of a multi-head call: its
 * operands are that head's n×d_k slices, so Q, K, V, S, A, O get the head's superscript:
 * 'S = QK^{\top}' → 'S^{(2)} = Q^{(2)}K^{(2)\top}'. The library writes one formula per step for
 * every head; the head is named here, where the panel knows which head it shows.
 */
export function headFormula(formula, label) {
  return formula.replace(OPERAND, (_, command, letter, prime, sup) => (command ? command : `${letter}${prime}^{(${label})${sup ?? ''}}`));
}

/** The concatenation's formula for `heads` heads, in the same notation: H = Concat(O^{(1)}, …, O^{(h)}). */
export function concatFormula(heads) {
  const parts = heads <= 3 ? Array.from({ length: heads }, (_, k) => `O^{(${k + 1})}`) : ['O^{(1)}', '\\dots', `O^{(${heads})}`];
  return `H = \\operatorname{Concat}(${parts.join(', ')})`;
}
