// Dive into Deep Learning's attention-pooling data (10.2), seeded: the
// training set and test points the pooling panel and its tests share.
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
