// The kernels <attention-pooling> offers, each with its formula as typeset and the same formula
// in JS. tests/js/pooling-kernels.test.js normalises `value` over the training points and checks
// it against lab.nadarayaWatson's weights, so the formula shown is the one
// src/kernel_regression.cpp computes (u = (x − x_i)/h).

/** Formulas without words (no English inside the Chinese page): the zero branch is written |u| > 1. */
const WINDOW = (k) => String.raw`K(u) = \begin{cases} ${k}, & |u| \le 1 \\ 0, & |u| > 1 \end{cases}`;

export const KERNEL_FORMULAS = {
  gaussian: {
    tex: String.raw`K(u) = e^{-u^2/2}`,
    value: (u) => Math.exp(-0.5 * u * u),
  },
  boxcar: {
    tex: WINDOW('1'),
    value: (u) => (Math.abs(u) <= 1 ? 1 : 0),
  },
  epanechnikov: {
    tex: WINDOW(String.raw`\tfrac{3}{4}\,(1 - u^2)`),
    value: (u) => (Math.abs(u) <= 1 ? 0.75 * (1 - u * u) : 0),
  },
  constant: {
    tex: String.raw`K(u) = 1`,
    value: () => 1,
  },
};

/** What `kernel` makes of the weights α(x, x_i) with m keys (nothing more to say for the compact kernels). */
function weightsTex(kernel, m) {
  if (kernel === 'gaussian') {
    // K in α's fraction gives exp(score_i) / Σ_j exp(score_j): a softmax over the scores −½((x − x_i)/h)².
    return String.raw`\;\Rightarrow\; \alpha(x, x_i) = \operatorname{softmax}_i\Big(-\tfrac{1}{2}\big(\tfrac{x - x_i}{h}\big)^2\Big)`;
  }
  if (kernel === 'constant') return String.raw`\;\Rightarrow\; \alpha(x, x_i) = \frac{1}{${m}}`;
  return '';
}

/** The panel's formula for `kernel` over `m` training points: the pooling, then the kernel. */
export function formulaTex(kernel, m) {
  const pooling = String.raw`f(x) = \sum_{i=1}^{${m}} \alpha(x, x_i)\, y_i, \qquad \alpha(x, x_i) = \frac{K\big(\frac{x - x_i}{h}\big)}{\sum_{j} K\big(\frac{x - x_j}{h}\big)}`;
  return String.raw`\begin{gathered} ${pooling} \\[0.6em] ${KERNEL_FORMULAS[kernel].tex}${weightsTex(kernel, m)} \end{gathered}`;
}
