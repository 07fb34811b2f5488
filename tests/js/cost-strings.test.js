// What the long-sequences panel says, checked against the library and in both languages: linear
// attention's formula is the one the library computes (normaliser included, no 1/√d_k) and is
// never called an approximation of softmax; the causal note, the chart titles and the formulas
// carry none of the wording since corrected (只向前看, "…与 n", \text{vs}); every online-softmax
// string exists in both languages.
import { beforeAll, describe, expect, it } from 'vitest';

import { FORMULAS, RECURRENCE } from '../../web/src/components/cost/formulas.js';
import strings from '../../web/src/strings/cost.js';
import { loadLab, randomMatrix, rng } from './helpers.js';

const { en, 'zh-CN': zh } = strings;
const elu1 = (x) => (x > 0 ? x + 1 : Math.exp(x));

/** o_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_j φ(k_j), with q scaled by `scale` first, in float64. */
function linearRow(Q, K, V, i, scale) {
  const d = Q.cols;
  const phiQ = Array.from(Q.data.subarray(i * d, (i + 1) * d), (x) => elu1(x * scale));
  const out = new Array(V.cols).fill(0);
  let den = 0;
  for (let j = 0; j < K.rows; j++) {
    const w = phiQ.reduce((s, p, t) => s + p * elu1(K.data[j * d + t]), 0);
    den += w;
    for (let c = 0; c < V.cols; c++) out[c] += w * V.data[j * V.cols + c];
  }
  return out.map((x) => x / den);
}

describe('the long-sequences panel strings', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('linear attention: the formula shown is the library’s, with its normaliser and without 1/√d_k', async () => {
    const [, linear] = FORMULAS.find(([key]) => key === 'cost.formulaLinear');
    expect(linear).toContain(String.raw`\phi(q_i)^{\top}\textstyle\sum_j \phi(k_j)}`); // the denominator
    expect(linear).not.toContain('sqrt');
    const rand = rng(12);
    const [Q, K, V] = [randomMatrix(rand, 5, 4, -2, 2), randomMatrix(rand, 5, 4, -2, 2), randomMatrix(rand, 5, 3)];
    const out = lab.linearAttention(Q, K, V).output;
    for (let i = 0; i < 5; i++) {
      const plain = linearRow(Q, K, V, i, 1);
      const scaled = linearRow(Q, K, V, i, 1 / Math.sqrt(4));
      for (let c = 0; c < 3; c++) expect(Math.abs(out.data[i * 3 + c] - plain[c])).toBeLessThan(1e-5);
      expect(Math.max(...plain.map((x, c) => Math.abs(x - scaled[c])))).toBeGreaterThan(1e-3);
    }
    for (const table of [en, zh]) expect(table['cost.formulaLinear']).toMatch(/√d_k/);
  });

  it('linear attention is a different kernel, not an approximation of softmax, and drops no pair (both languages)', () => {
    for (const key of ['cost.linearCost', 'cost.linearText', 'cost.intro']) {
      expect(en[key], key).not.toMatch(/they approximate softmax|give up some of that comparison/);
      expect(zh[key], key).not.toMatch(/它们近似 softmax|放弃一部分比较/);
    }
    expect(en['cost.linearCost']).toMatch(/not softmax weights, nor an approximation of them/);
    expect(en['cost.linearCost']).toMatch(/Performer/);
    expect(en['cost.linearCost']).toMatch(/No query–key pair is dropped/);
    expect(zh['cost.linearCost']).toMatch(/不是 softmax 权重，也不是其近似/);
    expect(zh['cost.linearCost']).toMatch(/没有丢掉任何查询–键对/);
    expect(en['cost.linearText']).toMatch(/φ\(qᵢ\)·Σⱼ φ\(kⱼ\)/);
    expect(zh['cost.linearText']).toMatch(/φ\(qᵢ\)·Σⱼ φ\(kⱼ\)/);
  });

  it('local attention is set apart from the CNN: alike in paths, not in cost; ∞ at w = 1 (both languages)', () => {
    for (const table of [en, zh]) {
      expect(table['cost.compareNote']).not.toMatch(/CNN’s cost|代价与卷积神经网络相同/);
      expect(table['cost.localVsCnn']).toMatch(/O\(n·w·d\).*O\(k·n·d²\)/);
      expect(table['cost.localVsCnn']).toMatch(/2w − 1/);
      expect(table['cost.localVsCnn']).toMatch(/∞/);
      expect(table['cost.localVsCnn']).toMatch(/n\/w/);
    }
  });

  it('Chinese wording: the causal note, the chart titles, no English word in a formula', () => {
    expect(zh['cost.causalNote']).toContain('只看当前及之前的词元');
    for (const [key, text] of Object.entries(zh)) {
      expect(text, key).not.toContain('只向前看');
      expect(text, key).not.toMatch(/与 n$/);
    }
    expect(zh['cost.timeChart']).toMatch(/随 n 的变化$/);
    expect(zh['cost.memoryChart']).toMatch(/随 n 的变化$/);
    for (const tex of [...FORMULAS.map(([, tex]) => tex), RECURRENCE]) expect(tex).not.toMatch(/\\text\{/);
  });

  it('the online-softmax section has all its strings in both languages, with the same placeholders', () => {
    const keys = Object.keys(en).filter((k) => k.startsWith('cost.online'));
    expect(keys.length).toBeGreaterThanOrEqual(16);
    const holes = (s) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of keys) expect(holes(zh[key]), key).toEqual(holes(en[key]));
  });
});
