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

// Additive scoring has no scaled step: its masked step is where S' is made, and the softmax
// after a mask takes S' (step's `afterMask`), as the dot-product forms' does.
const ADDITIVE = {
  scores: ['Additive scores', 'S_{ij} = \\tanh(q_i W_q + k_j W_k)\\,w_v'],
  masked: ['Masked scores', "S'_{ij} = \\begin{cases} S_{ij} & M_{ij} = 1 \\\\ -\\infty & M_{ij} = 0 \\end{cases}"],
  weights: ['Attention weights', 'A = \\operatorname{softmax}(S)'],
};

const MULTI_HEAD_OUTPUT = ['Output', 'O = HW_O'];

// The Transformer encoder block's steps after the heads (post-norm).
const TRANSFORMER = {
  attention: ['Multi-head attention', 'A = \\operatorname{Concat}(O_1, \\dots, O_h)\\,W_O'],
  residual1: ['Residual connection', 'X + A'],
  norm1: ['Add & norm', 'Y = \\operatorname{LayerNorm}(X + A)'],
  hidden: ['Feed-forward hidden layer', 'H_{\\text{ff}} = \\operatorname{ReLU}(YW_1 + b_1)'],
  ffn: ['Feed-forward output', 'F = H_{\\text{ff}}W_2 + b_2'],
  residual2: ['Residual connection', 'Y + F'],
  output: ['Add & norm (block output)', 'Z = \\operatorname{LayerNorm}(Y + F)'],
};

/**
 * One step record { id, title, formula, matrix }; extra fields (the mask bits
 * for the masked step) are merged in.
 * @param {'dot'|'additive'|'multiHead'|'transformer'} family which formulas to use
 */
export function step(id, matrix, family = 'dot', extra = {}) {
  let [title, formula] = (family === 'additive' && ADDITIVE[id]) || (family === 'transformer' && TRANSFORMER[id]) || STEP_INFO[id];
  if (family === 'multiHead' && id === 'output') [title, formula] = MULTI_HEAD_OUTPUT;
  if (extra.afterMask !== undefined) {
    if (extra.afterMask) formula = STEP_INFO.weights[1];
    extra = {};
  }
  if (id === 'scaled' && extra.scale !== undefined) {
    formula = `S' = ${formatScale(extra.scale)} \\cdot QK^{\\top}`;
    extra = {};
  }
  return { id, title, formula, matrix, ...extra };
}

function formatScale(scale) {
  return Number.isInteger(scale) ? String(scale) : String(Number(scale.toPrecision(6)));
}
