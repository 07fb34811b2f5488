// The Chinese font warm-up (web/src/font-warmup.js): a box that is laid out (not display: none),
// invisible, hidden from screen readers, in Chinese, that lays out every character of the Chinese
// strings in each weight, then keeps a few characters in every family, size and weight (so Chromium
// keeps those fonts) and is no longer styled. Whether it makes the first switch faster is measured
// in tests/e2e/bench-language.mjs, not here.
import { describe, expect, test } from 'vitest';
import { audit, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: web/src/ loads as modules

// A plain English page that loads the module itself (no bundle, no component).
const PAGE = `<!doctype html><html lang="en"><body><script type="module">import * as m from '/web/src/font-warmup.js'; window.warmup = m;</script></body></html>`;

/** A new page holding PAGE, once the module is loaded (as `window.warmup`). */
async function openPage() {
  const opened = await watchedPage(b.browser);
  await opened.page.route(`${s.url}/blank.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await opened.page.goto(`${s.url}/blank.html`);
  await opened.page.waitForFunction(() => window.warmup);
  return opened;
}

describe('Chinese font warm-up', () => {
  test('lays out every Chinese character invisibly in each family and weight, then keeps one short line per font', async () => {
    const { page, context, problems } = await openPage();
    const seen = await page.evaluate(async () => {
      const { chineseCharacters, warmChineseFonts } = window.warmup;
      const host = document.createElement('div');
      document.body.append(host);
      const shadow = host.attachShadow({ mode: 'open' });
      const done = warmChineseFonts(shadow);
      const box = shadow.querySelector('[data-font-warmup]');
      const style = getComputedStyle(box);
      const laidOut = {};
      new MutationObserver((records) => {
        for (const line of records.flatMap((r) => [...r.addedNodes])) {
          const key = `${line.style.fontFamily.includes('mono') ? 'mono' : 'text'} ${line.style.fontWeight}`;
          laidOut[key] = (laidOut[key] ?? '') + line.textContent;
        }
      }).observe(box, { childList: true });
      const first = { ariaHidden: box.getAttribute('aria-hidden'), lang: box.lang, display: style.display, opacity: style.opacity, width: box.getBoundingClientRect().width };
      const again = warmChineseFonts(shadow) === done; // once per document
      await done;
      const chars = chineseCharacters();
      const missing = Object.fromEntries(Object.entries(laidOut).map(([w, text]) => [w, [...chars].filter((c) => !text.includes(c)).length]));
      const kept = [...shadow.querySelectorAll('[data-font-warmup]')].map((b) => ({
        contentVisibility: getComputedStyle(b).contentVisibility,
        lines: [...b.children].map((line) => `${line.style.fontFamily.includes('mono') ? 'mono' : 'text'} ${line.style.fontWeight} ${line.style.fontSize}: ${line.textContent}`),
      }));
      return { first, again, missing, count: chars.length, symbols: ['←', '▶', '×', '−', '⁽', '¹', '÷'].every((c) => chars.includes(c)), kept, sample: chars.slice(0, 8) };
    });
    expect(seen.first).toEqual({ ariaHidden: 'true', lang: 'zh-CN', display: 'block', opacity: '0', width: expect.any(Number) });
    expect(seen.first.width).toBeGreaterThan(0);
    expect(seen.again).toBe(true);
    expect(seen.count).toBeGreaterThan(500);
    expect(seen.symbols).toBe(true); // the arrows, play button and signs the code writes beside the strings
    // The text family in each weight, the monospace one (captions, readouts, legends) in its two.
    expect(seen.missing).toEqual({ 'text 400': 0, 'text 600': 0, 'text 700': 0, 'mono 400': 0, 'mono 600': 0 });
    // What stays: the first characters in every size and weight of each family (16 × 3 text, 4 × 2
    // monospace), each line once, styled no more.
    expect(seen.kept).toHaveLength(1);
    expect(seen.kept[0].contentVisibility).toBe('hidden');
    expect(seen.kept[0].lines).toHaveLength(16 * 3 + 4 * 2);
    expect(new Set(seen.kept[0].lines).size).toBe(seen.kept[0].lines.length);
    expect(seen.kept[0].lines.every((line) => line.endsWith(`: ${seen.sample}`))).toBe(true);
    expect(seen.kept[0].lines).toContain(`mono 600 0.85rem: ${seen.sample}`);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('an idle period with no time left lays out one line, not the whole warm-up (once a task of 230–400 ms)', async () => {
    const { page, context, problems } = await openPage();
    const perPeriod = await page.evaluate(async () => {
      const host = document.createElement('div');
      document.body.append(host);
      const shadow = host.attachShadow({ mode: 'open' });
      // Every idle period has no time left: how many lines does each lay out?
      const lines = [];
      window.requestIdleCallback = (f) =>
        setTimeout(() => {
          f({ timeRemaining: () => 0, didTimeout: true });
          lines.push(shadow.querySelector('[data-font-warmup]').children.length);
        }, 0);
      await window.warmup.warmChineseFonts(shadow);
      return lines;
    });
    // One line per period, then the lines that stay (16 × 3 text, 4 × 2 monospace) at the end.
    expect(perPeriod.length).toBeGreaterThan(56);
    expect(perPeriod.slice(0, -1).every((n) => n === 1)).toBe(true);
    expect(perPeriod.at(-1)).toBe(16 * 3 + 4 * 2);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('mid-warm-up, its lines are no text a reader sees: the contrast audit passes over them', async () => {
    const { page, context, problems } = await openPage();
    await page.evaluate(() => {
      const host = document.createElement('div');
      document.body.style.background = 'white';
      host.style.color = 'white'; // text the colour of the page, as a panel's box once measured (1.00)
      document.body.append(host);
      window.shadow = host.attachShadow({ mode: 'open' });
      // The first idle period lays out one line; the next never comes.
      window.requestIdleCallback = (f) => {
        window.requestIdleCallback = () => 0;
        return setTimeout(() => f({ timeRemaining: () => 0, didTimeout: true }), 0);
      };
      window.warmup.warmChineseFonts(window.shadow);
    });
    await page.waitForFunction(() => window.shadow.querySelector('[data-font-warmup]').children.length === 1);
    expect((await page.evaluate(audit)).low).toEqual([]);
    // The same text where a reader sees it is reported: the audit can fail here.
    await page.evaluate(() => window.shadow.append(Object.assign(document.createElement('span'), { textContent: '注意力' })));
    expect((await page.evaluate(audit)).low).toEqual(['span. "注意力" 1.00']);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
