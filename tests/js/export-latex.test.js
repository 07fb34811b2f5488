// The LaTeX an author copies from a heatmap (web/src/export/latex.js): every special character of
// a token escaped (read back, the text is the token), the table holding the library's numbers
// with masked cells as "--" exactly where the mask hides a key, and the figure snippet including
// the exported PNG with a caption that says what hatched cells are.
import { beforeAll, describe, expect, it } from 'vitest';

import { MASKED } from '../../web/src/format.js';
import { escapeLatex, latexFigure, latexNumber, latexTable, latexTitle } from '../../web/src/export/latex.js';
import { loadLab, randomMatrix, rng } from './helpers.js';

// An independent reader of the escapes LaTeX text mode understands, for the round trip.
const READ = [
  ['\\textbackslash{}', '\\'],
  ['\\textasciicircum{}', '^'],
  ['\\textasciitilde{}', '~'],
  ...'{}$&#_%'.split('').map((c) => [`\\${c}`, c]),
];
function readLatex(text) {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const hit = READ.find(([code]) => text.startsWith(code, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
      continue;
    }
    if ('\\{}$&#^_%~'.includes(text[i])) throw new Error(`unescaped ${text[i]} at ${i} in ${text}`);
    out += text[i++];
  }
  return out;
}

describe('escapeLatex', () => {
  it('escapes every special character so a token reads back as itself', () => {
    const tokens = ['##ing', '50%', 'a_b', '$x$', 'R&D', '{x}', '\\relax', '^~', '▁the', '注意力'];
    for (const token of tokens) expect(readLatex(escapeLatex(token))).toBe(token);
    let ascii = '';
    for (let c = 32; c < 127; c++) ascii += String.fromCharCode(c);
    expect(readLatex(escapeLatex(ascii))).toBe(ascii);
  });
  it('writes a backslash as \\textbackslash{} (not \\\\, a line break)', () => {
    expect(escapeLatex('a\\b')).toBe('a\\textbackslash{}b');
  });
});

describe('latexNumber and latexTitle', () => {
  it('four decimals in math mode, exponents as ×10^ below 0.0001 and from 10,000 up, the masked stand-in as −∞', () => {
    expect(latexNumber(-0.123456)).toBe('$-0.1235$');
    expect(latexNumber(0.5)).toBe('$0.5000$');
    expect(latexNumber(1)).toBe('$1.0000$');
    expect(latexNumber(0)).toBe('$0.0000$');
    expect(latexNumber(12345.6)).toBe('$1.235 \\times 10^{4}$');
    expect(latexNumber(0.00001234)).toBe('$1.234 \\times 10^{-5}$');
    expect(latexNumber(MASKED)).toBe('$-\\infty$');
  });
  it('typesets our titles: subscripts, √, ÷, ᵀ', () => {
    expect(latexTitle('Queries Q = XW_Q')).toBe('Queries Q = XW\\textsubscript{Q}');
    expect(latexTitle('Scaled scores ÷ √d_k')).toBe('Scaled scores $\\div$ $\\surd$d\\textsubscript{k}');
    expect(latexTitle('Scores QKᵀ')).toBe('Scores QK\\textsuperscript{T}');
  });
});

describe('latexTable', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('holds the library’s causal weights, "--" where the mask hides a key, labels escaped', () => {
    const rand = rng(7);
    const [Q, K, V] = [0, 1, 2].map(() => randomMatrix(rand, 4, 3));
    const { weights } = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
    const labels = ['##ing', '50%', 'a_b', '{x}'];
    const text = latexTable({ title: 'Attention weights (softmax)', matrix: weights, rowLabels: labels, colLabels: labels, isMasked: (k) => k % 4 > Math.floor(k / 4), file: 'attention-weights', words: { masked: 'masked' } });
    const lines = text.split('\n');
    const header = lines.findIndex((l) => l.includes('\\begin{tabular}'));
    expect(lines[header]).toContain('{l|rrrr}');
    expect(lines[header + 1].trim()).toBe(` & ${labels.map(escapeLatex).join(' & ')} \\\\`.trim());
    const rows = lines.slice(header + 3, header + 7).map((l) => l.trim().replace(/ \\\\$/, '').split(' & '));
    rows.forEach((cells, i) => {
      expect(readLatex(cells[0])).toBe(labels[i]);
      cells.slice(1).forEach((cell, j) => {
        if (j > i) return expect(cell).toBe('--');
        const v = weights.data[i * 4 + j];
        expect(Number(cell.replaceAll('$', ''))).toBeCloseTo(v, 3);
      });
    });
    expect(text).toContain('\\par\\smallskip\\footnotesize -- : masked');
    expect(text).toContain('\\caption{Attention weights (softmax) (4\\texttimes{}4)}');
    expect(text).toMatch(/\\end\{tabular\}\n.*\n\\end\{table\}/);
  });

  it('has no "--" note without masked cells, and a XeLaTeX hint for Chinese labels', () => {
    const m = { rows: 1, cols: 2, data: Float32Array.of(0.25, -1.5) };
    const text = latexTable({ title: '查询 Q = XW_Q', matrix: m, rowLabels: ['注意力'], colLabels: ['0', '1'], isMasked: () => false, file: 'attention-Q', words: { masked: '已掩蔽' } });
    expect(text).not.toContain('--');
    expect(text).toContain('XeLaTeX');
    expect(text).toContain('注意力 & $0.2500$ & $-1.5000$ \\\\');
  });
});

describe('latexFigure', () => {
  it('includes the PNG export by its file name, with the title, shape and what hatched means', () => {
    const m = { rows: 3, cols: 3, data: new Float32Array(9) };
    const text = latexFigure({ title: 'Queries Q = XW_Q', matrix: m, file: 'attention-Q', anyMasked: true, words: { hatched: 'Hatched cells are masked.' } });
    expect(text).toContain('\\includegraphics[width=\\linewidth]{attention-Q.png}');
    expect(text).toContain('\\caption{Queries Q = XW\\textsubscript{Q} (3\\texttimes{}3). Hatched cells are masked.}');
    expect(text).toContain('\\label{fig:attention-Q}');
    expect(text).toContain('\\usepackage{graphicx}');
    const plain = latexFigure({ title: 'Keys', matrix: m, file: 'attention-K', anyMasked: false, words: { hatched: 'Hatched cells are masked.' } });
    expect(plain).not.toContain('Hatched');
  });
});
