// How one number of a heatmap was made, written out (cell-arithmetic.js computes it): a score's
// dot product term by term, its division by √d_k, a weight's softmax over its row, an output's
// weighted sum. Shared by the steps, heads and cross-attention panels through createHeatmap's
// `arithmetic` option; shown beside the readout in a polite live region, so the pointer, a tap and
// the arrow keys all show it. Every number is the library's, or (said so) the page's own sum of them.
import { el } from '../dom.js';
import { exact } from '../format.js';

/**
 * The symbols of each step: the cell's (`value`), its two factors' (`a`, `b`: written a_{i,k}, b_{k,j};
 * `byRow`: b_{j,k}, a key's row), the index summed over (`index`), the operands named (`from`), the
 * softmax's input (`x`).
 */
export const SYMBOLS = {
  scores: { value: 's', a: 'q', b: 'k', byRow: true, index: 'c', from: 'Q, K' },
  scaled: { value: 's′', score: 's', from: 'S' },
  weights: { value: 'a', x: 's′', from: 'S′' },
  output: { value: 'o', a: 'a', b: 'v', index: 'k', from: 'A, V' },
  product: { value: 'c', a: 'a', b: 'b', index: 'k', from: 'A, B' },
};

// A term or an exponential wraps as a whole where the line allows (within itself only when wider than the line).
const UNIT = 'display: inline-block';
const num = (v) => el('span', { class: 'num', text: exact(v) });
// The page's own float64 result, read as the float32 nearest to it (format.js writes float32 numbers).
const own = (v) => el('span', { class: 'num own', 'data-computed': String(v), text: exact(Math.fround(v)) });
/** A factor, in parentheses when negative: 0.3×(−0.5). */
const factor = (v) => (v < 0 ? ['(', num(v), ')'] : [num(v)]);
/** Units with a space between them (where a line may break). */
const join = (units) => units.flatMap((u, k) => (k ? [' ', u] : [u]));
/** A symbol with its subscript: s₂,₃ as s<sub>2,3</sub>. */
const sym = (name, ...sub) => el('span', { class: 'sym' }, name, el('sub', { text: sub.join(',') }));

/**
 * The lines (each a <p>) of arithmetic `a` (cellArithmetic's result; null: none), in symbols `s`
 * (over SYMBOLS' row for its step; `a.symbols`, a cell's own, over both).
 */
export function arithmeticLines(t, a, s = {}) {
  if (!a) return [];
  const S = { ...SYMBOLS[a.step], ...s, ...a.symbols };
  const i = a.i + 1;
  const j = a.j + 1;
  const lines = { scores: dotLines, output: dotLines, product: dotLines, scaled: scaledLines, weights: weightLines }[a.step](t, a, S, i, j);
  const note = el('p', { class: 'page-note', text: t('heatmap.arith.page', { from: S.from }) });
  const check = el('p', { class: 'check', 'data-agrees': String(a.agrees) }, t('heatmap.arith.library'), ' ', sym(S.value, i, j), ' = ', el('span', { class: 'num', 'data-value': String(a.value), text: exact(a.value) }), ' ', el('strong', { text: t(a.agrees ? 'heatmap.arith.agrees' : 'heatmap.arith.differs') }));
  return [...lines, note, check].map((p, k) => {
    p.dataset.line = String(k);
    p.style.margin = '0.15rem 0';
    return p;
  });
}

/** c_ij = Σ_k a_ik × b_kj (a score: Σ_c q_ic × k_jc), term by term (the first 3, …, the last 2 of more than 6), = the page's sum. */
function dotLines(t, a, S, i, j) {
  const n = a.terms.length;
  const x = S.index;
  const bSym = (k) => (S.byRow ? sym(S.b, j, k) : sym(S.b, k, j));
  const head = el('p', { class: 'formula-line' }, sym(S.value, i, j), ' = ', ...(S.byRow ? [S.a, el('sub', { text: String(i) }), ' · ', S.b, el('sub', { text: String(j) }), ' = '] : []), `Σ`, el('sub', { text: `${x}=1…${n}` }), ' ', sym(S.a, i, x), ' × ', bSym(x));
  // Each term carries the + before it, so a line never starts with one alone.
  const terms = a.shown.map((k, at) => {
    const plus = at ? '+ ' : '';
    if (k === null) return el('span', { class: 'ellipsis', style: UNIT }, `${plus}…`);
    return el('span', { class: 'term', 'data-k': String(k), style: UNIT }, plus, ...factor(a.terms[k].a), '×', ...factor(a.terms[k].b));
  });
  const sum = el('p', { class: 'terms-line' }, '= ', ...join(terms), ' = ', own(a.computed));
  return [head, sum];
}

/** s′_ij = s_ij ÷ √d_k. */
function scaledLines(t, a, S, i, j) {
  return [el('p', { class: 'formula-line' }, sym(S.value, i, j), ' = ', sym(S.score, i, j), ' ÷ √d', el('sub', { text: 'k' }), ' = ', num(a.score), ` ÷ √${a.dk} = `, own(a.computed), ` (${t('heatmap.arith.dk', { dk: a.dk, root: exact(Math.fround(a.root)) })})`)];
}

/** a_ij = exp(x_ij − max) / Σ_k exp(x_ik − max): the row's exponentials, their sum, the division. */
function weightLines(t, a, S, i, j) {
  const head = el('p', { class: 'formula-line' }, sym(S.value, i, j), ' = exp(', sym(S.x, i, j), ' − max) / Σ', el('sub', { text: 'k' }), ' exp(', sym(S.x, i, 'k'), ' − max)');
  if (a.allMasked) return [head, el('p', { class: 'note-line' }, t('heatmap.arith.allMasked', { i }))];
  // Each exponential carries the comma after it, so a line never starts with one alone.
  const exps = a.shown.map((k, at) => {
    const comma = at < a.shown.length - 1 ? ',' : '';
    if (k === null) return el('span', { class: 'ellipsis', style: UNIT }, `…${comma}`);
    if (a.row[k].masked) return el('span', { class: 'exp masked', 'data-k': String(k), style: UNIT }, sym('e', k + 1), ` ${t('heatmap.masked')} → 0${comma}`);
    return el('span', { class: 'exp', 'data-k': String(k), style: UNIT }, sym('e', k + 1), ' = exp(', num(a.row[k].x), ' − ', num(a.max), ') = ', own(a.row[k].e), comma);
  });
  const lines = [head, el('p', { class: 'max-line' }, t('heatmap.arith.max', { i }), ' ', num(a.max)), el('p', { class: 'exps-line' }, ...join(exps)), el('p', { class: 'sum-line' }, 'Σ = ', own(a.sum))];
  if (a.masked) lines.push(el('p', { class: 'note-line' }, sym(S.value, i, j), ' = 0 (', t('heatmap.masked'), ')'));
  else lines.push(el('p', { class: 'div-line' }, sym(S.value, i, j), ' = ', own(a.e), ' ÷ ', own(a.sum), ' = ', own(a.computed)));
  return lines;
}
