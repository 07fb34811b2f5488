// Our names' small notation (web/src/math-text.js): "XW_Q" is W with a subscript Q for the step
// tabs, the figure titles and LaTeX captions, spoken as "X W sub Q"; and a library formula's
// \text{ where } in the reader's language (localTex in web/src/format.js).
import { describe, expect, it } from 'vitest';

import { localTex } from '../../web/src/format.js';
import { mathRuns, spokenMath } from '../../web/src/math-text.js';
import steps from '../../web/src/strings/steps.js';

const sub = (base, s) => `${base} sub ${s}`;

describe('mathRuns', () => {
  it('splits subscripts: one letter, a word, or braces', () => {
    expect(mathRuns('Queries Q = XW_Q')).toEqual([{ text: 'Queries Q = XW' }, { text: 'Q', sub: true }]);
    expect(mathRuns('÷ √d_k')).toEqual([{ text: '÷ √d' }, { text: 'k', sub: true }]);
    expect(mathRuns('d_model = 8')).toEqual([{ text: 'd' }, { text: 'model', sub: true }, { text: ' = 8' }]);
    expect(mathRuns('H_{ff}')).toEqual([{ text: 'H' }, { text: 'ff', sub: true }]);
    expect(mathRuns('Scores QKᵀ')).toEqual([{ text: 'Scores QKᵀ' }]);
    expect(mathRuns('')).toEqual([{ text: '' }]);
  });
});

describe('spokenMath', () => {
  it('says each subscript with its base letter set apart', () => {
    expect(spokenMath('2. Queries Q = XW_Q', sub)).toBe('2. Queries Q = X W sub Q');
    expect(spokenMath('6. Scaled scores ÷ √d_k', sub)).toBe('6. Scaled scores ÷ √d sub k');
    expect(spokenMath('W_O', sub)).toBe('W sub O');
  });
  it('every step tab title with a subscript is spoken without "_" in both languages', () => {
    for (const lang of ['en', 'zh-CN']) {
      const table = steps[lang];
      const say = (b, s) => table['steps.subscript'].replace('{base}', b).replace('{sub}', s);
      for (const [key, text] of Object.entries(table)) {
        if (!key.startsWith('step.') || !text.includes('_')) continue;
        expect(spokenMath(text, say)).not.toContain('_');
      }
    }
  });
});

describe('localTex', () => {
  const formula = "S'_{ij} = -\\infty \\text{ where } M_{ij} = 0";
  it('translates the masked step’s "where" in Chinese and keeps the rest of the formula', () => {
    const zh = localTex(formula, { ' where ': steps['zh-CN']['steps.texWhere'] });
    expect(zh).not.toContain('where');
    expect(zh).toBe("S'_{ij} = -\\infty \\text{，若 } M_{ij} = 0");
    expect(localTex(formula, { ' where ': steps.en['steps.texWhere'] })).toBe(formula);
  });
  it('leaves \\text{…} it has no word for alone', () => {
    expect(localTex('d_{\\text{model}}', { ' where ': '若' })).toBe('d_{\\text{model}}');
  });
});
