// The long-sequences panel's note on attention beyond text (web/src/components/cost/compare-table.js):
// a 224×224 image in 16×16 patches is 196 tokens, self-attention over them O(n²·d), and the note's
// numbers are the ones computed, in both languages.
import { describe, expect, it } from 'vitest';
import { VIT, vitCost, vitNumbers } from '../../web/src/components/cost/compare-table.js';
import cost from '../../web/src/strings/cost.js';

describe('ViT: patches as tokens', () => {
  it('224×224 in 16×16 patches: 196 tokens, 196² pairs, 196²·768 multiply-adds for QKᵀ', () => {
    expect(VIT).toEqual({ side: 224, patch: 16, d: 768 });
    expect(vitCost(224, 16, 768)).toEqual({ n: 196, pairs: 38416, macs: 29503488 });
    const v = vitNumbers();
    expect(v).toMatchObject({ p: 16, s: 224, n: 196, d: 768, s2: 448, n2: 784, ratio: 16 });
    expect(v.pairs.replace(/\D/g, '')).toBe('38416');
    expect(v.macs.replace(/\D/g, '')).toBe('29503488');
  });

  it.each(['en', 'zh-CN'])('%s: the note fills in every number and states O(n²·d)', (lang) => {
    const text = cost[lang]['cost.vit'];
    for (const name of ['{p}', '{s}', '{n}', '{pairs}', '{d}', '{macs}', '{s2}', '{n2}', '{ratio}']) expect(text, name).toContain(name);
    expect(text).toContain('O(n²·d)');
    expect(text).not.toMatch(/196|224/);
  });
});
