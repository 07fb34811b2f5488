// The long-sequences panel's comparison table (web/src/components/cost/compare-table.js) in Node:
// the numbers filled in beside each O(·) equal counts made here from first principles, not from
// the panel's formulas: query–key pairs of the window |i − j| < w (src/local_attention.h) counted
// one by one, and path lengths found by spreading one token's information layer by layer.
import { describe, expect, it } from 'vitest';

import { CONV_K, complexityRows, layersToCover, windowPairs } from '../../web/src/components/cost/compare-table.js';

/** Pairs (i, j) of n tokens with |i − j| < w, counted one by one. */
function countPairs(n, w) {
  let pairs = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (Math.abs(i - j) < w) pairs++;
  return pairs;
}

/** Layers until token 0's information reaches token n − 1, when a layer lets i read every j with |i − j| <= reach; Infinity if it never does. */
function spreadLayers(n, reach) {
  let known = new Set([0]);
  for (let layer = 0; ; layer++) {
    if (known.has(n - 1)) return layer;
    const next = new Set(known);
    for (let i = 0; i < n; i++) for (const j of known) if (Math.abs(i - j) <= reach) next.add(i);
    if (next.size === known.size) return Infinity;
    known = next;
  }
}

const table = (n, d, w) => Object.fromEntries(complexityRows(n, d, w).map(([key, ...cells]) => [key, cells.map(([, value]) => (value === '∞' ? Infinity : Number(value.replaceAll(',', ''))))]));

describe('the comparison table', () => {
  const cases = [];
  for (const n of [1, 2, 6, 9, 40]) for (const w of [1, 2, 3, 5, 32]) for (const d of [4, 8]) cases.push([n, w, d]);

  it.each(cases)('n = %i, w = %i, d = %i: every filled-in number equals an independent count', (n, w, d) => {
    const rows = table(n, d, w);
    expect(rows.localRow[0], 'local: window pairs × d').toBe(countPairs(n, w) * d);
    expect(rows.localRow[2], 'local: layers to reach the last token').toBe(spreadLayers(n, w - 1));
    expect(rows.cnn[0]).toBe(CONV_K * n * d * d);
    expect(rows.cnn[2], 'CNN: a centred kernel reaches (k − 1)/2 each way').toBe(spreadLayers(n, (CONV_K - 1) / 2));
    expect(rows.rnn[1], 'RNN: one state update per token').toBe(n);
    expect(rows.rnn[2], 'RNN: one position per step').toBe(spreadLayers(n, 1));
    expect(rows.self[0]).toBe(n * n * d);
    expect(rows.self[2], 'self-attention: one layer reaches every token').toBe(spreadLayers(n, n));
    expect(rows.linearRow[2], 'linear attention drops no pair: one layer').toBe(spreadLayers(n, n));
    expect(windowPairs(n, w)).toBe(countPairs(n, w));
  });

  it('with w = 1 a token sees only itself: the local path is ∞ (shown as ∞), and 2w − 1 keys per query inside the sequence', () => {
    const rows = complexityRows(6, 8, 1);
    expect(rows.find(([key]) => key === 'localRow')[3]).toEqual(['O(n/w)', '∞']);
    expect(rows.find(([key]) => key === 'localRow')[1]).toEqual(['O(n·w·d)', String(6 * 8)]);
    // away from the ends a query sees 2w − 1 keys: for n = 40, w = 3 the ends lose w(w − 1) = 6 pairs
    expect(windowPairs(40, 3)).toBe(40 * 5 - 6);
    expect(layersToCover(5, 0)).toBe(Infinity);
    expect(layersToCover(0, 0)).toBe(0);
  });
});
