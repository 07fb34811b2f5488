// What a language switch leaves alone (web/src/tex.js, chart.js, scroll-regions.js): the drawn part
// of a formula without words and a chart's drawing carry lang="zxx" ("no linguistic content"), so
// Chromium does not lay their text out again when the page's language changes; a formula with
// Chinese words keeps the page's language; what assistive technology reads (the formula's MathML,
// a chart's name, the axis label) stays in the page's language. A formula's MathML and monospace
// text find their glyphs in our font lists, not through the browser process. And a table in a closed
// <details> is measured for its scroll region when the details opens, not after every render.
import { describe, expect, test } from 'vitest';
import { ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: dist/components.js and site/


/** Runs in the page: the langs of the scaling panel's formula and charts, and a caption's text. */
function scalingLangs() {
  const root = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot;
  const charts = [...root.querySelectorAll('figure.chart svg')];
  return {
    drawn: [...root.querySelectorAll('div.formula .katex-html')].map((n) => n.getAttribute('lang')),
    mathml: [...root.querySelectorAll('div.formula .katex-mathml')].map((n) => n.closest('[lang]')?.getAttribute('lang')),
    drawings: charts.map((svg) => svg.querySelector(':scope > g[lang="zxx"]') !== null),
    // Every tick label is in the drawing; the axis label (words in some charts) is not.
    ticksOutside: charts.flatMap((svg) => [...svg.querySelectorAll('text')].filter((t) => !t.closest('g[lang="zxx"]')).map((t) => t.textContent)),
    names: charts.map((svg) => svg.closest('[lang]').getAttribute('lang')),
    caption: root.querySelector('figure.chart figcaption').textContent,
  };
}

describe('a language switch leaves the language-neutral drawing alone', () => {
  test('the scaling panel: formula and chart drawings are lang="zxx" in English and after the switch to Chinese; names and MathML follow the page', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=scaling`);
    await ready(page);
    const before = await page.evaluate(scalingLangs);
    expect(before.drawn).toEqual(['zxx']);
    expect(before.mathml).toEqual(['en']);
    expect(before.drawings).toEqual([true, true, true]);
    expect(before.ticksOutside).toEqual(['d_k', 'd_k', 'd_k']);
    expect(before.names).toEqual(['en', 'en', 'en']);
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('.root').lang === 'zh-CN');
    const after = await page.evaluate(scalingLangs);
    expect(after.drawn).toEqual(['zxx']);
    expect(after.mathml).toEqual(['zh-CN']);
    expect(after.drawings).toEqual([true, true, true]);
    expect(after.names).toEqual(['zh-CN', 'zh-CN', 'zh-CN']);
    expect(after.caption).not.toBe(before.caption);
    expect(after.caption).toMatch(/[\u4e00-\u9fff]/);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a formula with Chinese words keeps the page language; the same step in English is lang="zxx"', async () => {
    const langOf = async (lang) => {
      const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: lang });
      await page.goto(`${s.url}/site/?panel=steps&step=masked&mask=causal&lang=${lang}`);
      await ready(page);
      const found = await page.evaluate(() => {
        const root = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
        const drawn = root.querySelector('div.formula .katex-html');
        return { lang: drawn.getAttribute('lang'), text: drawn.textContent };
      });
      await context.close();
      return found;
    };
    const zh = await langOf('zh-CN');
    expect(zh.text).toContain('若');
    expect(zh.lang).toBe(null);
    const en = await langOf('en');
    expect(en.text).toContain('where');
    expect(en.lang).toBe('zxx');
  });
});

describe("what a switch to Chinese asks the browser for", () => {
  test("a formula's MathML is set in the components' font with plain letters, and the monospace font names Chinese fonts", async () => {
    const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=scaling`);
    await ready(page);
    const found = await page.evaluate(() => {
      const root = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot;
      const math = root.querySelector('div.formula .katex-mathml math');
      const mi = [...math.querySelectorAll('mi')].find((n) => n.textContent.length === 1);
      const host = getComputedStyle(root.host);
      const text = getComputedStyle(root.querySelector('.root')).fontFamily;
      return { math: getComputedStyle(math).fontFamily === text, transform: getComputedStyle(mi).textTransform, mono: host.getPropertyValue('--_mono') };
    });
    // The browser's math font and its math-auto italic (𝑞 for q) sent every such symbol to the
    // browser process for a fallback font on the first switch to Chinese (a Chromium trace: 27 on this panel).
    expect(found.math).toBe(true);
    expect(found.transform).toBe('none');
    // Chinese in monospace text (readouts, captions) found in the list, after the Latin monospace font.
    expect(found.mono).toMatch(/monospace, .*"WenQuanYi Micro Hei"/);
    await context.close();
  });
});

describe('scroll regions in a closed <details>', () => {
  test('375 px: the scaling panel\'s data table becomes a named region when its details opens', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 375, height: 800 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=scaling`);
    await ready(page);
    // The visible table (outside the details) is marked after the render: the idle work has run.
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('table[data-role="divide"]').closest('[data-scroll-region]'));
    const box = () => page.evaluate(() => {
      const table = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('table[data-role="data"]');
      const scroller = table.closest('.scroll');
      return { open: table.closest('details').open, region: scroller.getAttribute('role'), name: scroller.getAttribute('aria-label'), overflows: scroller.scrollWidth > scroller.clientWidth + 1 };
    });
    expect(await box()).toMatchObject({ open: false, region: null, name: null });
    await page.locator('attention-explorer attention-scaling details[part="data"] > summary').click();
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('table[data-role="data"]').closest('.scroll').getAttribute('role') === 'region');
    expect(await box()).toEqual({ open: true, region: 'region', name: 'Table, scrolls sideways', overflows: true });
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
