// The long-sequences panel's formulas (TeX), apart from the DOM so tests can read them. No word
// sits inside the TeX: each formula's label is a string in the reader's language.

// Full and linear attention, each under a label of its own (no word inside the TeX). Linear attention
// as src/linear_attention.cpp computes it: φ on q and k as given (no 1/√d_k), with its normaliser.
export const FORMULAS = [
  ['cost.formulaFull', String.raw`\underbrace{\operatorname{softmax}\Big(\frac{QK^{\top}}{\sqrt{d_k}}\Big)}_{n\times n}V`],
  ['cost.formulaLinear', String.raw`o_i = \frac{\phi(q_i)^{\top}\,\overbrace{\textstyle\sum_j \phi(k_j)\,v_j^{\top}}^{d_k\times d_v}}{\phi(q_i)^{\top}\textstyle\sum_j \phi(k_j)}, \qquad \phi(x) = \operatorname{elu}(x) + 1`],
];

/** The online softmax of the fused path: the state after block b (keys B_b) of N. */
export const RECURRENCE = String.raw`\begin{aligned} m_b &= \max\big(m_{b-1},\ \max_{j\in B_b} s_j\big), & \alpha_b &= e^{\,m_{b-1}-m_b},\\ \ell_b &= \alpha_b\,\ell_{b-1} + \sum_{j\in B_b} e^{\,s_j-m_b}, & \mathrm{acc}_b &= \alpha_b\,\mathrm{acc}_{b-1} + \sum_{j\in B_b} e^{\,s_j-m_b}\,v_j,\\ o &= \mathrm{acc}_N/\ell_N \end{aligned}`;
