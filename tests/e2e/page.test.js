// The built demo page (site/) in Chromium: loads clean and offline, steps,
// shows the library's numbers, switches language, keeps its state in the URL,
// works from the keyboard; saves the README screenshots.
import { describe, expect, test } from 'vitest';
import { openSettings, quantise, ready, root, screenshotFile, server, urlWritten, watchedPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo
const lab = await loadLab();

/** Open the page at `query` and wait for the explorer and its visible panel. */
async function open(query = '?panel=steps', viewport = { width: 1280, height: 900 }) {
  const w = await watchedPage(b.browser, { viewport, locale: 'en-US' });
  await w.page.goto(`${s.url}/${query}`);
  await ready(w.page);
  return w;
}

// Deep queries through the explorer's shadow root into the panels' shadow roots.
const inSteps = (page, fn, arg) =>
  page.evaluate(
    ([body, a]) => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      return new Function('root', 'arg', body)(steps, a);
    },
    [fn, arg],
  );
const shownStep = (page) => inSteps(page, "return root.querySelector('[data-step]').dataset.step");
// The step shown, and the panel ready (its cells' labels and data-value follow when the page is idle).
const waitStep = (page, step) =>
  page.waitForFunction((want) => {
    const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
    return steps.shadowRoot.querySelector('[data-step]')?.dataset.step === want && 'ready' in steps.dataset;
  }, step);

describe('demo page', () => {
  test('loads with no console error, nothing from the network, KaTeX fonts from the site', async () => {
    const { page, problems, context } = await open('?step=scaled');
    await page.evaluate(() => document.fonts.ready);
    const fonts = await page.evaluate(() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family));
    expect(fonts.some((f) => f.includes('KaTeX_Main'))).toBe(true);
    const katex = await inSteps(page, "return root.querySelectorAll('.formula .katex').length");
    expect(katex).toBe(1);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('works from a sub-path (relative URLs only)', async () => {
    const whole = await server(root);
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    await w.page.goto(`${whole.url}/site/?panel=heads&h=2`);
    await ready(w.page);
    expect(await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelectorAll('attention-heads').length)).toBe(1);
    const heads = await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').shadowRoot.querySelectorAll('figure[data-head]').length);
    expect(heads).toBe(2);
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
    await whole.close();
  });

  test('stepping changes the shown step (buttons and arrow keys)', async () => {
    const { page, context } = await open();
    expect(await shownStep(page)).toBe('X');
    await page.locator('attention-explorer attention-steps button[data-key="next"]').click();
    await waitStep(page, 'Q');
    // Typeset: W with a subscript Q, not the raw "XW_Q".
    expect(await inSteps(page, "const h = root.querySelector('.step-title'); return [h.textContent, h.querySelector('sub')?.textContent]")).toEqual(['Queries Q = XWQ', 'Q']);
    // the intro's Q = XW_Q and qᵢ = xᵢW_Q too
    expect(await inSteps(page, "return [...root.querySelectorAll('p.intro sub')].map((s) => s.textContent)")).toEqual(['Q', 'Q']);
    await page.locator('attention-explorer attention-steps [role="tab"][aria-selected="true"]').focus();
    await page.keyboard.press('ArrowRight');
    await waitStep(page, 'K');
    await page.keyboard.press('End');
    await waitStep(page, 'output');
    await page.keyboard.press('ArrowLeft');
    await waitStep(page, 'weights');
    // Focus follows the selected tab across the re-render.
    expect(await page.evaluate(() => document.activeElement.shadowRoot.activeElement.shadowRoot.activeElement.textContent)).toMatch(/Attention weights/);
    await context.close();
  });

  test('a number shown in a heatmap equals the library result for the same input', async () => {
    const { buildModel } = await import('../../web/src/model.js');
    const config = { sentence: 'attention is all we need', seed: 7, dModel: 6, dK: 3, heads: 1, mask: 'causal' };
    const { page, context } = await open('?s=attention+is+all+we+need&seed=7&dm=6&dk=3&h=1&mask=causal&step=weights');
    const shown = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => [Number(td.dataset.i), Number(td.dataset.j), td.dataset.value, td.textContent])");
    const m = buildModel(config);
    const ref = lab.selfAttention(m.X, { Wq: m.Wq, Wk: m.Wk, Wv: m.Wv, mask: m.mask }).weights;
    expect(shown.length).toBe(25);
    for (const [i, j, value, text] of shown) {
      const want = ref.data[i * 5 + j];
      expect(Number(value)).toBe(want);
      expect(text).toBe(j > i ? '0' : want.toFixed(2).replace('-', '−'));
    }
    // Masked weights are exactly zero above the diagonal, and drawn as masked cells.
    expect(shown.filter(([i, j]) => j > i).every(([, , v]) => Number(v) === 0)).toBe(true);
    expect(await inSteps(page, "return root.querySelectorAll('figure[data-role=main] td.masked').length")).toBe(10);
    // The hover readout gives the exact float32 value.
    const at42 = page.locator('attention-explorer attention-steps figure[data-role="main"] canvas');
    await at42.hover({ position: await at42.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [4, 2]) });
    const readout = await inSteps(page, "return root.querySelector('figure[data-role=main] .readout').textContent");
    expect(readout).toContain(`= ${String(Number(ref.data[4 * 5 + 2].toPrecision(9))).slice(0, 6)}`);
    await context.close();
  });

  test('switching language changes the labels and the URL', async () => {
    const { page, context } = await open();
    expect(await inSteps(page, "return root.querySelector('h2').textContent")).toBe('Self-attention, step by step');
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('h2')?.textContent === '自注意力的逐步计算');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    // The tab's title follows when the page is next idle.
    await page.waitForFunction(() => document.title === 'attention-lab · 自注意力的逐步计算');
    expect(await page.locator('h1 + .tagline').textContent()).toMatch(/WebAssembly/);
    expect(await page.locator('label[for="lang"]').textContent()).toBe('语言');
    const tabs = await page.evaluate(() => [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('[role="tab"]')].map((t) => t.textContent));
    // The first five panels; other panels join the list after them.
    expect(tabs.slice(0, 5)).toEqual(['逐步计算', '多头注意力', '评分函数', '为什么除以 √d_k', '注意力汇聚']);
    expect(tabs.every((text) => /[\u4e00-\u9fff]/.test(text))).toBe(true);
    expect(new URL(await urlWritten(page)).searchParams.get('lang')).toBe('zh-CN');
    await context.close();
  });

  test('after a switch, a panel shown later is in the new language, and heatmaps draw in their panel\'s language', async () => {
    const { page, context, problems } = await open('?panel=steps&h=2');
    const contexts = (tag) =>
      page.evaluate((t) => [...document.querySelector('attention-explorer').shadowRoot.querySelector(t).shadowRoot.querySelectorAll('canvas[data-cells]')].map((c) => c.getContext('2d').lang), tag);
    // Set on the context, never 'inherit' (with 'inherit' a lang change above a canvas forced a style recalculation).
    expect(await contexts('attention-steps')).toEqual(expect.arrayContaining(['en']));
    expect(await contexts('attention-steps')).not.toContain('inherit');
    await page.selectOption('#lang', 'zh-CN');
    await page.locator('attention-explorer [role="tab"]').nth(1).click();
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').shadowRoot.querySelector('h2')?.textContent === '多头注意力');
    await ready(page);
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').shadowRoot.querySelectorAll('canvas[data-cells]').length > 0);
    const heads = await contexts('attention-heads');
    expect(heads.length).toBeGreaterThan(0);
    expect(new Set(heads)).toEqual(new Set(['zh-CN']));
    expect(new URL(await urlWritten(page)).searchParams.get('panel')).toBe('heads');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the URL reproduces a state', async () => {
    const { page, context } = await open();
    const explorer = page.locator('attention-explorer');
    await explorer.locator('#in-sentence').fill('我们 学习 注意力');
    await openSettings(page);
    await explorer.locator('#in-mask').selectOption('padding');
    await explorer.locator('#in-valid-len').fill('2');
    await explorer.locator('#in-heads').fill('2');
    await explorer.locator('attention-steps [role="tab"]').nth(7).click();
    await waitStep(page, 'weights');
    const url = await urlWritten(page);
    const q = new URL(url).searchParams;
    expect(q.get('s')).toBe('我们 学习 注意力');
    expect(q.get('mask')).toBe('padding');
    expect(q.get('step')).toBe('weights');
    const before = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => td.dataset.value)");
    const cols = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] thead th')].map((th) => th.textContent)");
    expect(cols).toEqual(['我', '们', '学', '习', '注', '意', '力']);
    const again = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    await again.page.goto(url);
    await ready(again.page);
    expect(await shownStep(again.page)).toBe('weights');
    const after = await inSteps(again.page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => td.dataset.value)");
    expect(after).toEqual(before);
    expect(await again.page.locator('attention-explorer #in-heads').inputValue()).toBe('2');
    await again.context.close();
    await context.close();
  });

  test('keyboard alone reaches every control', async () => {
    const { page, context } = await open('?step=scores');
    // Tag every visible focusable control (through shadow roots), then Tab through the page.
    const total = await page.evaluate(() => {
      let k = 0;
      const visit = (root) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.shadowRoot) visit(el.shadowRoot);
          const focusable = el.matches('a[href], button, input, select, textarea, summary, [tabindex="0"]') && !el.disabled && el.getAttribute('tabindex') !== '-1';
          const visible = el.getClientRects().length > 0 && el.checkVisibility?.() !== false;
          if (focusable && visible) el.dataset.kbd = String(k++);
        }
      };
      visit(document);
      return k;
    });
    expect(total).toBeGreaterThan(15);
    const reached = new Set();
    for (let n = 0; n < total + 20; n++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => {
        let el = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        return el?.dataset?.kbd ?? null;
      });
      if (id !== null) reached.add(id);
    }
    const missing = [...Array(total).keys()].map(String).filter((k) => !reached.has(k));
    const names = await page.evaluate((ids) => {
      const out = [];
      const visit = (root) => {
        for (const el of root.querySelectorAll('[data-kbd]')) if (ids.includes(el.dataset.kbd)) out.push(el.outerHTML.slice(0, 80));
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
      };
      visit(document);
      return out;
    }, missing);
    expect(names).toEqual([]);
    // Enter on a focused "next" button steps forward.
    await page.locator('attention-explorer attention-steps button[data-key="next"]').focus();
    await page.keyboard.press('Enter');
    await waitStep(page, 'scaled');
    await context.close();
  });

  test('hovering a score highlights its query row and key row; exports carry the numbers', async () => {
    const { page, context } = await open('?s=a+b+c+d&step=scores');
    const at13 = page.locator('attention-explorer attention-steps figure[data-role="main"] canvas');
    await at13.hover({ position: await at13.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [1, 3]) });
    const lit = await inSteps(page, "return [...root.querySelectorAll('.operands figure')].map((f) => [f.querySelector('.name').textContent, [...f.querySelectorAll('td.hl')].map((td) => td.dataset.i + ',' + td.dataset.j)])");
    expect(lit[0][0]).toBe('Q');
    expect(new Set(lit[0][1].map((c) => c.split(',')[0]))).toEqual(new Set(['1']));
    expect(lit[1][0]).toBe('K');
    expect(new Set(lit[1][1].map((c) => c.split(',')[0]))).toEqual(new Set(['3']));
    const values = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => td.dataset.value)");
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('attention-explorer attention-steps figure[data-role="main"] button', { hasText: 'CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('attention-scores.csv');
    const csv = await (await download.createReadStream()).toArray();
    const lines = Buffer.concat(csv).toString('utf8').trim().split('\n');
    expect(lines[0]).toBe('"","a","b","c","d"');
    expect(lines.slice(1).flatMap((l) => l.split(',').slice(1))).toEqual(values);
    // After a change that keeps the figure (same step and shape, another seed), exports carry the new numbers.
    await openSettings(page);
    await page.locator('attention-explorer #in-seed').fill('5');
    await page.waitForFunction((old) => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      return steps.querySelector('figure[data-role=main] td[data-i]').dataset.value !== old;
    }, values[0]);
    const seeded = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => td.dataset.value)");
    expect(seeded).not.toEqual(values);
    const [again] = await Promise.all([page.waitForEvent('download'), page.locator('attention-explorer attention-steps figure[data-role="main"] button', { hasText: 'CSV' }).click()]);
    const text = Buffer.concat(await (await again.createReadStream()).toArray()).toString('utf8');
    expect(text.trim().split('\n').slice(1).flatMap((l) => l.split(',').slice(1))).toEqual(seeded);
    const [tex] = await Promise.all([page.waitForEvent('download'), page.locator('attention-explorer attention-steps figure[data-role="main"] button', { hasText: 'TeX' }).click()]);
    const texText = Buffer.concat(await (await tex.createReadStream()).toArray()).toString('utf8');
    expect(texText).toMatch(/^S = QK\^\{\\top\} = \\begin\{bmatrix\}/);
    await context.close();
  });

  test('the boxes for typed matrices join the page when their section first opens, in the language shown then', async () => {
    const { page, problems, context } = await open('?s=a+b+c&dm=2&dk=2&h=1');
    const explorer = page.locator('attention-explorer');
    // Closed and empty: not in the page (a closed section's form controls are still restyled on a language switch).
    expect(await explorer.locator('details textarea').count()).toBe(0);
    await page.selectOption('#lang', 'zh-CN');
    await expect.poll(() => explorer.locator('[part="custom-x"] > summary').textContent()).toMatch(/[\u4e00-\u9fff]/);
    await openSettings(page);
    await explorer.locator('[part="custom-x"] > summary').click();
    await expect.poll(() => explorer.locator('details textarea').count()).toBe(5);
    for (const help of ['#in-x-help', '#in-w-help']) expect(await explorer.locator(help).textContent()).toMatch(/[\u4e00-\u9fff]/);
    expect(await explorer.locator('#in-x').getAttribute('aria-describedby')).toBe('in-x-help in-x-status');
    // Written while closed: the labels carry the sizes, and a language switch after opening relabels the help.
    expect(await explorer.locator('label[for="in-wq"]').textContent()).toBe('W_Q (2×2)');
    await page.selectOption('#lang', 'en');
    await expect.poll(() => explorer.locator('#in-x-help').textContent()).not.toMatch(/[\u4e00-\u9fff]/);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a matrix typed by hand flows through every step', async () => {
    const { page, context } = await open('?s=a+b+c&dm=2&dk=2&step=output');
    const explorer = page.locator('attention-explorer');
    await openSettings(page);
    await explorer.locator('[part="custom-x"] > summary').click();
    await explorer.locator('#in-x').fill('1 0\n0 1\n1 1');
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('#in-x-status').textContent.includes('3×2'));
    await page.locator('attention-explorer attention-steps [role="tab"]').first().click();
    await waitStep(page, 'X');
    const x = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => Number(td.dataset.value))");
    expect(x).toEqual([1, 0, 0, 1, 1, 1]);
    await context.close();
  });

  test('weights typed by hand flow through every step and panel; shown numbers equal the library result for them', async () => {
    const { buildModel } = await import('../../web/src/model.js');
    const { page, problems, context } = await open('?s=a+b+c&seed=3&dm=2&dk=1&h=2&step=final');
    const explorer = page.locator('attention-explorer');
    await openSettings(page);
    await explorer.locator('[part="custom-x"] > summary').click();
    const typed = { wq: '1 0\n0 2', wk: '0.5, 1\n-1, 0.25', wv: '2 0\n1 -1', wo: '1 0.5\n0 1' };
    for (const [field, text] of Object.entries(typed)) {
      await explorer.locator(`#in-${field}`).fill(text);
      await expect.poll(() => explorer.locator(`#in-${field}-status`).textContent()).toBe(`Using the typed W_${field[1].toUpperCase()} (2×2).`);
    }
    // The expected numbers: the library in the page, on the seeded X and the typed weights.
    const { X } = buildModel({ sentence: 'a b c', seed: 3, dModel: 2, dK: 1, heads: 2 });
    const W = Object.fromEntries(Object.entries(typed).map(([field, text]) => [field, text.split('\n').map((row) => row.split(/[\s,]+/).map(Number))]));
    const want = await page.evaluate(
      ([x, W]) => {
        const lab = document.querySelector('attention-explorer').lab;
        const first = (m) => m.map((row) => [row[0]]);
        const multi = lab.multiHeadAttention(x, { heads: 2, Wq: W.wq, Wk: W.wk, Wv: W.wv, Wo: W.wo, trace: true });
        const single = lab.selfAttention(x, { Wq: first(W.wq), Wk: first(W.wk), Wv: first(W.wv) });
        return { Q: Array.from(multi.steps.find((s) => s.id === 'Q').matrix.data), output: Array.from(multi.output.data), firstHead: Array.from(single.weights.data) };
      },
      [{ rows: X.rows, cols: X.cols, data: Array.from(X.data) }, W],
    );
    const mainValues = () => inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => Number(td.dataset.value))");
    // The table's values are written when the page is next idle after the panel's render (CI once
    // read the seeded weights' numbers here, before that): polled until they are the typed weights'.
    await expect.poll(mainValues).toEqual(want.output);
    await page.locator('attention-explorer attention-steps [role="tab"]').nth(1).click();
    await waitStep(page, 'Q');
    expect(await mainValues()).toEqual(want.Q);
    // The multi-head panel's output, and the scoring-function panel (the first head's columns).
    await explorer.locator('#ptab-heads').click();
    await ready(page);
    const headsOutput = await page.evaluate(() => {
      const heads = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').shadowRoot;
      const fig = [...heads.querySelectorAll('figure.heatmap')].at(-1);
      return [...fig.querySelectorAll('td[data-i]')].map((td) => Number(td.dataset.value));
    });
    expect(headsOutput).toEqual(want.output);
    await explorer.locator('#ptab-compare').click();
    await ready(page);
    const scaled = await page.evaluate(() => {
      const compare = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-compare').shadowRoot;
      return [...compare.querySelectorAll('figure[data-method="scaled"] td[data-i]')].map((td) => Number(td.dataset.value));
    });
    expect(scaled).toEqual(want.firstHead);
    // The link keeps them: a new page from the URL shows the same output.
    const q = new URL(await urlWritten(page)).searchParams;
    expect([q.get('wq'), q.get('wk'), q.get('wv'), q.get('wo')]).toEqual(['1,0;0,2', '0.5,1;-1,0.25', '2,0;1,-1', '1,0.5;0,1']);
    const again = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    const url = new URL(await urlWritten(page));
    url.searchParams.set('panel', 'steps');
    url.searchParams.set('step', 'final');
    await again.page.goto(url.href);
    await ready(again.page);
    expect(await again.page.locator('attention-explorer #in-wk').inputValue()).toBe('0.5 1\n-1 0.25');
    expect(await inSteps(again.page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => Number(td.dataset.value))")).toEqual(want.output);
    // With one head W_O is not asked for; a weight of the wrong shape is refused and says so.
    await explorer.locator('#ptab-steps').click(); // the heads setting is shown where it acts
    await ready(page);
    await explorer.locator('#in-heads').fill('1');
    await expect.poll(() => explorer.locator('#in-wq-status').textContent()).toBe('Not used: expected 2 rows of 1 numbers.');
    expect(await explorer.locator('#in-wo').isVisible()).toBe(false);
    expect(problems.console).toEqual([]);
    expect(again.problems.console).toEqual([]);
    await again.context.close();
    await context.close();
  });

  test('payloads typed as weights, or put in the URL, are refused with the note and stay text', async () => {
    const payload = '<img src=x onerror="window.__pwned=1">';
    const { page, problems, context } = await open(`?dm=2&dk=2&${new URLSearchParams({ wv: payload })}`);
    const explorer = page.locator('attention-explorer');
    await openSettings(page);
    await explorer.locator('[part="custom-x"] > summary').click();
    await explorer.locator('#in-wq').fill(`1 2\n${payload}`);
    await expect.poll(() => explorer.locator('#in-wq-status').textContent()).toBe('Not used: expected 2 rows of 2 numbers.');
    expect(await explorer.locator('#in-wq').inputValue()).toBe(`1 2\n${payload}`);
    expect(await explorer.locator('#in-wv').inputValue()).toBe(payload);
    expect(await explorer.locator('#in-wv-status').textContent()).toBe('Not used: expected 2 rows of 2 numbers.');
    const injected = await page.evaluate(() => {
      let count = 0;
      const visit = (root) => {
        count += root.querySelectorAll('img').length;
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
      };
      visit(document);
      return { count, pwned: window.__pwned ?? null };
    });
    expect(injected).toEqual({ count: 0, pwned: null });
    expect(new URL(await urlWritten(page)).searchParams.get('wq')).toBe(null);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('an operand of more than 2,048 numbers (W_Q at d_model 64) starts closed, says its size, and opened shows its numbers with the hover link', async () => {
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const { page, problems, context } = await open(`?s=${encodeURIComponent(sentence)}&dm=64&dk=16&h=4&seed=9&step=Q`);
    const section = () => inSteps(page, "const d = root.querySelector('.operands details[data-role=large-operand]'); return d && { open: d.open, summary: d.querySelector('summary').textContent, figures: d.querySelectorAll('figure').length }");
    // X (32×64 = 2,048 numbers) is shown; W_Q (64×64 = 4,096) is not drawn until asked for.
    expect(await section()).toEqual({ open: false, summary: expect.stringContaining('W_Q (64×64: 4096 numbers'), figures: 0 });
    expect(await inSteps(page, "return [...root.querySelectorAll('.operands > figure .name')].map((n) => n.textContent)")).toEqual(['X']);
    await page.locator('attention-explorer attention-steps details[data-role="large-operand"] > summary').click();
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('details[data-role=large-operand] figure'));
    await ready(page);
    const { buildModel } = await import('../../web/src/model.js');
    const { Wq } = buildModel({ sentence, seed: 9, dModel: 64, dK: 16, heads: 4 });
    const values = await inSteps(page, "return [...root.querySelectorAll('details[data-role=large-operand] td[data-i]')].map((td) => Number(td.dataset.value))");
    expect(values).toEqual(Array.from(Wq.data));
    // Hovering Q[3][5] outlines row 3 of X and column 5 of W_Q.
    const at35 = page.locator('attention-explorer attention-steps figure[data-role="main"] canvas');
    await at35.hover({ position: await at35.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [3, 5]) });
    const lit = await inSteps(page, "return [...root.querySelectorAll('details[data-role=large-operand] td.hl')].map((td) => td.dataset.j)");
    expect(lit.length).toBe(64);
    expect(new Set(lit)).toEqual(new Set(['5']));
    // The reader's choice stays: another seed keeps it open.
    await page.evaluate(() => document.querySelector('attention-explorer').setAttribute('seed', '10'));
    await ready(page);
    expect((await section()).open).toBe(true);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('steps visited before show the latest numbers when jumped to after a change', async () => {
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const { page, problems, context } = await open(`?s=${encodeURIComponent(sentence)}&dm=64&dk=16&h=4&mask=causal&seed=1&step=weights`);
    // Visit the steps the test jumps to (their figures are kept), then change the seed and jump far.
    for (const step of ['final', 'X', 'concat', 'weights']) {
      await inSteps(page, `root.host.setAttribute('step', '${step}')`);
      await ready(page);
    }
    await page.evaluate(() => document.querySelector('attention-explorer').setAttribute('seed', '2'));
    await ready(page);
    const { buildModel } = await import('../../web/src/model.js');
    const m = buildModel({ sentence, seed: 2, dModel: 64, dK: 16, heads: 4, mask: 'causal' });
    const r = lab.multiHeadAttention(m.X, { heads: 4, Wq: m.Wq, Wk: m.Wk, Wv: m.Wv, Wo: m.Wo, mask: m.mask, trace: true });
    for (const [step, id] of [['final', 'output'], ['X', null], ['concat', 'concat']]) {
      await inSteps(page, `root.host.setAttribute('step', '${step}')`);
      await waitStep(page, step);
      await ready(page);
      const values = await inSteps(page, "return [...root.querySelectorAll('figure[data-role=main] td[data-i]')].map((td) => Number(td.dataset.value))");
      const want = id ? r.steps.find((st) => st.id === id).matrix.data : m.X.data;
      expect(values, step).toEqual(Array.from(want));
    }
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('every slider of every panel can be dragged end to end with the mouse (a render does not replace the slider under the pointer)', async () => {
    const { page, problems, context } = await open();
    const seen = [];
    for (const panel of ['steps', 'heads', 'compare', 'scaling', 'pooling', 'cross', 'positions', 'transformer', 'cost']) {
      // Each panel in turn in the same page (as a link's panel= opens it).
      await page.evaluate((p) => document.querySelector('attention-explorer').setAttribute('panel', p), panel);
      await ready(page);
      await page.evaluate(() => scrollTo(0, 0));
      const ranges = page.locator(`attention-explorer attention-${panel} input[type=range]`);
      for (let k = 0; k < (await ranges.count()); k++) {
        const range = ranges.nth(k);
        await range.scrollIntoViewIfNeeded();
        const box = await range.boundingBox();
        const { min, max, key } = await range.evaluate((e) => ({ min: Number(e.min), max: Number(e.max), key: e.dataset.key ?? e.id }));
        // Press at the left end, move to the right end in steps (each move renders), release.
        await page.mouse.move(box.x + 2, box.y + box.height / 2);
        await page.mouse.down();
        for (let m = 1; m <= 6; m++) await page.mouse.move(box.x + 2 + (m * (box.width - 2)) / 6 + 4, box.y + box.height / 2);
        await page.mouse.up();
        const value = Number(await ranges.nth(k).evaluate((e) => e.value));
        seen.push(`${panel} ${key}`);
        expect(value, `${panel} ${key}`).toBeGreaterThan(min + 0.9 * (max - min));
      }
    }
    expect(seen).toEqual(expect.arrayContaining(['compare hidden', 'pooling bandwidth', 'pooling query', 'cost window', 'cost linformer-k']));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('screenshots at 1280 px and 375 px in English and Chinese', async () => {
    for (const lang of ['en', 'zh-CN']) {
      for (const width of [1280, 375]) {
        const sentence = lang === 'en' ? 'the cat sat on the mat' : '我爱学习注意力';
        const { page, problems, context } = await open(`?lang=${lang}&s=${encodeURIComponent(sentence)}&mask=causal&step=weights`, { width, height: width > 400 ? 1000 : 1400 });
        await page.evaluate(() => document.fonts.ready);
        const file = screenshotFile(`page-${lang === 'en' ? 'en' : 'zh'}-${width}.png`);
        await page.screenshot({ path: file });
        quantise(file);
        expect(problems.console).toEqual([]);
        // Nothing wider than the viewport at phone size (the heatmaps scroll inside their box).
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await context.close();
      }
    }
  });
});
