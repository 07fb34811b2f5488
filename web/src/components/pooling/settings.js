// <attention-pooling>'s choices: the kernels offered, the parametric fit's start and learning
// rates, and how its numbers are written.

export const KERNELS = ['gaussian', 'boxcar', 'epanechnikov', 'constant'];
/** Parametric pooling: gradient descent on w from w = 1 (bandwidth 1), ten steps. */
export const FIT = { w: 1, epochs: 10 };
/** The learning rates offered for the fit, the middle one first. */
export const RATES = ['0.02', '0.1', '0.5'];
export const DEFAULT_RATE = '0.1';

/** A number with at most two decimals, no trailing zeros. */
export const fmt = (v) => Number(v.toFixed(2)).toString();
