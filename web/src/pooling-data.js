// Dive into Deep Learning's attention data, seeded: the pooling data (10.2), the
// training set and test points, and the cues section's matrices (10.1), shared by the panel and its tests.
import { mulberry32, normals } from './random.js';

export const truth = (x) => 2 * Math.sin(x) + x ** 0.8;

/** 50 sorted training points x ~ U(0, 5), y = 2 sin x + x^0.8 + N(0, 0.5²); test x = 0, 0.1, …, 4.9. */
export function poolingData(seed) {
  const uniform = mulberry32((seed ^ 0x5eed) >>> 0);
  const gauss = normals(uniform);
  const xTrain = Float32Array.from({ length: 50 }, () => uniform() * 5).sort();
  const yTrain = xTrain.map((x) => truth(x) + gauss() * 0.5);
  const xTest = Float32Array.from({ length: 50 }, (_, k) => k * 0.1);
  return { xTrain, yTrain, xTest };
}

/** D2L 10.1's random 10×10 matrix (uniform in [0, 1), seeded), whose rows the cues section passes through softmax. */
export function cueScores(seed, n = 10) {
  const uniform = mulberry32((seed ^ 0xc0e5) >>> 0);
  return { rows: n, cols: n, data: Float32Array.from({ length: n * n }, uniform) };
}

/** The n×n identity as attention weights: query i gives all its weight to key i. */
export function identityWeights(n = 10) {
  return { rows: n, cols: n, data: Float32Array.from({ length: n * n }, (_, k) => (Math.floor(k / n) === k % n ? 1 : 0)) };
}
