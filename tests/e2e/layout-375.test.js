// Layout at the edges (web/src/heatmap/canvas.js, scroll-regions.js, styles.js): compact heatmaps'
// column labels drawn whole, inside their columns, in Chinese and with long English words; and at a
// 375 px phone width, formulas and tables that scroll sideways shade the edge with more to see and
// are named, keyboard-focusable regions.
import { describe, expect, test } from 'vitest';
import { componentPage, ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: dist/components.js and site/
const TMP = process.env.TMPDIR ?? '/tmp';

/** Runs in the page: the ink (opaque-ish pixels) of each column label's strip above the cells, in CSS px. */
function columnInk() {
  const canvas = document.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role="main"] canvas');
  const [left, top, cw] = canvas.dataset.cells.split(' ').map(Number);
  const r = devicePixelRatio;
  const cols = Math.round((parseFloat(canvas.style.width) - left) / cw);
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, Math.round(top * r)).data;
  const W = canvas.width;
  const H = Math.round(top * r);
  const strips = Array.from({ length: cols }, () => ({ x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity }));
  let outside = 0; // ink left of the first column or in no column
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      if (d[4 * (y * W + x) + 3] < 96) continue;
      const j = Math.floor((x / r - left) / cw);
      if (j < 0 || j >= cols) {
        outside++;
        continue;
      }
      const st = strips[j];
      st.x0 = Math.min(st.x0, x / r - left - j * cw);
      st.x1 = Math.max(st.x1, (x + 1) / r - left - j * cw);
      st.y0 = Math.min(st.y0, y / r);
      st.y1 = Math.max(st.y1, (y + 1) / r);
    }
  return { cw, top, strips, outside, title: canvas.title };
}

/**
 * Runs in the page: for each column's label strip, how far its ink is from the character `chars[j]`
 * drawn upright and drawn turned a quarter (mean |alpha difference| of the ink boxes, aligned at their corners).
 */
function orientation(chars) {
  const canvas = document.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role="main"] canvas');
  const [left, top, cw] = canvas.dataset.cells.split(' ').map(Number);
  const r = devicePixelRatio;
  const font = `600 ${0.65 * 16 * r}px ${getComputedStyle(canvas).getPropertyValue('--_font')}`;
  const crop = (g, w, h) => {
    const d = g.getImageData(0, 0, w, h).data;
    let [x0, y0, x1, y1] = [w, h, -1, -1];
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (d[4 * (y * w + x) + 3] > 96) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    return { at: (x, y) => (x0 + x <= x1 && y0 + y <= y1 ? d[4 * ((y0 + y) * w + x0 + x) + 3] : 0), w: x1 - x0 + 1, h: y1 - y0 + 1 };
  };
  const reference = (c, turn) => {
    const size = Math.ceil(3 * 16 * r);
    const g = new OffscreenCanvas(size, size).getContext('2d', { willReadFrequently: true });
    g.font = font;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.translate(size / 2, size / 2);
    if (turn) g.rotate(-Math.PI / 2);
    g.fillText(c, 0, 0);
    return crop(g, size, size);
  };
  const distance = (a, b) => {
    let sum = 0;
    const [w, h] = [Math.max(a.w, b.w), Math.max(a.h, b.h)];
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) sum += Math.abs(a.at(x, y) - b.at(x, y));
    return sum / (w * h);
  };
  const strip = new OffscreenCanvas(Math.ceil(cw * r), Math.ceil(top * r)).getContext('2d', { willReadFrequently: true });
  return chars.map((c, j) => {
    strip.clearRect(0, 0, strip.canvas.width, strip.canvas.height);
    strip.drawImage(canvas, Math.round((left + j * cw) * r), 0, strip.canvas.width, strip.canvas.height, 0, 0, strip.canvas.width, strip.canvas.height);
    const ink = crop(strip, strip.canvas.width, strip.canvas.height);
    return { upright: distance(ink, reference(c, false)), turned: distance(ink, reference(c, true)) };
  });
}

describe('compact heatmap column labels', () => {
  test('18 Chinese characters: every header whole and upright-sized (not a sliver), inside its column, below the canvas edge', async () => {
    const zh = '注意力机制是深度学习中非常重要的概念';
    const w = await componentPage(b.browser, s.url, `<attention-steps lang="zh-CN" sentence="${zh}" step="weights"></attention-steps>`, { selector: 'attention-steps', lang: 'zh-CN', viewport: { width: 900, height: 900 } });
    const ink = await w.page.evaluate(columnInk);
    expect(ink.strips.length).toBe(18);
    const size = 0.65 * 16; // the labels' font size (px)
    for (const [j, st] of ink.strips.entries()) {
      expect(st.x1 - st.x0, `column ${j} width`).toBeGreaterThan(0.6 * size);
      expect(st.y1 - st.y0, `column ${j} height`).toBeGreaterThan(0.6 * size);
      expect(st.x0, `column ${j}`).toBeGreaterThanOrEqual(0);
      expect(st.x1, `column ${j}`).toBeLessThanOrEqual(ink.cw);
      expect(st.y0, `column ${j} cut at the top`).toBeGreaterThan(0.5);
      expect(st.y1).toBeLessThanOrEqual(ink.top);
    }
    expect(ink.outside).toBe(0);
    // Upright, as Chinese is read: each header's pixels match the character drawn upright better than turned.
    const fits = await w.page.evaluate(orientation, [...zh]);
    // (Antialiasing makes a single glyph's comparison noisy: all but two must agree, and the sums clearly.
    // With the font named in the stack, not found by fallback, 18 of 18 agree and the sums are 0.67 apart.)
    expect(fits.filter((f) => f.upright < f.turned).length).toBeGreaterThanOrEqual(16);
    const sum = (key) => fits.reduce((a, f) => a + f[key], 0);
    expect(sum('upright')).toBeLessThan(0.75 * sum('turned'));
    await w.page.locator('attention-steps figure[data-role="main"]').screenshot({ path: `${TMP}/attention-lab-labels-zh.png` });
    await w.context.close();
  });

  test('long English words: turned, cut with … only past the band, never past the canvas edge; the full label as a tooltip', async () => {
    const words = 'internationalization characteristically incomprehensibilities a b c d e f g h i j';
    const w = await componentPage(b.browser, s.url, `<attention-steps sentence="${words}" step="weights"></attention-steps>`, { selector: 'attention-steps', viewport: { width: 900, height: 900 } });
    const ink = await w.page.evaluate(columnInk);
    expect(ink.strips.length).toBe(13);
    for (const [j, st] of ink.strips.entries()) {
      expect(st.y0, `column ${j} cut at the top`).toBeGreaterThan(0.5);
      expect(st.x0).toBeGreaterThanOrEqual(0);
      expect(st.x1).toBeLessThanOrEqual(ink.cw);
    }
    // "internationalization" (20 bold letters, about 120 px) is drawn whole, not cut at 4.5 rem (72 px).
    expect(ink.strips[0].y1 - ink.strips[0].y0).toBeGreaterThan(100);
    // Pointing at a column's label gives its full text.
    const canvas = w.page.locator('attention-steps figure[data-role="main"] canvas');
    const [left, top, cw] = (await canvas.getAttribute('data-cells')).split(' ').map(Number);
    await canvas.hover({ position: { x: left + 2.5 * cw, y: top / 2 } });
    expect(await canvas.getAttribute('title')).toBe('incomprehensibilities');
    await canvas.hover({ position: { x: left + 2.5 * cw, y: top + 5 } });
    expect(await canvas.getAttribute('title')).toBe('');
    await w.page.locator('attention-steps figure[data-role="main"]').screenshot({ path: `${TMP}/attention-lab-labels-en.png` });
    await w.context.close();
  });
});

/** Runs in the page: the scaling panel's first formula box (the variance of q·k, wider than a phone). */
const FORMULA = 'attention-explorer attention-scaling div.formula >> nth=0';

describe('375 px: what scrolls sideways says so', () => {
  for (const lang of ['en', 'zh-CN'])
    test(`${lang}: a formula wider than the phone is a named, focusable region with a shade at its right edge; the arrow keys scroll it; at 1280 px it is plain again`, async () => {
      const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 375, height: 800 }, locale: lang });
      await page.goto(`${s.url}/site/?panel=scaling&lang=${lang}`);
      await ready(page);
      const box = page.locator(FORMULA);
      await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('div.formula[role="region"]'));
      expect(await box.evaluate((n) => [n.scrollWidth > n.clientWidth, n.getAttribute('role'), n.tabIndex, n.getAttribute('aria-label')])).toEqual([true, 'region', 0, lang === 'en' ? 'Formula, scrolls sideways' : '公式，可横向滚动']);
      // The shade: the box's right edge is darker than its left edge (its surface colour) before scrolling.
      const edges = async () => {
        const shot = await box.screenshot();
        return page.evaluate(async (b64) => {
          const img = new Image();
          img.src = `data:image/png;base64,${b64}`;
          await img.decode();
          const g = new OffscreenCanvas(img.width, img.height).getContext('2d');
          g.drawImage(img, 0, 0);
          const y = Math.floor(img.height * 0.15); // above the formula's glyphs
          const at = (x) => [...g.getImageData(x, y, 1, 1).data].slice(0, 3).reduce((a, v) => a + v, 0);
          return { left: at(1), right: at(img.width - 2) };
        }, shot.toString('base64'));
      };
      const start = await edges();
      expect(start.right).toBeLessThan(start.left - 30);
      await box.focus();
      for (let k = 0; k < 8; k++) await page.keyboard.press('ArrowRight');
      expect(await box.evaluate((n) => n.scrollLeft)).toBeGreaterThan(0);
      // Scrolled to the end: the shade moves to the left edge.
      await box.evaluate((n) => (n.scrollLeft = n.scrollWidth));
      const end = await edges();
      expect(end.left).toBeLessThan(end.right - 30);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.waitForFunction(() => !document.querySelector('attention-explorer').shadowRoot.querySelector('attention-scaling').shadowRoot.querySelector('div.formula[role="region"]'));
      expect(await box.evaluate((n) => [n.getAttribute('tabindex'), n.getAttribute('aria-label')])).toEqual([null, null]);
      expect(problems.console).toEqual([]);
      await context.close();
    });

  test("the compare panel's metrics table: a region named by its caption, with the shade", async () => {
    const { page, context } = await watchedPage(b.browser, { viewport: { width: 375, height: 800 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=compare`);
    await ready(page);
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-compare').shadowRoot.querySelector('[data-scroll-region]'));
    const region = page.locator('attention-explorer attention-compare [data-scroll-region]');
    expect(await region.evaluate((n) => [n.querySelector('table.stats') !== null, n.tabIndex, n.getAttribute('aria-label').endsWith(', scrolls sideways'), getComputedStyle(n).backgroundImage.match(/radial-gradient/g)?.length])).toEqual([true, 0, true, 2]);
    await region.screenshot({ path: `${TMP}/attention-lab-table-375.png` });
    await context.close();
  });
});
