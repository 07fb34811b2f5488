// Long sentences and small screens: a 128-token matrix is drawn whole down the page (no box cutting
// its rows), with cells of at least 12 px; a figure wider than its box scrolls sideways, its caption
// says so while there is more to the right, and the arrow keys reach the last column; the phone's
// page itself never scrolls sideways.
import { describe, expect, test } from 'vitest';
import { ready, settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo

const words = (n) => Array.from({ length: n }, (_, i) => `w${i}`).join('+');

async function open(n, width) {
  const w = await watchedPage(b.browser, { viewport: { width, height: 900 }, locale: 'en-US' });
  await w.page.goto(`${s.url}/?s=${words(n)}&step=weights`);
  await ready(w.page);
  return w;
}

/** The weights figure: its cells' pitch, its box's sizes and scroll, the caption's cue. */
const figure = (page) =>
  page.evaluate(() => {
    const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
    const fig = steps.querySelector('figure[data-role="main"]');
    const box = fig.querySelector('.scroll');
    const canvas = box.querySelector('canvas');
    const [, , cw, ch] = canvas.dataset.cells.split(' ').map(Number);
    return {
      shape: canvas.dataset.shape,
      cell: Math.min(cw, ch),
      cutRows: box.scrollHeight > box.clientHeight + 1,
      sideways: box.scrollWidth > box.clientWidth + 1,
      cue: parseFloat(getComputedStyle(fig.querySelector('figcaption'), '::after').fontSize) > 0 ? 1 : 0,
      cueText: getComputedStyle(fig.querySelector('figcaption'), '::after').content,
      page: document.documentElement.scrollWidth - innerWidth,
    };
  });

describe('long sentences and small screens', () => {
  test('128 tokens at 1280 px: every row on the page, cells of 12 px or more, a cue to scroll sideways, and the keys reach the end', async () => {
    const { page, context } = await open(128, 1280);
    const seen = await figure(page);
    expect(seen).toMatchObject({ shape: '128×128', cutRows: false, sideways: true, cue: 1, page: 0 });
    expect(seen.cell).toBeGreaterThanOrEqual(12);
    expect(seen.cueText).toContain('scroll sideways');
    // The keyboard: a focused cell moved to the row's end brings the box there, and the cue goes.
    const canvas = page.locator('attention-explorer attention-steps figure[data-role="main"] canvas');
    await canvas.focus();
    await page.keyboard.press('End');
    await settled(page);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const end = await page.evaluate(() => {
      const box = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role="main"] .scroll');
      return { left: box.scrollLeft, max: box.scrollWidth - box.clientWidth };
    });
    expect(end.left).toBeGreaterThanOrEqual(end.max - 1);
    expect((await figure(page)).cue).toBe(0);
    await context.close();
  });

  test('44 tokens: whole at 1280 px (no cue); on a 375 px phone the figure scrolls, with the cue, and the page does not', async () => {
    const desk = await open(44, 1280);
    expect(await figure(desk.page)).toMatchObject({ shape: '44×44', cutRows: false, sideways: false, cue: 0, page: 0 });
    await desk.context.close();
    const phone = await open(44, 375);
    expect(await figure(phone.page)).toMatchObject({ shape: '44×44', cutRows: false, sideways: true, cue: 1, page: 0 });
    await phone.context.close();
  });
});
