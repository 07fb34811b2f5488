// <attention-compare> in Chromium: Dive into Deep Learning 10.3's additive example behind its
// button (the outputs [2, 3, 4, 5] and [10, 11, 12, 13] read from the page, the library's numbers),
// the scoring formulas in row vectors with no words inside, and a Chinese page with no English
// sentence outside formulas and identifiers (the library's refusal explained in Chinese).
import { describe, expect, test } from 'vitest';
import { d2lExample } from '../../web/src/components/compare/compare-model.js';
import { normalise } from '../../web/src/model.js';
import { componentPage, expectAccessible, settled } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser();
const lab = await loadLab();

const open = (body) => componentPage(b.browser, s.url, body, { selector: 'attention-compare' });

/** The example's figures (data-value of every cell) and its sentence, once the element is ready. */
const example = async (page) => {
  await settled(page);
  return page.evaluate(() => {
    const root = document.querySelector('attention-compare').shadowRoot;
    const values = (slot) => [...root.querySelectorAll(`figure[data-matrix="${slot}"] tbody td`)].map((td) => Number(td.dataset.value));
    return { output: values('d2l-output'), weights: values('d2l-weights'), sentence: root.querySelector('[data-role="d2l-outputs"]')?.textContent, expanded: root.querySelector('button[data-key="d2l-example"]').getAttribute('aria-expanded') };
  });
};

/** Every TeX source the panel typeset (KaTeX keeps it in the MathML annotation). */
const texts = (page) => page.evaluate(() => [...document.querySelector('attention-compare').shadowRoot.querySelectorAll('.formula annotation')].map((a) => a.textContent));

describe('attention-compare', () => {
  test('the time per call is measured when the page is idle, not in the render: "measuring…" until then, then a time or a dash per method', async () => {
    const { page, problems, context } = await open('<attention-compare seed="42"></attention-compare>');
    await settled(page);
    // Read at the end of the render's own task (attention-render fires there).
    const during = await page.evaluate(
      () =>
        new Promise((done) => {
          const element = document.querySelector('attention-compare');
          const cells = () => [...element.shadowRoot.querySelectorAll('table.stats tr[data-role="time"] td')].map((td) => td.textContent);
          element.addEventListener('attention-render', () => done({ cells: cells(), ready: 'ready' in element.dataset }), { once: true });
          element.setAttribute('seed', '7');
        }),
    );
    expect(during).toEqual({ cells: ['measuring…', 'measuring…', 'measuring…'], ready: false });
    await settled(page);
    // Then a time with its sizes, or a dash where the empty call is 10 % of the call or more
    // (tests/e2e/honest-numbers.test.js checks the rule).
    const after = await page.locator('attention-compare table.stats tr[data-role="time"] td').allTextContents();
    expect(after).toHaveLength(3);
    for (const cell of after) expect(cell).toMatch(/^([1-9]\d*(\.\d+)? (ns|µs|ms) at \d+ queries × \d+ keys, d_k = \d+(, d_h = \d+)?|—)$/);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the D2L 10.3 example button: outputs [2, 3, 4, 5] and [10, 11, 12, 13] from lab.additiveAttention, whatever the seed and d_h', async () => {
    const { page, problems, context } = await open('<attention-compare seed="42"></attention-compare>');
    const button = page.locator('attention-compare').getByRole('button', { name: 'D2L 10.3 example' });
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect((await example(page)).output).toEqual([]);
    await button.click();
    await page.waitForFunction(() => document.querySelector('attention-compare').shadowRoot.querySelector('[data-role="d2l-outputs"]'));
    const v = await example(page);
    expect(v.expanded).toBe('true');
    expect(v.output.map((x) => Number(x.toFixed(4)))).toEqual([2, 3, 4, 5, 10, 11, 12, 13]);
    expect(v.sentence).toContain('[2, 3, 4, 5] and [10, 11, 12, 13]');
    // The library's numbers to the last bit (8 hidden units, seed 42), weights uniform over the valid keys.
    const want = d2lExample(lab, 8, 42).result;
    expect(v.output).toEqual(Array.from(want.output.data));
    expect(v.weights).toEqual(Array.from(want.weights.data));
    expect(v.weights.slice(0, 10)).toEqual([0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(v.weights.slice(10, 16).every((w) => Math.abs(w - 1 / 6) < 1e-7)).toBe(true);
    // Another seed and another hidden size: other queries and weights, the same outputs.
    await page.evaluate(() => document.querySelector('attention-compare').setAttribute('seed', '5'));
    await page.evaluate(() => document.querySelector('attention-compare').setAttribute('hidden-size', '3'));
    await page.waitForFunction(() => document.querySelector('attention-compare').shadowRoot.querySelector('[data-role="d2l-setup"]').textContent.includes('d_h = 3 hidden units'));
    await settled(page);
    const again = await example(page);
    expect(again.output).toEqual(Array.from(d2lExample(lab, 3, 5).result.output.data));
    expect(again.output.map((x) => Number(x.toFixed(4)))).toEqual([2, 3, 4, 5, 10, 11, 12, 13]);
    // Pressed again, the section closes.
    await button.click();
    await page.waitForFunction(() => !document.querySelector('attention-compare').shadowRoot.querySelector('[data-role="d2l-outputs"]'));
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('the scoring formulas: row vectors (q W_q + k W_k, then w_v), no words inside the TeX, each named beside it', async () => {
    const { page, problems, context } = await open('<attention-compare></attention-compare>');
    await settled(page);
    const tex = await texts(page);
    expect(tex).toHaveLength(3);
    expect(tex[0]).toContain(String.raw`\tanh(\mathbf q W_q + \mathbf k W_k)\,\mathbf w_v`);
    expect(tex[1]).toContain(String.raw`\frac{\mathbf q \mathbf k^{\top}}{\sqrt{d_k}}`);
    for (const t of tex) {
      expect(t).not.toMatch(/\\text|vs/);
      expect(t).not.toMatch(/W_q\s*\\mathbf q|W_k\s*\\mathbf k|\\mathbf q\^\{\\top\}/);
    }
    const names = await page.evaluate(() => [...document.querySelector('attention-compare').shadowRoot.querySelectorAll('[data-role="scorings"] th')].map((th) => th.textContent));
    expect(names).toEqual(['Additive attention', 'Scaled dot-product attention', 'Dot-product attention (unscaled)']);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('lang=zh-CN: no English sentence outside formulas and identifiers; the refusal explained in Chinese, the library’s message on demand', async () => {
    const { page, problems, context } = await open('<attention-compare lang="zh-CN"></attention-compare>');
    await page.locator('attention-compare').getByRole('button', { name: '《动手学深度学习》10.3 节的例子' }).click();
    await page.waitForFunction(() => document.querySelector('attention-compare').shadowRoot.querySelector('[data-role="d2l-outputs"]'));
    await settled(page);
    const seen = await page.evaluate(() => {
      const root = document.querySelector('attention-compare').shadowRoot;
      const panel = root.querySelector('.root');
      // The visible text without the typeset formulas (their MathML holds TeX words such as \tanh).
      const hidden = [...panel.querySelectorAll('.katex')].map((k) => [k, k.style.display]);
      for (const [k] of hidden) k.style.display = 'none';
      const text = panel.innerText;
      for (const [k, d] of hidden) k.style.display = d;
      const refusal = root.querySelector('[data-role="dot-error"]');
      return { text, refusal: refusal.innerText, detail: refusal.querySelector('details code')?.textContent, flops: root.querySelector('.stats tbody tr:nth-child(2) th').textContent };
    });
    // Two lowercase Latin words in a row make an English phrase; identifiers (d_h, W_q, WASM, PNG) do not.
    expect(seen.text.match(/\b[a-z]{2,}[ ,'’-]+[a-z]{2,}\b/g)).toBeNull();
    // The queries are 3 wider than the keys (d_k, the default).
    const dK = normalise({}).dK;
    expect(seen.refusal).toContain(`Q 是 7×${dK + 3}，K 是 7×${dK}`);
    expect(seen.refusal).toContain(`库拒绝了这个输入：两个参数的形状不一致`);
    expect(seen.detail).toMatch(new RegExp(`^scaledDotProductAttention: Q is 7×${dK + 3} but K is 7×${dK}`));
    expect(seen.flops).toBe('浮点运算次数（一次乘加计 2 次）');
    expect(seen.text).toContain('[2, 3, 4, 5] 和 [10, 11, 12, 13]');
    // The opened example and the opened detail, audited as the a11y test audits each panel.
    await page.locator('attention-compare').locator('[data-role="dot-error"] summary').click();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await expectAccessible(page, undefined, { where: scheme });
    }
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
