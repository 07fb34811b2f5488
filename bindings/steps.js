// The trace's step records: what each intermediate is called and the formula
// that produced it. Titles are short English labels; the demo translates by id.
const STEP_INFO = {
  Q: ['Queries', 'Q = XW_Q'],
  K: ['Keys', 'K = XW_K'],
  V: ['Values', 'V = XW_V'],
  scores: ['Scores', 'S = QK^{\\top}'],
  scaled: ['Scaled scores', "S' = \\frac{QK^{\\top}}{\\sqrt{d_k}}"],
  masked: ['Masked scores', "S'_{ij} = -\\infty \\text{ where } M_{ij} = 0"],
  weights: ['Attention weights', "A = \\operatorname{softmax}(S')"],
  output: ['Output', 'O = AV'],
  concat: ['Concatenated heads', 'H = \\operatorname{Concat}(O_1, \\dots, O_h)'],
};

const ADDITIVE = {
  scores: ['Additive scores', 'S_{ij} = w_v^{\\top} \\tanh(q_i W_q + k_j W_k)'],
  weights: ['Attention weights', 'A = \\operatorname{softmax}(S)'],
};

const MULTI_HEAD_OUTPUT = ['Output', 'O = HW_O'];

/**
 * One step record { id, title, formula, matrix }; extra fields (the mask bits
 * for the masked step) are merged in.
 * @param {'dot'|'additive'|'multiHead'} family which formulas to use
 */
export function step(id, matrix, family = 'dot', extra = {}) {
  let [title, formula] = (family === 'additive' && ADDITIVE[id]) || STEP_INFO[id];
  if (family === 'multiHead' && id === 'output') [title, formula] = MULTI_HEAD_OUTPUT;
  if (id === 'scaled' && extra.scale !== undefined) {
    formula = `S' = ${formatScale(extra.scale)} \\cdot QK^{\\top}`;
    extra = {};
  }
  return { id, title, formula, matrix, ...extra };
}

function formatScale(scale) {
  return Number.isInteger(scale) ? String(scale) : String(Number(scale.toPrecision(6)));
}
