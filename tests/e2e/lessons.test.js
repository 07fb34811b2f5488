// What the steps, heads and scaling panels teach, checked on the built page: the padding mask
// hides key columns while padded rows keep their weights and outputs; d_k = d_v = d_model / h is
// stated where the widths are (and what follows when a setting breaks it); a head's operands are
// its slices Q⁽ⁱ⁾, K⁽ⁱ⁾ (columns of Q, K); why √d_k and not d_k, with the sampled variances; the
// scaling panel's language switch rewrites its texts in place.
import { describe, expect, test } from 'vitest';
import { ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo

async function open(query) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await w.page.goto(`${s.url}/${query}`);
  await ready(w.page);
  return w;
}

/** Runs `body` (a function of the panel's shadow root and `arg`) inside panel `tag`. */
const inPanel = (page, tag, body, arg) =>
  page.evaluate(
    ([tag, src, a]) => new Function('root', 'arg', `return (${src})(root, arg)`)(document.querySelector('attention-explorer').shadowRoot.querySelector(tag).shadowRoot, a),
    [tag, body.toString(), arg],
  );

/** Every figure of a panel: { name, rows, cols, values (row-major, from data-value) }. */
const figures = (root) =>
  [...root.querySelectorAll('figure')].filter((f) => f.querySelector('td[data-i]')).map((f) => {
    const cells = [...f.querySelectorAll('td[data-i]')];
    const rows = 1 + Math.max(...cells.map((td) => Number(td.dataset.i)));
    const cols = 1 + Math.max(...cells.map((td) => Number(td.dataset.j)));
    return { name: f.querySelector('figcaption .name')?.textContent, role: f.dataset.role, rows, cols, values: cells.map((td) => Number(td.dataset.value)) };
  });
const note = (root, role) => root.querySelector(`[data-role="${role}"]`)?.textContent ?? null;

const stepsOpen = async (query) => {
  const w = await open(query);
  return { ...w, steps: (fn, arg) => inPanel(w.page, 'attention-steps', fn, arg) };
};

describe('steps panel', () => {
  test('padding, valid length 3 of 6: key columns ≥ 3 get weight 0, every row (rows ≥ 3 too) sums to 1 and has an output', async () => {
    const { page, context, steps } = await stepsOpen('?mask=padding&vl=3&step=weights');
    const [weights] = (await steps(figures)).filter((f) => f.role === 'main');
    expect([weights.rows, weights.cols]).toEqual([6, 6]);
    for (let i = 0; i < 6; i++) {
      const row = weights.values.slice(i * 6, i * 6 + 6);
      expect(row.slice(3).every((v) => v === 0), `row ${i}`).toBe(true);
      expect(row.slice(0, 3).every((v) => v > 0), `row ${i}`).toBe(true);
      expect(Math.abs(row.reduce((a, v) => a + v, 0) - 1)).toBeLessThan(1e-6);
    }
    expect(await steps(note, 'padding')).toMatch(/hides the key columns of tokens 4 to 6 \(on, the, mat\).*every row still sums to 1/);
    // No row is fully masked, so no warning; the output has a (non-zero) row for every token.
    expect(await steps((root) => root.querySelector('.warn[role="note"]'))).toBe(null);
    await page.locator('attention-explorer attention-steps [role="tab"]').last().click();
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('[data-step="output"]'));
    await ready(page);
    const [output] = (await steps(figures)).filter((f) => f.role === 'main');
    expect(output.rows).toBe(6);
    for (let i = 0; i < 6; i++) expect(output.values.slice(i * output.cols, (i + 1) * output.cols).some((v) => v !== 0), `output row ${i}`).toBe(true);
    // Where the mask is chosen, its help says how causal and padding differ.
    const help = await page.evaluate(() => {
      const root = document.querySelector('attention-explorer').shadowRoot;
      return root.getElementById(root.querySelector('#in-mask').getAttribute('aria-describedby')).textContent;
    });
    expect(help).toMatch(/Causal: each query sees its own and earlier keys.*Padding: every query sees only the first “valid length” keys.*padded tokens’ own rows still get weights and outputs/);
    await context.close();
  });

  test('the defaults keep d_k = d_model / h, said where the widths are; a d_k that breaks it is said and its widths follow', async () => {
    let w = await stepsOpen('?step=Q');
    expect(await w.steps(note, 'dk-relation')).toBe('d_k = d_v = d_model / h = 8 / 1 = 8: the heads side by side are h·d_v = 8 = d_model wide, as wide as the input.');
    expect((await w.steps(figures)).find((f) => f.role === 'main').cols).toBe(8);
    await w.context.close();
    // Two heads of d_k 8 at d_model 8: the concatenation is 16 wide and W_O maps it back to 8.
    w = await stepsOpen('?h=2&dk=8&step=concat');
    expect(await w.steps(note, 'dk-relation')).toBe('d_k = 8 here, not d_model / h = 8 / 2 = 4: the concatenation is h·d_k = 16 wide instead of d_model = 8, and W_O (16×8) maps it back to width 8.');
    expect((await w.steps(figures)).find((f) => f.role === 'main').cols).toBe(16);
    await w.context.close();
    // One head of d_k 4 (no W_O): the output is 4 wide.
    w = await stepsOpen('?dk=4&step=output');
    expect(await w.steps(note, 'dk-relation')).toMatch(/^d_k = 4 here, not d_model \/ h = 8 \/ 1 = 8: the output rows are d_v = 4 wide instead of d_model = 8/);
    expect((await w.steps(figures)).find((f) => f.role === 'main').cols).toBe(4);
    await w.context.close();
  });

  test('with two heads, head 2’s scores are S⁽²⁾ = Q⁽²⁾K⁽²⁾ᵀ of its slices: columns d5–d8 of Q and K (counted from 1)', async () => {
    const { page, context, steps } = await stepsOpen('?h=2&dk=4&step=scores&head=1');
    expect(await steps((root) => root.querySelector('.formula').dataset.tex)).toBe('S^{(2)} = Q^{(2)}K^{(2)\\top}');
    expect(await steps((root) => root.querySelector('.step-title').textContent)).toBe('Scores Q⁽²⁾K⁽²⁾ᵀ · Head 2');
    expect(await steps(note, 'head-slice')).toBe('Head 2 works on its own slices: Q⁽²⁾, K⁽²⁾, V⁽²⁾ are columns d5–d8 of Q, K and V, 6×4 each (n × d_k).');
    const operands = (await steps(figures)).filter((f) => f.role !== 'main');
    expect(operands.map((f) => f.name)).toEqual(['Q⁽²⁾', 'K⁽²⁾']);
    // Q⁽²⁾ is columns 5…8 of the whole Q (step 2), indices 4…7.
    await page.locator('attention-explorer attention-steps [role="tab"]').nth(1).click();
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('[data-step="Q"]'));
    await ready(page);
    const Q = (await steps(figures)).find((f) => f.role === 'main');
    expect(Q.cols).toBe(8);
    const slice = Array.from({ length: 6 }, (_, i) => Q.values.slice(i * 8 + 4, i * 8 + 8)).flat();
    expect(operands[0].values).toEqual(slice);
    await context.close();
  });
});

describe('heads panel', () => {
  test('states d_k = d_model / h, writes the heads with their slices, and Output = concat · W_O', async () => {
    const { page, context } = await open('?panel=heads&h=2&dk=4');
    const heads = (fn, arg) => inPanel(page, 'attention-heads', fn, arg);
    expect(await heads(note, 'dk-relation')).toBe('d_k = d_v = d_model / h = 8 / 2 = 4: the heads side by side are h·d_v = 8 = d_model wide, as wide as the input.');
    expect(await heads((root) => root.querySelector('.formula').dataset.tex ?? root.querySelector('.formula annotation')?.textContent)).toMatch(/Q\^\{\(i\)\} K\^\{\(i\)\\top\}/);
    expect((await heads(figures)).map((f) => f.name)).toContain('Output = concat · W_O');
    await context.close();
  });
});

describe('scaling panel', () => {
  test('why √d_k and not d_k: Var(q·k/√d_k) ≈ 1 and Var(q·k/d_k) ≈ 1/d_k at every width, from the panel’s sample', async () => {
    const { page, context } = await open('?panel=scaling');
    const rows = await inPanel(page, 'attention-scaling', (root) =>
      [...root.querySelectorAll('tr[data-divide-dk]')].map((tr) => [Number(tr.dataset.divideDk), ...[...tr.querySelectorAll('td')].map((td) => Number(td.textContent))]),
    );
    const variance = await inPanel(page, 'attention-scaling', (root) => Object.fromEntries([...root.querySelectorAll('tr[data-dk]')].map((tr) => [tr.dataset.dk, Number(tr.querySelector('td').textContent)])));
    expect(rows.map((r) => r[0])).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    // 1000 pairs: the sample variance's relative standard deviation is at most √(8/1000) ≈ 0.09.
    for (const [d, sqrt, linear, inverse, maxSqrt, maxLinear] of rows) {
      expect(Math.abs(sqrt - 1), `d_k ${d}`).toBeLessThan(0.3);
      expect(Math.abs(linear * d - 1), `d_k ${d}`).toBeLessThan(0.3 + 0.0005 * d); // shown to 3 decimals
      expect(Math.abs(inverse - 1 / d)).toBeLessThanOrEqual(0.0005 + 1e-9);
      expect(sqrt).toBeCloseTo(variance[d] / d, 2);
      expect(maxLinear).toBeLessThanOrEqual(maxSqrt + 1e-3);
    }
    // At d_k = 512 the over-scaled rows are nearly uniform over 16 keys.
    expect(rows.at(-1)[5]).toBeLessThan(1 / 16 + 0.02);
    await context.close();
  });

  test('a language switch rewrites the texts in place: the same charts, headings and table rows', async () => {
    const { page, context } = await open('?panel=scaling');
    const mark = () => inPanel(page, 'attention-scaling', (root) => {
      for (const n of root.querySelectorAll('h2, h3, svg, tr, figcaption')) n.kept = true;
      return root.querySelectorAll('h2, h3, svg, tr, figcaption').length;
    });
    const count = await mark();
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('h2')?.textContent === '为什么要除以 √d_k？');
    const after = await inPanel(page, 'attention-scaling', (root) => {
      const nodes = [...root.querySelectorAll('h2, h3, svg, tr, figcaption')];
      return { count: nodes.length, kept: nodes.filter((n) => n.kept).length, h3: root.querySelector('h3').textContent, caption: root.querySelector('figcaption').textContent, svg: root.querySelector('figure.chart > svg').getAttribute('aria-label') };
    });
    expect(after).toEqual({ count, kept: count, h3: '为什么是 √d_k 而不是 d_k？', caption: '分数的采样方差', svg: '分数的采样方差' });
    await context.close();
  });
});
