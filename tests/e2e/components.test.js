// The components on plain pages: hostile global CSS, two independent
// instances, every element defined and rendering from dist/components.js.
import { describe, expect, test } from 'vitest';
import { watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root

/** Every element `selector` has nothing pending (its updateComplete). */
const allReady = (page, selector) =>
  page.evaluate((sel) => Promise.all([...document.querySelectorAll(sel)].map(async (el) => {
    await customElements.whenDefined(el.localName);
    await el.updateComplete;
  })), selector);

describe('components', () => {
  test('render under hostile global CSS and keep separate state', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1000, height: 800 } });
    await page.goto(`${s.url}/tests/e2e/fixtures/hostile.html`);
    await allReady(page, 'attention-steps, attention-pooling');
    const info = await page.evaluate(() =>
      [...document.querySelectorAll('attention-steps, attention-pooling')].map((el) => {
        const box = el.getBoundingClientRect();
        const cell = el.shadowRoot.querySelector('td[data-i]');
        return {
          id: el.id,
          height: box.height,
          width: box.width,
          cells: el.shadowRoot.querySelectorAll('td[data-i]').length,
          cellVisible: ((c) => Boolean(c) && c.getBoundingClientRect().width > 5 && getComputedStyle(c).display === 'block')(el.shadowRoot.querySelector('figure canvas')),
          fontSize: cell ? getComputedStyle(cell).fontSize : '',
          step: el.shadowRoot.querySelector('[data-step]')?.dataset.step ?? null,
          heading: el.shadowRoot.querySelector('h2')?.textContent,
        };
      }),
    );
    for (const item of info) {
      expect(item.height, item.id).toBeGreaterThan(200);
      expect(item.cells, item.id).toBeGreaterThan(0);
      expect(item.cellVisible, item.id).toBe(true);
      expect(item.fontSize).not.toBe('40px');
    }
    expect(info[0].step).toBe('weights');
    expect(info[1].step).toBe('X');
    expect(info[1].heading).toBe('自注意力的逐步计算');
    expect(info[0].heading).toBe('Self-attention, step by step');

    // Step the first instance; the second must not move.
    await page.locator('#one').locator('button[data-key="next"]').click();
    await page.waitForFunction(() => document.querySelector('#one').shadowRoot.querySelector('[data-step]').dataset.step === 'output');
    const steps = await page.evaluate(() => ['one', 'two'].map((id) => document.getElementById(id).shadowRoot.querySelector('[data-step]').dataset.step));
    expect(steps).toEqual(['output', 'X']);
    await page.locator('#two').locator('button[data-key="next"]').click();
    await page.waitForFunction(() => document.querySelector('#two').shadowRoot.querySelector('[data-step]').dataset.step === 'Q');
    expect(await page.evaluate(() => document.getElementById('one').getAttribute('step'))).toBe('output');
    // Different inputs give different matrices: 3 tokens × 3 vs 3 characters with a causal mask.
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('every element is defined and renders from the single module', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${s.url}/tests/e2e/fixtures/all.html`);
    const tags = ['attention-steps', 'attention-compare', 'attention-scaling', 'attention-pooling', 'attention-heads', 'attention-explorer'];
    await allReady(page, tags.join(','));
    const defined = await page.evaluate((list) => list.map((t) => Boolean(customElements.get(t))), tags);
    expect(defined).toEqual(tags.map(() => true));
    const summary = await page.evaluate(() => ({
      stepsTitle: document.querySelector('attention-steps').shadowRoot.querySelector('.step-title').textContent,
      heads: document.querySelector('attention-heads').shadowRoot.querySelectorAll('figure[data-head]').length,
      dotError: document.querySelector('attention-compare').shadowRoot.querySelector('[data-role="dot-error"]').textContent,
      scalingRows: document.querySelector('attention-scaling').shadowRoot.querySelectorAll('tr[data-dk]').length,
      explorerTab: document.querySelector('attention-explorer').shadowRoot.querySelector('[role="tab"][aria-selected="true"]').textContent,
    }));
    expect(summary.stepsTitle).toBe('Concatenated heads');
    expect(summary.heads).toBe(3);
    expect(summary.dotError).toMatch(/scaledDotProductAttention: Q is 3×11 but K is 3×8/);
    expect(summary.scalingRows).toBe(10);
    expect(summary.explorerTab).toBe('逐步计算');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('pooling: dragging the query and the keyboard slider move the query; weights come from the library', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1000, height: 900 } });
    await page.goto(`${s.url}/tests/e2e/fixtures/hostile.html`);
    await allReady(page, 'attention-pooling');
    // Read once the element is ready (its cells' data-value follow a change when the page is idle).
    const state = async () =>
      (await page.evaluate(() => document.getElementById('pool').updateComplete)) &&
      page.evaluate(() => {
        const el = document.getElementById('pool');
        const row = [...el.shadowRoot.querySelectorAll('figure')].find((f) => f.querySelector('.shape')?.textContent.includes('1×50'));
        return { query: el.getAttribute('query'), weights: [...row.querySelectorAll('td[data-i]')].map((td) => Number(td.dataset.value)) };
      });
    const before = await state();
    expect(before.query).toBe(null);
    // Boxcar with bandwidth 0.5: only keys within 0.5 of x = 2.5 get (equal) weight.
    const nonzero = before.weights.filter((w) => w > 0);
    expect(nonzero.length).toBeGreaterThan(0);
    expect(Math.abs(nonzero.reduce((a, w) => a + w, 0) - 1)).toBeLessThan(1e-5);
    expect(new Set(nonzero.map((w) => w.toFixed(6))).size).toBe(1);
    const chart = page.locator('#pool').locator('figure.chart svg').first();
    await chart.scrollIntoViewIfNeeded();
    const box = await chart.boundingBox();
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.up();
    await page.waitForFunction(() => {
      const q = document.getElementById('pool').getAttribute('query');
      return q !== null && Number(q) > 0.5 && Number(q) < 2;
    });
    const dragged = await state();
    expect(dragged.weights).not.toEqual(before.weights);
    await page.locator('#pool').locator('#query').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((q) => document.getElementById('pool').getAttribute('query') !== q, dragged.query);
    // The slider snaps the dragged value to its 0.05 steps, then moves one step.
    expect(Number((await state()).query)).toBeCloseTo(Math.round(Number(dragged.query) / 0.05) * 0.05 + 0.05, 5);
    expect(problems.console).toEqual([]);
    await context.close();
  });
  test('a kept heatmap off screen is aria-busy after a change, then shows the latest numbers once ready', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1000, height: 600 } });
    await page.goto(`${s.url}/tests/e2e/fixtures/all.html`);
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const attrs = { sentence, 'd-model': '64', 'd-k': '16', heads: '4', mask: 'causal', seed: '5', lang: 'en' };
    await page.evaluate((a) => {
      document.body.replaceChildren();
      const heads = document.createElement('attention-heads');
      heads.id = 'kept';
      for (const [k, v] of Object.entries(a)) heads.setAttribute(k, v);
      document.body.append(heads);
    }, attrs);
    await allReady(page, '#kept');
    const cells = (id) =>
      page.evaluate((sel) => [...document.querySelector(sel).shadowRoot.querySelectorAll('figure')].map((f) => [...f.querySelectorAll('td[data-i]')].map((td) => [td.className, td.textContent, td.dataset.value, td.getAttribute('aria-label')].join('|'))), id);
    const before = await cells('#kept');
    const firstCanvas = () => page.evaluate(() => document.querySelector('#kept').shadowRoot.querySelector('figure canvas').toDataURL());
    const beforeColours = await firstCanvas();
    // Two changes in a row before the follow-up task (the second one merges into the first):
    // what is seen right after them.
    const during = await page.evaluate(async () => {
      const el = document.querySelector('#kept');
      const rendered = () => new Promise((r) => el.addEventListener('attention-render', r, { once: true }));
      let next = rendered();
      el.setAttribute('seed', '6');
      await next;
      next = rendered();
      el.setAttribute('seed', '7');
      el.setAttribute('lang', 'zh-CN');
      await next;
      // The change's frame: the canvases are drawn in it, before it is painted.
      await new Promise((r) => requestAnimationFrame(r));
      const figures = [...el.shadowRoot.querySelectorAll('figure')];
      return {
        ready: 'ready' in el.dataset,
        busy: figures.map((f) => [f.getAttribute('aria-busy'), f.querySelector('table').getAttribute('aria-busy')]),
        firstColours: figures[0].querySelector('canvas').toDataURL(),
        firstLabels: [...figures[0].querySelectorAll('td[data-i]')].map((td) => td.getAttribute('aria-label')),
        lastText: [...figures.at(-1).querySelectorAll('td[data-i]')].map((td) => td.textContent),
      };
    });
    expect(during.ready).toBe(false);
    // The first head (32×32, compact: its cells show colour only) is on screen: its colours are
    // drawn in the change, its cells' labels (aria-label) wait for the task, and it says so. The
    // output, far below and not compact, waits for all of it.
    expect(during.busy[0]).toEqual(['true', 'true']);
    expect(during.firstLabels).toEqual(before[0].map((c) => c.split('|')[3]));
    expect(during.busy.at(-1)).toEqual(['true', 'true']);
    expect(during.lastText).toEqual(before.at(-1).map((c) => c.split('|')[1]));
    await allReady(page, '#kept');
    const after = await cells('#kept');
    expect(after.at(-1)).not.toEqual(before.at(-1));
    expect(during.firstColours).toEqual(await firstCanvas());
    expect(during.firstColours).not.toEqual(beforeColours);
    expect(after[0]).not.toEqual(before[0]);
    expect(await page.evaluate(() => document.querySelector('#kept').shadowRoot.querySelectorAll('[aria-busy]').length)).toBe(0);
    // The same settings drawn from scratch by a new element: every cell of every figure equal.
    await page.evaluate((a) => {
      const fresh = document.createElement('attention-heads');
      fresh.id = 'fresh';
      for (const [k, v] of Object.entries({ ...a, seed: '7', lang: 'zh-CN' })) fresh.setAttribute(k, v);
      document.body.append(fresh);
    }, attrs);
    await allReady(page, '#fresh');
    const fresh = await cells('#fresh');
    expect(fresh.length).toBe(6);
    expect(after).toEqual(fresh);
    // Masked cells carry the Chinese label (relabelled off screen too).
    expect(after.at(-3).some((c) => /^masked\|[^|]*\|0\|0, 已/.test(c))).toBe(true);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
