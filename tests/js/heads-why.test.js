// The heads panel's "what to look for" note against the shipped grammar model: on the sentence it
// names (the trained view's default), in layer 1 head 2 looks one token back and head 4 rests on
// <bos> more often than the other heads, and in layer 2 the row of the last "the" puts almost all its
// weight on "they" in head 1 and on "cats" in head 2, as the note says.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GRAMMAR } from '../../web/src/components/steps/trained-grammar.js';
import { layerInput } from '../../web/src/trained/grammar-stream.js';
import heads from '../../web/src/strings/heads.js';
import { loadTrainingLab } from './helpers.js';

let lab;
let model;
beforeAll(async () => {
  lab = await loadTrainingLab(true);
  model = await lab.loadTrained('grammar');
});

/** Layer `layer`'s weights on the sentence, as the heads panel computes them: [head] rows × n, and the tokens. */
function weightsOf(layer) {
  const { X, Wq, Wk, Wv, Wo, ids } = layerInput(lab, model, DEFAULT_GRAMMAR.en, layer);
  const r = lab.multiHeadAttention(X, { heads: model.config.heads, Wq, Wk, Wv, Wo, mask: 'causal', trace: true });
  const n = ids.length;
  const weights = r.heads.map((head) => {
    const step = head.steps.find((s) => s.id === 'weights');
    return Array.from({ length: n }, (_, i) => Array.from(step.matrix.data.slice(i * n, (i + 1) * n)));
  });
  return { weights, tokens: ids.map((id) => lab.tasks.grammar.vocabulary[id]) };
}

const argmax = (row) => row.indexOf(Math.max(...row));

describe('heads.look', () => {
  it('layer 1: head 2 looks one token back more often than any other head (“dog” → “the”, “they” → “.”), head 4 rests on <bos> more often', () => {
    const { weights, tokens } = weightsOf(0);
    const count = (head, pick) => weights[head].slice(1).filter((row, k) => argmax(row) === pick(k + 1)).length;
    const back = weights.map((_, h) => count(h, (i) => i - 1));
    const bos = weights.map((_, h) => count(h, () => 0));
    expect(back.indexOf(Math.max(...back))).toBe(1);
    expect(back.filter((c) => c === Math.max(...back))).toHaveLength(1);
    expect(bos.indexOf(Math.max(...bos))).toBe(3);
    expect(bos.filter((c) => c === Math.max(...bos))).toHaveLength(1);
    for (const [from, to] of [['dog', 'the'], ['they', '.']]) expect(tokens[argmax(weights[1][tokens.indexOf(from)])], from).toBe(to);
  });

  it('layer 2: the last “the” looks at “they” in head 1 and at “cats” in head 2', () => {
    const { weights, tokens } = weightsOf(1);
    expect(tokens.at(-1)).toBe('the');
    const last = tokens.length - 1;
    expect(tokens[argmax(weights[0][last])]).toBe('they');
    expect(weights[0][last][argmax(weights[0][last])]).toBeGreaterThan(0.8);
    expect(tokens[argmax(weights[1][last])]).toBe('cats');
    expect(weights[1][last][argmax(weights[1][last])]).toBeGreaterThan(0.8);
  });

  it.each(['en', 'zh-CN'])('%s: the note names the sentence, head 1 → “they”, head 2 → “cats”', (lang) => {
    const text = heads[lang]['heads.look'];
    expect(text).toContain('{sentence}');
    expect(text).toMatch(lang === 'en' ? /“they” in head 1 and on “cats” in head 2/ : /第 1 个头.*“they”.*第 2 个头.*“cats”/);
    expect(heads[lang]['heads.why']).toMatch(/10\.5/);
  });
});
