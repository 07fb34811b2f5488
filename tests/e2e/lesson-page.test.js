// The demo's landing view is the lesson: its first screen (a desktop and a phone, both languages)
// holds the statement and a figure with every cell in view; no page-level sideways scroll on the
// phone; its text is there before the .wasm arrives; each section has a link of its own; a
// figure's lab link opens the explorer at the same sentence and step; every link that names a
// setting of the explorer still opens the explorer.
import { describe, expect, test } from 'vitest';
import { quantise, ready, screenshotFile, settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo

async function open(query, viewport = { width: 1280, height: 800 }) {
  const w = await watchedPage(b.browser, { viewport, locale: 'en-US' });
  await w.page.goto(`${s.url}/${query}`);
  await w.page.waitForSelector('#hero');
  await settled(w.page);
  return w;
}

/** Where the statement and the first figure's weights are, and whether its last cell is the canvas seen there. */
const firstScreen = (page) =>
  page.evaluate(() => {
    const box = (node) => {
      const r = node.getBoundingClientRect();
      return { top: r.top, left: r.left, bottom: r.bottom, right: r.right };
    };
    const hero = document.getElementById('hero');
    const canvas = hero.shadowRoot.querySelector('[data-role="main"] canvas');
    const r = canvas.getBoundingClientRect();
    const corner = (x, y) => hero.shadowRoot.elementFromPoint(x, y) === canvas;
    return {
      viewport: { width: innerWidth, height: innerHeight },
      statement: box(document.querySelector('.statement')),
      canvas: box(canvas),
      // The first and last cells are the canvas itself at those points: not clipped, not covered.
      cornersSeen: corner(r.left + 2, r.top + 2) && corner(r.right - 2, r.bottom - 2),
      rows: hero.shadowRoot.querySelectorAll('[data-role="main"] tbody tr').length,
      sideways: document.documentElement.scrollWidth - innerWidth,
      explorer: document.querySelector('attention-explorer') !== null,
    };
  });

const inside = (b, v) => b.top >= 0 && b.left >= 0 && b.bottom <= v.height && b.right <= v.width;

describe('the lesson is the landing view', () => {
  test.each([
    ['en', 1280, 800],
    ['zh-CN', 1280, 800],
    ['en', 375, 667],
    ['zh-CN', 375, 667],
  ])('%s at %i × %i: the statement and every cell of a figure in the first screen (screenshot)', async (lang, width, height) => {
    const { page, context } = await open(`?lang=${lang}`, { width, height });
    const seen = await firstScreen(page);
    expect(seen.explorer).toBe(false);
    expect(inside(seen.statement, seen.viewport), JSON.stringify(seen)).toBe(true);
    expect(inside(seen.canvas, seen.viewport), JSON.stringify(seen)).toBe(true);
    expect(seen.cornersSeen).toBe(true);
    expect(seen.rows).toBeGreaterThan(3); // <bos> and the sentence's tokens
    expect(seen.sideways).toBeLessThanOrEqual(0);
    // The statement is the page's, in the page's language.
    const statement = await page.locator('.statement').textContent();
    expect(statement).toMatch(lang === 'en' ? /^Attention lets each word/ : /^注意力让句子里的每个词/);
    const file = screenshotFile(`lesson-${lang === 'en' ? 'en' : 'zh'}-${width}.png`);
    await page.screenshot({ path: file });
    quantise(file);
    await context.close();
  });

  test('the text is there before the WebAssembly arrives', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    let release;
    const held = new Promise((resolve) => (release = resolve));
    await w.page.route('**/*.wasm', async (route) => {
      await held;
      await route.continue();
    });
    await w.page.goto(`${s.url}/?lang=zh-CN`);
    await w.page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    expect(await w.page.locator('#qkv h2').textContent()).toContain('查询、键和值');
    expect(await w.page.evaluate(() => document.getElementById('hero').dataset.ready)).toBeUndefined();
    release();
    await settled(w.page);
    await w.page.unroute('**/*.wasm');
    await w.context.close();
  });

  test('each section has its link, listed in the contents, and its figure', async () => {
    const { page, context } = await open('');
    const sections = await page.evaluate(() =>
      [...document.querySelectorAll('.lesson-section')].map((section) => ({
        id: section.id,
        anchor: section.querySelector('h2 a.anchor')?.getAttribute('href'),
        listed: document.querySelector(`.contents a[href="#${section.id}"]`) !== null,
        figure: [...section.children].some((child) => child.localName.startsWith('attention-')),
        lab: section.querySelector('a[data-lab]')?.getAttribute('href') ?? '',
      })),
    );
    expect(sections.map((x) => x.id)).toEqual(['self', 'qkv', 'scores', 'scale', 'softmax', 'output', 'masks', 'heads', 'cost', 'pooling', 'scoring']);
    for (const x of sections) {
      expect(x.anchor, x.id).toBe(`#${x.id}`);
      expect(x.listed, x.id).toBe(true);
      expect(x.figure, x.id).toBe(true);
      expect(x.lab, x.id).toMatch(/^\?panel=\w+/);
    }
    // A section's link opens the page at that section.
    await page.goto(`${s.url}/#masks`);
    await page.waitForSelector('#masks');
    expect(await page.evaluate(() => Math.abs(document.getElementById('masks').getBoundingClientRect().top) < 5)).toBe(true);
    // Its figure renders once the reader is near it; one far below waits.
    await settled(page);
    expect(await page.evaluate(() => ['masks', 'scoring'].map((id) => document.querySelector(`#${id} [data-later]`)).map((f) => [f.hidden, 'ready' in f.dataset]))).toEqual([
      [false, true],
      [true, false],
    ]);
    await context.close();
  });

  test('a sentence typed in the lesson reaches its figures, and the lab opens at the same sentence and step', async () => {
    const { page, context } = await open('?lang=en');
    await page.locator('#sentence').fill('the dog saw the cats');
    await settled(page);
    const rows = await page.evaluate(() => [...document.getElementById('hero').shadowRoot.querySelectorAll('[data-role="main"] tbody th')].map((th) => th.textContent));
    expect(rows).toEqual(['<bos>', 'the', 'dog', 'saw', 'the', 'cats']);
    await page.locator('#softmax a[data-lab]').click();
    await ready(page);
    const state = await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
      return { lesson: document.getElementById('lesson') !== null, sentence: steps.getAttribute('sentence'), step: steps.getAttribute('step'), weights: steps.getAttribute('weights') };
    });
    expect(state).toEqual({ lesson: false, sentence: 'the dog saw the cats', step: 'weights', weights: 'trained' });
    // And back to the lesson, in the same language.
    await page.locator('#switch-view').click();
    await page.waitForSelector('#hero');
    await settled(page);
    expect(await page.evaluate(() => document.querySelector('attention-explorer'))).toBe(null);
    await context.close();
  });

  test.each([
    ['?panel=heads&h=2', 'heads'],
    ['?s=a+b+c&step=scores', 'steps'],
    ['?panel=cost&lang=zh-CN', 'cost'],
  ])('an explorer link %s still opens the explorer at its panel', async (query, panel) => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await w.page.goto(`${s.url}/${query}`);
    await ready(w.page);
    expect(await w.page.evaluate(() => [document.getElementById('lesson'), document.querySelector('attention-explorer').getAttribute('panel') ?? 'steps'])).toEqual([null, panel]);
    await w.context.close();
  });
});
