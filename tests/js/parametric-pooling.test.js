// Parametric attention pooling (D2L 10.2.4) on both builds: the loss curve and
// the fitted w against a float64 gradient descent written here, the gradient
// of one step against central finite differences of the reference loss, and
// predictions through nadarayaWatson with bandwidth 1/w.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, loadLab, rng } from './helpers.js';

// Leave-one-out loss ½ Σ_i (Σ_{j≠i} softmax_j(−((x_i − x_j) w)²/2) y_j − y_i)², from the definition.
function loss(x, y, w) {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    let num = 0;
    let den = 0;
    for (let j = 0; j < x.length; j++) {
      if (j === i) continue;
      const k = Math.exp(-(((x[i] - x[j]) * w) ** 2) / 2);
      num += k * y[j];
      den += k;
    }
    total += (num / den - y[i]) ** 2 / 2;
  }
  return total;
}
// The limit w → ±∞: each point predicted by the mean y of its nearest other points.
function nearestNeighbourLoss(x, y) {
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const d = x.map((v, j) => (j === i ? Infinity : (v - x[i]) ** 2));
    const near = Math.min(...d);
    const ys = y.filter((_, j) => d[j] === near);
    total += (ys.reduce((a, b) => a + b, 0) / ys.length - y[i]) ** 2 / 2;
  }
  return total;
}
const gradient = (x, y, w, h = 1e-6) => (loss(x, y, w + h) - loss(x, y, w - h)) / (2 * h);

function data(seed, m) {
  const rand = rng(seed);
  const x = Float32Array.from({ length: m }, () => 5 * rand()).sort();
  const y = x.map((v) => 2 * Math.sin(v) + v ** 0.8 + (rand() - 0.5));
  return { x, y };
}

describe.each(BUILDS)('fitParametricPooling ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([
    [2, 0.5, 0.5, 3], [5, 1, 0.1, 4], [50, 0.5, 0.5, 5], [50, 0.2, 0.05, 20], [17, -1.5, 0.1, 6],
  ])('%i points from w=%f, rate %f, %i epochs: losses and w match a float64 descent', (m, w0, learningRate, epochs) => {
    const { x, y } = data(m, m);
    const fit = lab.fitParametricPooling(x, y, { w: w0, learningRate, epochs });
    let w = w0;
    const want = [];
    for (let e = 0; e < epochs; e++) {
      want.push(loss(x, y, w));
      w -= learningRate * gradient(x, y, w);
    }
    expect(fit.losses).toBeInstanceOf(Float32Array);
    expect(fit.losses).toHaveLength(epochs);
    fit.losses.forEach((l, e) => expect(Math.abs(l - want[e]), `epoch ${e}`).toBeLessThan(1e-5 * (1 + want[e])));
    expect(Math.abs(fit.w - w)).toBeLessThan(1e-5 * (1 + Math.abs(w)));
    expect(fit.bandwidth).toBeCloseTo(1 / Math.abs(fit.w), 12);
  });

  it('one step moves w by the learning rate times the finite-difference gradient', () => {
    const { x, y } = data(3, 30);
    for (const w0 of [0.3, 1, 2.5]) {
      const fit = lab.fitParametricPooling(x, y, { w: w0, learningRate: 1, epochs: 1 });
      const g = gradient(x, y, w0);
      expect(Math.abs(w0 - fit.w - g), `w0=${w0}`).toBeLessThan(1e-5 * (1 + Math.abs(g)));
    }
  });

  it('lowers the loss on D2L data and sharpens the weights', () => {
    const { x, y } = data(2026, 50);
    const fit = lab.fitParametricPooling(x, y, { w: 0.5, learningRate: 0.1, epochs: 30 });
    for (let e = 1; e < fit.losses.length; e++) expect(fit.losses[e]).toBeLessThanOrEqual(fit.losses[e - 1] * (1 + 1e-6));
    expect(fit.losses.at(-1)).toBeLessThan(0.5 * fit.losses[0]);
    expect(fit.w).toBeGreaterThan(0.5);
    const before = lab.nadarayaWatson(x, y, [2.5], { bandwidth: 2 }).weights.data;
    const after = lab.nadarayaWatson(x, y, [2.5], { bandwidth: fit.bandwidth }).weights.data;
    expect(Math.max(...after)).toBeGreaterThan(Math.max(...before));
  });

  it('keeps w with zero epochs, and w = 0 is a stationary point (plain average)', () => {
    const { x, y } = data(4, 10);
    expect(lab.fitParametricPooling(x, y, { w: 1.25, epochs: 0 })).toMatchObject({ w: 1.25, losses: new Float32Array(0) });
    const flat = lab.fitParametricPooling(x, y, { w: 0, epochs: 3 });
    expect(flat.w).toBe(0);
    expect(flat.bandwidth).toBe(Infinity);
  });

  it('a step that throws w far out gives the nearest-neighbour loss, finite, not NaN (found by fuzzing)', () => {
    // A learning rate of 121 on these points took w to about −1.4e7 in one step, and the loss was NaN.
    const x = [120.96875, 120.96875, 120.71875, 120.96875, 120.96875, 120.96875, -121.03125, 121.96875, 120.96875, 120.99609375];
    const y = [119, 124.96484375, 124.9140625, 123.984375, -128, -128, -128, -128, -128, -128];
    const fit = lab.fitParametricPooling(x, y, { w: 0.25, learningRate: 120.96875, epochs: 3 });
    expect(Math.abs(fit.w)).toBeGreaterThan(1e3);
    const near = nearestNeighbourLoss(x, y);
    for (const l of fit.losses.slice(1)) expect(l).toBeCloseTo(near, 1);
  });
});
