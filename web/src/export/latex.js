// A heatmap for a paper or a blog post, as LaTeX an author pastes: the values as a table (row
// and column labels escaped, masked cells as "--" with a note), or a figure environment that
// includes the exported PNG with a caption. Plain LaTeX: the table needs no package, the
// figure only graphicx. No DOM here.
import { isMaskedValue } from '../format.js';
import { mathRuns } from '../math-text.js';

const SPECIALS = { '\\': '\\textbackslash{}', '{': '\\{', '}': '\\}', $: '\\$', '&': '\\&', '#': '\\#', '^': '\\textasciicircum{}', _: '\\_', '%': '\\%', '~': '\\textasciitilde{}' };

/** `text` with LaTeX's special characters escaped, so a token prints as it reads ("##ing", "50%", "a_b"). */
export const escapeLatex = (text) => String(text).replace(/[\\{}$&#^_%~]/g, (c) => SPECIALS[c]);

/** One of our titles ("Queries Q = XW_Q") in LaTeX text: escaped, its subscripts as \textsubscript. */
export function latexTitle(title) {
  return mathRuns(title)
    .map((r) => (r.sub ? `\\textsubscript{${escapeLatex(r.text)}}` : escapeLatex(r.text)))
    .join('')
    .replaceAll('√', '$\\surd$')
    .replaceAll('÷', '$\\div$')
    .replaceAll('ᵀ', '\\textsuperscript{T}')
    .replaceAll('·', '$\\cdot$');
}

/** A value as a table cell, in math mode (a true minus sign): four decimals, so a column lines up; ×10^ below 0.0001 and from 10,000 up. */
export function latexNumber(v) {
  if (isMaskedValue(v)) return '$-\\infty$';
  if (!Number.isFinite(v)) return escapeLatex(String(v));
  const size = Math.abs(v);
  if (size === 0 || (size >= 1e-4 && size < 1e4)) return `$${v.toFixed(4)}$`;
  const [mantissa, exponent] = v.toExponential(3).split('e');
  return `$${mantissa} \\times 10^{${Number(exponent)}}$`;
}

const needsUnicodeEngine = (texts) => texts.some((s) => /[^\x00-\x7f]/.test(s));

/** A `\label` key from a file name: letters, digits and dashes. */
const labelKey = (file) => `fig:${String(file).replace(/[^A-Za-z0-9-]+/g, '-')}`;

/**
 * The matrix as a table environment: a caption, a header row of column labels, one row per row
 * label, masked cells as "--" and a note saying what "--" means.
 * @param {object} o { title, matrix, rowLabels, colLabels, isMasked, file, words: { masked } }
 */
export function latexTable(o) {
  const { matrix, isMasked } = o;
  const lines = [];
  let anyMasked = false;
  for (let i = 0; i < matrix.rows; i++) {
    const row = [escapeLatex(o.rowLabels[i])];
    for (let j = 0; j < matrix.cols; j++) {
      const k = i * matrix.cols + j;
      if (isMasked(k)) anyMasked = true;
      row.push(isMasked(k) ? '--' : latexNumber(matrix.data[k]));
    }
    lines.push(`  ${row.join(' & ')} \\\\`);
  }
  const head = ['', ...o.colLabels.map(escapeLatex)].join(' & ');
  const caption = `${latexTitle(o.title)} (${matrix.rows}\\texttimes{}${matrix.cols})`;
  return [
    `% ${oneLine(o.title)}: ${matrix.rows}x${matrix.cols}, from attention-lab.`,
    ...(needsUnicodeEngine([...o.rowLabels, ...o.colLabels, o.title]) ? ['% Non-ASCII text: compile with XeLaTeX or LuaLaTeX (Chinese: \\usepackage{ctex}).'] : []),
    '\\begin{table}[ht]',
    '  \\centering',
    `  \\caption{${caption}}`,
    `  \\label{${labelKey(`${o.file}-table`).replace('fig:', 'tab:')}}`,
    `  \\begin{tabular}{l|${'r'.repeat(matrix.cols)}}`,
    `  ${head} \\\\`,
    '  \\hline',
    ...lines,
    '  \\end{tabular}',
    ...(anyMasked ? [`  \\par\\smallskip\\footnotesize -- : ${escapeLatex(o.words.masked)}`] : []),
    '\\end{table}',
    '',
  ].join('\n');
}

/**
 * A figure environment that includes the exported PNG (saved as `<file>.png` next to the .tex)
 * with a caption naming the matrix and its shape, and saying that hatched cells are masked.
 * @param {object} o { title, matrix, file, anyMasked, words: { hatched } }
 */
export function latexFigure(o) {
  const { rows, cols } = o.matrix;
  const caption = `${latexTitle(o.title)} (${rows}\\texttimes{}${cols})${o.anyMasked ? `. ${escapeLatex(o.words.hatched)}` : ''}`;
  return [
    `% ${oneLine(o.title)}: save the heatmap's PNG export as ${o.file}.png next to this file.`,
    '% Needs \\usepackage{graphicx} in the preamble.',
    ...(needsUnicodeEngine([o.title, o.words.hatched]) ? ['% Non-ASCII text: compile with XeLaTeX or LuaLaTeX (Chinese: \\usepackage{ctex}).'] : []),
    '\\begin{figure}[ht]',
    '  \\centering',
    `  \\includegraphics[width=\\linewidth]{${o.file}.png}`,
    `  \\caption{${caption}}`,
    `  \\label{${labelKey(o.file)}}`,
    '\\end{figure}',
    '',
  ].join('\n');
}

const oneLine = (s) => String(s).replace(/\s+/g, ' ');
