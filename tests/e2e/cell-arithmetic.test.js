// The arithmetic behind a number (web/src/cell-arithmetic.js, heatmap/arithmetic.js), on the built
// page: the keyboard reaches a cell of the steps panel's scores, scaled scores, weights and output,
// a head's weights in the heads panel and the cross-attention weights and output, and the lines
// written under the figure hold, term by term, the library's own numbers (the panels' data-value
// cells, or the same build called in Node), the page's float64 sums of them, and the library's
// value that they agree with; in English and in Chinese. One page throughout.
import { describe, expect, test } from 'vitest';
import { settled, watchedPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the demo
const lab = await loadLab();

// Seven tokens (more than 6 keys: the softmax's row is cut to 3, …, 2) and d_k = 8 (the dot products too).
const SENTENCE = 'a b c d e f g';
const QUERY = `?s=${SENTENCE.replaceAll(' ', '+')}&seed=42&dm=8&dk=8&h=1&mask=causal`;

/** In the page: panel `tag`'s figure `sel`, its cells' data-value as rows, and what its arithmetic box shows. */
function read([tag, sel]) {
  const root = document.querySelector('attention-explorer').shadowRoot.querySelector(tag).shadowRoot;
  const figures = [...root.querySelectorAll(sel)];
  const num = (node) => Number(node.textContent.replace(/−/g, '-'));
  const matrix = (fig) => {
    const rows = [];
    for (const td of fig.querySelectorAll('td[data-i]')) (rows[td.dataset.i] ??= [])[td.dataset.j] = Number(td.dataset.value);
    return rows;
  };
  const fig = figures[0];
  const box = fig.querySelector('.arith');
  const units = (cls) => [...box.querySelectorAll(cls)].map((u) => ({ k: Number(u.dataset.k), masked: u.classList.contains('masked'), nums: [...u.querySelectorAll('.num:not(.own)')].map(num), own: [...u.querySelectorAll('.own')].map((o) => Number(o.dataset.computed)) }));
  const active = root.activeElement;
  return {
    matrices: figures.map(matrix),
    focused: active?.closest('figure') === fig ? [Number(active.dataset.i), Number(active.dataset.j)] : null,
    readout: fig.querySelector('.readout').textContent,
    live: box.getAttribute('aria-live'),
    text: box.textContent,
    terms: units('.term'),
    exps: units('.exp'),
    ellipsis: box.querySelectorAll('.ellipsis').length,
    firstNums: [...box.querySelectorAll('[data-line="0"] .num:not(.own)')].map(num),
    owns: [...box.querySelectorAll('.own')].map((o) => ({ v: Number(o.dataset.computed), text: o.textContent })),
    value: Number(box.querySelector('.check [data-value]')?.dataset.value),
    agrees: box.querySelector('.check')?.dataset.agrees,
  };
}

/** The keyboard to cell (i, j) of a figure: focus its cell in the tab order, then arrow keys. */
async function goTo(page, tag, sel, i, j) {
  const cell = page.locator(`attention-explorer ${tag} ${sel} td[tabindex="0"]`);
  await cell.focus();
  const [ci, cj] = await cell.evaluate((td) => [Number(td.dataset.i), Number(td.dataset.j)]);
  for (let k = ci; k < i; k++) await page.keyboard.press('ArrowDown');
  for (let k = ci; k > i; k--) await page.keyboard.press('ArrowUp');
  for (let k = cj; k < j; k++) await page.keyboard.press('ArrowRight');
  for (let k = cj; k > j; k--) await page.keyboard.press('ArrowLeft');
  const shown = await page.evaluate(read, [tag, sel]);
  expect(shown.focused).toEqual([i, j]);
  expect(shown.live).toBe('polite');
  return shown;
}

/** Σ_k a_k × b_k in float64, as the page adds them. */
const dot = (as, bs) => as.reduce((sum, a, k) => sum + a * bs[k], 0);
const column = (M, c) => M.map((row) => row[c]);

/** A dot-product arithmetic (scores, output) against its operands `a` (row i) and `bs` (the column). */
function expectTerms(shown, a, bs) {
  const n = a.length;
  const ks = n > 6 ? [0, 1, 2, n - 2, n - 1] : [...Array(n).keys()];
  expect(shown.terms.map((term) => term.k)).toEqual(ks);
  expect(shown.ellipsis).toBe(n > 6 ? 1 : 0);
  // Each term as written reads back as the library's float32 numbers.
  for (const term of shown.terms) expect(term.nums.map(Math.fround)).toEqual([a[term.k], bs[term.k]]);
  const sum = shown.owns.at(-1);
  expect(sum.v).toBe(dot(a, bs));
  expect(shown.agrees).toBe('true');
  expect(Math.abs(sum.v - shown.value)).toBeLessThan(1e-5 * (1 + Math.abs(shown.value)));
}

// Math.exp may differ in its last bit between Node and Chromium.
const close = (a, b) => Math.abs(a - b) <= 1e-14 * Math.abs(b);

/** A softmax arithmetic for row `x` of the softmax's input (masked: null) against the library's weight. */
function expectSoftmax(shown, x, j) {
  const n = x.length;
  const seen = x.filter((v) => v !== null);
  const max = Math.max(...seen);
  const e = x.map((v) => (v === null ? 0 : Math.exp(v - max)));
  const ks = n > 6 ? [0, 1, 2, n - 2, n - 1] : [...Array(n).keys()];
  expect(shown.exps.map((u) => u.k)).toEqual(ks);
  for (const u of shown.exps) {
    expect(u.masked).toBe(x[u.k] === null);
    if (u.masked) continue;
    expect(u.nums.map(Math.fround)).toEqual([x[u.k], max]);
    expect(close(u.own[0], e[u.k])).toBe(true);
  }
  const sum = e.reduce((a, v) => a + v, 0);
  const [ej, total, quotient] = shown.owns.slice(-3).map((o) => o.v);
  expect([close(ej, e[j]), close(total, sum), close(quotient, e[j] / sum)]).toEqual([true, true, true]);
  expect(shown.agrees).toBe('true');
  expect(Math.abs(e[j] / sum - shown.value)).toBeLessThan(1e-6);
}

const STEPS = 'attention-steps';
const MAIN = 'figure[data-role="main"]';
const OPERANDS = '.operands figure';

async function showStep(page, step) {
  await page.evaluate((key) => document.querySelector('attention-explorer').setAttribute('step', key), step);
  await settled(page);
}

describe('the arithmetic behind a number', () => {
  test('steps, heads and cross panels: by keyboard (and pointer), the library’s numbers term by term, in English and Chinese', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/${QUERY}&step=scores`);
    await settled(page);

    // Scores: s_ij = q_i · k_j, 8 terms cut to 3, …, 2, = the sum; Q and K are the operand figures.
    let shown = await goTo(page, STEPS, MAIN, 2, 1);
    let [Q, K] = (await page.evaluate(read, [STEPS, OPERANDS])).matrices;
    expect(shown.readout).toContain('[3][2] (c → b)');
    expect(shown.value).toBe(shown.matrices[0][2][1]);
    expectTerms(shown, Q[2], K[1]);
    expect(shown.text).toContain('This page worked out the lines above itself, in float64');
    expect(shown.text).toContain('✓ agrees');

    // Scaled: s_ij ÷ √d_k.
    await showStep(page, 'scaled');
    shown = await goTo(page, STEPS, MAIN, 2, 1);
    const [scores] = (await page.evaluate(read, [STEPS, OPERANDS])).matrices;
    expect(shown.firstNums.map(Math.fround)).toEqual([scores[2][1]]);
    expect(shown.owns[0].v).toBe(scores[2][1] / Math.sqrt(8));
    expect(shown.text).toContain('÷ √8');
    expect(shown.value).toBe(shown.matrices[0][2][1]);
    expect(shown.agrees).toBe('true');

    // Weights: the row's exponentials (the causal mask hides keys after the query), their sum, the division.
    await showStep(page, 'weights');
    shown = await goTo(page, STEPS, MAIN, 4, 1);
    const [masked] = (await page.evaluate(read, [STEPS, OPERANDS])).matrices;
    const x = masked[4].map((v, k) => (k > 4 ? null : v));
    expect(masked[4].slice(5).every((v) => v === -Infinity)).toBe(true);
    expect(shown.value).toBe(shown.matrices[0][4][1]);
    expectSoftmax(shown, x, 1);
    expect(shown.text).toContain('masked → 0');

    // Output: o_ic = Σ_j a_ij × v_jc, the weights and V the operand figures.
    await showStep(page, 'output');
    shown = await goTo(page, STEPS, MAIN, 5, 3);
    const [A, V] = (await page.evaluate(read, [STEPS, OPERANDS])).matrices;
    expect(shown.value).toBe(shown.matrices[0][5][3]);
    expectTerms(shown, A[5], column(V, 3));

    // In Chinese: the same numbers, the page's words.
    await page.selectOption('#lang', 'zh-CN');
    await settled(page);
    shown = await goTo(page, STEPS, MAIN, 4, 2);
    expectTerms(shown, A[4], column(V, 2));
    expect(shown.text).toContain('以上各行由本页自己用 float64');
    expect(shown.text).toContain('✓ 一致');
    await page.selectOption('#lang', 'en');

    // Heads: head 2's weights, against the same build called in Node on the same model.
    const { buildModel } = await import('../../web/src/model.js');
    const m = buildModel({ sentence: SENTENCE, seed: 42, dModel: 8, dK: 4, heads: 2, mask: 'causal' });
    const r = lab.multiHeadAttention(m.X, { heads: 2, Wq: m.Wq, Wk: m.Wk, Wv: m.Wv, Wo: m.Wo, mask: m.mask, trace: true });
    const head = Object.fromEntries(r.heads[1].steps.map((st) => [st.id, st.matrix]));
    await page.goto(`${s.url}/${QUERY.replace('dk=8&h=1', 'dk=4&h=2')}&panel=heads`);
    await settled(page);
    shown = await goTo(page, 'attention-heads', 'figure[data-head="1"]', 5, 2);
    expect(shown.readout).toMatch(/^Head 2 .*\[6\]\[3\] \(f → c\)/);
    expect(shown.matrices[0].flat()).toEqual(Array.from(head.weights.data));
    const at = (M, i, j) => M.data[i * M.cols + j];
    expect(shown.value).toBe(at(head.weights, 5, 2));
    expectSoftmax(shown, Array.from({ length: 7 }, (_, k) => (k > 5 ? null : at(head.masked, 5, k))), 2);

    // Cross: a weight by the pointer, the output by the keyboard; scaled scores, weights and V from its figures.
    await page.goto(`${s.url}/${QUERY}&panel=cross`);
    await settled(page);
    const cross = page.locator('attention-explorer attention-cross');
    await cross.locator('details[data-role="steps"] > summary').click();
    await settled(page);
    const [scaled] = (await page.evaluate(read, ['attention-cross', 'figure[data-matrix="scaled"]'])).matrices;
    const canvas = cross.locator('figure[data-matrix="weights"] canvas');
    await canvas.scrollIntoViewIfNeeded();
    await canvas.hover({ position: await canvas.evaluate((c) => { const [x0, y0, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x0 + 2.5 * w, y: y0 + 1.5 * h }; }) });
    shown = await page.evaluate(read, ['attention-cross', 'figure[data-matrix="weights"]']);
    expect(shown.readout).toContain('[2][3]');
    expectSoftmax(shown, scaled[1], 2);
    shown = await goTo(page, 'attention-cross', 'figure[data-matrix="output"]', 3, 4);
    const [W] = (await page.evaluate(read, ['attention-cross', 'figure[data-matrix="weights"]'])).matrices;
    const [Vc] = (await page.evaluate(read, ['attention-cross', 'figure[data-matrix="V"]'])).matrices;
    expectTerms(shown, W[3], column(Vc, 4));

    expect(problems.console).toEqual([]);
    await context.close();
  });
});
