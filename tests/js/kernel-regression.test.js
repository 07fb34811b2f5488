// Nadaraya-Watson kernel regression (attention pooling) against the float64
// reference on both builds, for every kernel.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, SIZES, expectClose, loadLab, randomVector, rng } from './helpers.js';
import * as R from './reference.js';

const KERNELS = ['gaussian', 'boxcar', 'epanechnikov', 'constant'];

// Sorted training inputs in [0, 5) with y = 2 sin x + x^0.8 + noise, as in Dive into Deep Learning 11.2.
function dataset(rand, m, n) {
  const xTrain = Float32Array.from({ length: m }, () => 5 * rand()).sort();
  const yTrain = xTrain.map((x) => 2 * Math.sin(x) + x ** 0.8 + 0.5 * (rand() - 0.5));
  const xQuery = Float32Array.from({ length: n }, (_, i) => (n === 1 ? 2.5 : (5 * i) / (n - 1)));
  return { xTrain, yTrain, xQuery };
}

describe.each(BUILDS)('nadarayaWatson ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const cases = KERNELS.flatMap((kernel) => SIZES.map((s) => [kernel, s]));
  it.each(cases)('%s kernel with %i training and query points matches the reference', (kernel, s) => {
    const rand = rng(s * 31 + kernel.length);
    const { xTrain, yTrain, xQuery } = dataset(rand, s, s);
    // The bandwidth is a float32 value so library and reference see the same h.
    const bandwidth = Math.fround(kernel === 'gaussian' ? 0.5 : 0.8);
    const want = R.nadarayaWatson(xTrain, yTrain, xQuery, { kernel, bandwidth });
    const got = lab.nadarayaWatson(xTrain, yTrain, xQuery, { kernel, bandwidth });
    expect(got.predictions).toBeInstanceOf(Float32Array);
    expect(got.predictions).toHaveLength(s);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.predictions, want.predictions, { label: 'predictions' });
  });

  it.each([
    [3, 65],
    [64, 5],
    [17, 1],
    [1, 17],
  ])('gaussian with %i training points and %i queries (default bandwidth 1)', (m, n) => {
    const { xTrain, yTrain, xQuery } = dataset(rng(m * 100 + n), m, n);
    const want = R.nadarayaWatson(xTrain, yTrain, xQuery);
    const got = lab.nadarayaWatson(xTrain, yTrain, xQuery);
    expect([got.weights.rows, got.weights.cols]).toEqual([n, m]);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.predictions, want.predictions, { label: 'predictions' });
  });

  it("defaults to the gaussian kernel ('gaussian' explicitly gives the same result)", () => {
    const { xTrain, yTrain, xQuery } = dataset(rng(5), 10, 7);
    const a = lab.nadarayaWatson(xTrain, yTrain, xQuery);
    const b = lab.nadarayaWatson(xTrain, yTrain, xQuery, { kernel: 'gaussian', bandwidth: 1 });
    expect(Array.from(a.predictions)).toEqual(Array.from(b.predictions));
    expect(Array.from(a.weights.data)).toEqual(Array.from(b.weights.data));
  });

  it('accepts number[] and Float32Array inputs with identical results', () => {
    const { xTrain, yTrain, xQuery } = dataset(rng(6), 17, 9);
    const a = lab.nadarayaWatson(xTrain, yTrain, xQuery, { kernel: 'epanechnikov', bandwidth: 1.5 });
    const b = lab.nadarayaWatson(Array.from(xTrain), Array.from(yTrain), Array.from(xQuery), { kernel: 'epanechnikov', bandwidth: 1.5 });
    expect(Array.from(a.predictions)).toEqual(Array.from(b.predictions));
    expect(Array.from(a.weights.data)).toEqual(Array.from(b.weights.data));
  });

  it('constant kernel is plain average pooling', () => {
    const got = lab.nadarayaWatson([0, 1, 2, 3], [1, 2, 3, 10], [-100, 1.5, 100], { kernel: 'constant' });
    expectClose(got.predictions, [4, 4, 4], { atol: 1e-6 });
    expectClose(got.weights, [[0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]], { atol: 0, rtol: 0 });
  });

  it('boxcar averages the points within one bandwidth, edges included', () => {
    // u = (x − x_i)/h; with h = 1 the query 2 sees 1, 2 and 3 (|u| ≤ 1) but not 0 or 4.
    const got = lab.nadarayaWatson([0, 1, 2, 3, 4], [10, 20, 30, 40, 50], [2], { kernel: 'boxcar', bandwidth: 1 });
    expectClose(got.weights, [[0, 1 / 3, 1 / 3, 1 / 3, 0]], { atol: 1e-7 });
    expectClose(got.predictions, [30], { atol: 1e-5 });
    expect(got.weights.data[0]).toBe(0);
    expect(got.weights.data[4]).toBe(0);
  });

  it('epanechnikov weights are 3/4 (1 − u²) normalised', () => {
    const got = lab.nadarayaWatson([0, 0.5, 1, 3], [1, 2, 3, 4], [0], { kernel: 'epanechnikov', bandwidth: 2 });
    // u = 0, −0.25, −0.5, −1.5 → K = 0.75, 0.703125, 0.5625, 0
    const k = [0.75, 0.703125, 0.5625, 0];
    const z = k[0] + k[1] + k[2];
    expectClose(got.weights, [k.map((x) => x / z)], { atol: 1e-7 });
    expectClose(got.predictions, [(0.75 * 1 + 0.703125 * 2 + 0.5625 * 3) / z], { atol: 1e-6 });
  });

  it.each(['boxcar', 'epanechnikov'])('%s: a query outside every window predicts 0 with all-zero weights', (kernel) => {
    const got = lab.nadarayaWatson([0, 1, 2], [5, 6, 7], [10, 1], { kernel, bandwidth: 0.5 });
    expect(got.predictions[0]).toBe(0);
    expect(Array.from(got.weights.data.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(got.predictions[1]).toBeCloseTo(6, 6);
  });

  it('gaussian stays finite for queries far from every training point', () => {
    const got = lab.nadarayaWatson([0, 1], [3, 5], [1000, -1000], { bandwidth: 0.1 });
    expect(got.predictions.every(Number.isFinite)).toBe(true);
    expectClose(got.predictions, [5, 3], { atol: 1e-5 });
    expectClose(got.weights, [[0, 1], [1, 0]], { atol: 1e-7 });
  });

  it('a small bandwidth approaches nearest-neighbour, a large one the mean', () => {
    const xTrain = [0, 1, 2, 3];
    const yTrain = [0, 10, 20, 30];
    const narrow = lab.nadarayaWatson(xTrain, yTrain, [1.1], { bandwidth: 0.01 });
    expect(narrow.predictions[0]).toBeCloseTo(10, 4);
    const wide = lab.nadarayaWatson(xTrain, yTrain, [1.1], { bandwidth: 1e4 });
    expect(wide.predictions[0]).toBeCloseTo(15, 3);
  });

  it('empty query set gives empty predictions', () => {
    const got = lab.nadarayaWatson([1, 2], [3, 4], []);
    expect(got.predictions).toHaveLength(0);
    expect([got.weights.rows, got.weights.cols]).toEqual([0, 2]);
  });

  it('rows of the weight matrix sum to 1 for random data (every kernel)', () => {
    for (const kernel of KERNELS) {
      const rand = rng(kernel.length * 3);
      const xTrain = randomVector(rand, 40, 0, 5);
      const yTrain = randomVector(rand, 40);
      const xQuery = randomVector(rand, 13, 0.5, 4.5);
      const got = lab.nadarayaWatson(xTrain, yTrain, xQuery, { kernel, bandwidth: 1 });
      for (let i = 0; i < 13; i++) {
        let sum = 0;
        for (let j = 0; j < 40; j++) sum += got.weights.data[i * 40 + j];
        expect(Math.abs(sum - 1), `${kernel} row ${i}`).toBeLessThan(1e-5);
      }
    }
  });
});
