// <attention-pooling>'s DOM-free parts in Node against the library: each kernel's formula as the
// panel writes it (web/src/components/pooling/kernels.js) gives the weights lab.nadarayaWatson
// computes; the Gaussian's weights are lab.softmax of −½((x − x_i)/h)²; the queries counted as
// having no key in the window (weights.js) are those the float64 reference gives all-zero rows;
// the prediction's path leaves them out (query-chart.js); the cues section's random rows.
import { beforeAll, describe, expect, it } from 'vitest';

import { KERNEL_FORMULAS, formulaTex } from '../../web/src/components/pooling/kernels.js';
import { predictionPath } from '../../web/src/components/pooling/query-chart.js';
import { KERNELS } from '../../web/src/components/pooling/settings.js';
import { emptyRows, rowStats } from '../../web/src/components/pooling/weights.js';
import { cueScores, identityWeights, poolingData } from '../../web/src/pooling-data.js';
import { BUILDS, expectClose, loadLab } from './helpers.js';
import * as R from './reference.js';

describe.each(BUILDS)('pooling panel parts ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each(KERNELS.flatMap((k) => [0.05, 0.3, 1].map((h) => [k, h])))('the %s formula at bandwidth %s gives the library weights', (kernel, h) => {
    const { xTrain, yTrain, xTest } = poolingData(42);
    const got = lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel, bandwidth: h });
    const bandwidth = Math.fround(h);
    const { value } = KERNEL_FORMULAS[kernel];
    const want = Array.from(xTest).flatMap((x) => {
      const k = Array.from(xTrain, (xi) => value((x - xi) / bandwidth));
      const sum = k.reduce((a, b) => a + b, 0);
      // The Gaussian's weights underflow alone at a small bandwidth: the library's softmax keeps them (next test).
      return sum > 0 ? k.map((v) => v / sum) : k.map(() => (kernel === 'gaussian' ? NaN : 0));
    });
    const finite = want.map((v, i) => (Number.isNaN(v) ? got.weights.data[i] : v));
    expectClose(got.weights.data, finite, { label: `${kernel} h=${h}` });
    // A wrong formula shows: ¾(1 − u²) against the triangle 1 − |u| of D2L-en's figure.
    if (kernel === 'epanechnikov' && h === 1) {
      const triangle = Array.from(xTest).flatMap((x) => {
        const k = Array.from(xTrain, (xi) => Math.max(0, 1 - Math.abs((x - xi) / bandwidth)));
        const s = k.reduce((a, b) => a + b, 0);
        return k.map((v) => v / s);
      });
      expect(Math.max(...triangle.map((v, i) => Math.abs(v - got.weights.data[i])))).toBeGreaterThan(1e-3);
    }
  });

  it('the Gaussian weights are the softmax of −½((x − x_i)/h)², as the formula writes them', () => {
    const { xTrain, yTrain, xTest } = poolingData(7);
    for (const h of [0.05, 0.5, 2]) {
      const scores = Array.from(xTest, (x) => Array.from(xTrain, (xi) => -0.5 * ((x - xi) / Math.fround(h)) ** 2));
      const got = lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel: 'gaussian', bandwidth: h });
      expectClose(got.weights.data, lab.softmax(scores).data, { label: `h=${h}` });
    }
    expect(formulaTex('gaussian', 50)).toContain(String.raw`\operatorname{softmax}_i\Big(-\tfrac{1}{2}\big(\tfrac{x - x_i}{h}\big)^2\Big)`);
  });

  it('each formula names its kernel and the constant kernel its 1/m', () => {
    for (const kernel of KERNELS) expect(formulaTex(kernel, 50)).toContain(KERNEL_FORMULAS[kernel].tex);
    expect(formulaTex('constant', 50)).toContain(String.raw`\frac{1}{50}`);
    expect(KERNEL_FORMULAS.epanechnikov.tex).toContain(String.raw`\tfrac{3}{4}\,(1 - u^2)`);
  });

  it.each([
    ['boxcar', 0.05],
    ['epanechnikov', 0.05],
    ['boxcar', 0.1],
    ['epanechnikov', 0.12],
    ['gaussian', 0.05],
    ['constant', 0.05],
  ])('the %s kernel at %s: the empty rows counted are the reference’s all-zero rows', (kernel, h) => {
    const { xTrain, yTrain, xTest } = poolingData(42);
    const got = lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel, bandwidth: h });
    const ref = R.nadarayaWatson(xTrain, yTrain, xTest, { kernel, bandwidth: Math.fround(h) });
    const want = ref.weights.flatMap((row, i) => (row.every((w) => w === 0) ? [i] : []));
    expect(emptyRows(got.weights)).toEqual(want);
    if (kernel === 'boxcar' && h === 0.05) expect(want.length).toBeGreaterThan(10);
    // Every other row is a distribution: weights ≥ 0 summing to 1.
    for (let i = 0; i < 50; i++) {
      const { min, sum } = rowStats(got.weights, i);
      expect(min).toBeGreaterThanOrEqual(0);
      expect(Math.abs(sum - (want.includes(i) ? 0 : 1))).toBeLessThan(1e-5);
    }
  });

  it('the prediction path leaves out the queries with no key, and draws a lone query as a dot', () => {
    const { xTrain, yTrain, xTest } = poolingData(42);
    const got = lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel: 'boxcar', bandwidth: 0.05 });
    const empty = emptyRows(got.weights);
    const d = predictionPath(xTest, got.predictions, empty, (x) => x * 100, (y) => y * 10);
    const xs = [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => Number(m[1]));
    const drawn = [...new Set(xs.map((x) => Math.round(x)))];
    expect(drawn).toEqual(Array.from(xTest, (x, k) => [x, k]).filter(([, k]) => !empty.includes(k)).map(([x]) => Math.round(x * 100)));
    // One subpath per run of queries with a prediction.
    const runs = Array.from(xTest, (_, k) => !empty.includes(k) && (k === 0 || empty.includes(k - 1))).filter(Boolean).length;
    expect((d.match(/M/g) ?? []).length).toBe(runs);
    expect(predictionPath([0, 1, 2], [5, 6, 7], [0, 2], (x) => x, (y) => y)).toBe('M1.0,6.0L1.0,6.0');
  });

  it('the cues section: identity rows and the softmax of the seeded random matrix are distributions', () => {
    const eye = identityWeights(10);
    for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) expect(eye.data[i * 10 + j]).toBe(i === j ? 1 : 0);
    const scores = cueScores(42);
    expect(Array.from(scores.data).every((v) => v >= 0 && v < 1)).toBe(true);
    expect(Array.from(cueScores(42).data)).toEqual(Array.from(scores.data));
    expect(Array.from(cueScores(43).data)).not.toEqual(Array.from(scores.data));
    const A = lab.softmax(scores);
    for (let i = 0; i < 10; i++) expect(Math.abs(rowStats(A, i).sum - 1)).toBeLessThan(1e-6);
  });
});
