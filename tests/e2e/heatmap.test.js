// The canvas heatmap (web/src/heatmap/): sized at the device pixel ratio, coloured with the
// scales of colors.js, masked cells hatched, hover and keyboard focus showing a cell's exact value,
// highlighted operands outlined, exports as before, and large matrices (128 tokens) drawn.
import { describe, expect, test } from 'vitest';
import { ready, settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the demo

// In the page: whether a canvas shows the shape its figure's caption names (a kept canvas shows its
// last drawing until it is drawn for a new shape).
const DRAWN_FOR_ITS_SHAPE = `window.drawnForItsShape = (canvas) => canvas.dataset.shape !== undefined && canvas.dataset.shape === canvas.closest('figure').querySelector('figcaption .shape')?.textContent.trim();
window.stepsCanvases = () => [...document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelectorAll('figure[part="heatmap"] canvas')].filter((c) => c.checkVisibility());`;

/** The steps panel's shown canvases, drawn or not: near (within a viewport's height of it) or far. */
const byDistance = (page) =>
  page.evaluate(() => {
    const all = stepsCanvases().map((c) => {
      const r = c.closest('figure').getBoundingClientRect();
      return { drawn: drawnForItsShape(c), near: r.bottom > -innerHeight && r.top < 2 * innerHeight };
    });
    return { near: all.filter((c) => c.near), far: all.filter((c) => !c.near) };
  });

async function open(query, options = {}) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US', ...options });
  await w.page.addInitScript(DRAWN_FOR_ITS_SHAPE);
  await w.page.goto(`${s.url}/${query}`);
  await ready(w.page);
  return w;
}

const MAIN = 'attention-explorer attention-steps figure[data-role="main"]';

/** Runs in the page: the figure's canvas, where cell (i, j) is, and the colour of a point in it. */
function probe([selector, i, j, dx, dy]) {
  const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
  const canvas = steps.querySelector(`${selector.replace(/^attention-explorer attention-steps /, '')} canvas`);
  const [x0, y0, w, h] = canvas.dataset.cells.split(' ').map(Number);
  const r = devicePixelRatio; // the bitmap may be larger than the drawing (kept across shapes, canvas.js)
  const x = x0 + j * w + (dx ?? w / 2);
  const y = y0 + i * h + (dy ?? h / 2);
  const rgba = [...canvas.getContext('2d').getImageData(Math.floor(x * r), Math.floor(y * r), 1, 1).data];
  return { x, y, rgba, ratio: canvas.width / parseFloat(canvas.style.width), width: canvas.width, cssWidth: parseFloat(canvas.style.width), height: canvas.height, cssHeight: parseFloat(canvas.style.height) };
}
/** In the page: the steps panel's main canvas (the same element as at the first call?), its bitmap and drawing sizes, view box and a checksum of the drawing's pixels. */
function mainCanvas() {
  const c = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role="main"] canvas');
  window.firstMain ??= c;
  const w = Math.round(parseFloat(c.style.width) * devicePixelRatio);
  const h = Math.round(parseFloat(c.style.height) * devicePixelRatio);
  let sum = 0;
  for (const v of c.getContext('2d').getImageData(0, 0, w, h).data) sum = (sum * 31 + v) % 1000000007;
  return { same: c === window.firstMain, width: c.width, height: c.height, w, h, shape: c.dataset.shape, box: getComputedStyle(c).objectViewBox, sum };
}

/** In the page: the colour at each cell's centre in a screenshot (base64 PNG) of the main canvas. */
function cellsOnScreen(png) {
  const c = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role="main"] canvas');
  const [x0, y0, w, h] = c.dataset.cells.split(' ').map(Number);
  const [rows, cols] = c.dataset.shape.split('×').map(Number);
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => {
      const shot = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height }).getContext('2d');
      shot.drawImage(img, 0, 0);
      const at = (i, j) => [...shot.getImageData(Math.floor((x0 + (j + 0.5) * w) * devicePixelRatio), Math.floor((y0 + (i + 0.5) * h) * devicePixelRatio), 1, 1).data];
      resolve(Array.from({ length: rows * cols }, (_, k) => at(Math.floor(k / cols), k % cols)));
    };
    img.src = `data:image/png;base64,${png}`;
  });
}

const near = (a, b, tol = 40) => a.slice(0, 3).every((v, k) => Math.abs(v - b[k]) <= tol);
const readout = (page, selector = MAIN) => page.locator(`${selector} .readout`).textContent();

describe('canvas heatmap', () => {
  test('drawn at the device pixel ratio (2), with the viridis scale', async () => {
    const { page, context, problems } = await open('?s=a+b+c+d&step=weights', { deviceScaleFactor: 2 });
    const p = await page.evaluate(probe, [MAIN, 0, 0]);
    expect(p.ratio).toBe(2);
    expect(p.width).toBe(Math.round(p.cssWidth * 2));
    expect(p.height).toBe(Math.round(p.cssHeight * 2));
    // Row 0 of the weights without a mask: every weight in (0, 1): a viridis colour, opaque.
    expect(p.rgba[3]).toBe(255);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('masked cells are hatched in grey; the legend shows the masked key', async () => {
    const { page, context } = await open('?s=a+b+c+d&mask=causal&step=masked');
    // Cell (0, 3) is masked: its pixels are the two hatch greys, not a scale colour.
    const seen = [];
    for (let d = 2; d < 14; d += 1) seen.push((await page.evaluate(probe, [MAIN, 0, 3, d, 8])).rgba);
    expect(seen.some((c) => near(c, [0x9a, 0xa0, 0xa8], 12))).toBe(true);
    expect(seen.some((c) => near(c, [0xd9, 0xdc, 0xe0], 12))).toBe(true);
    expect(await page.locator(`${MAIN} .legend .masked-key`).count()).toBe(1);
    // The table says so too.
    expect(await page.locator(`${MAIN} td[data-i="0"][data-j="3"]`).getAttribute('class')).toContain('masked');
    await context.close();
  });

  test('hover shows the exact value; the operands get the row and column outlined', async () => {
    const { page, context } = await open('?s=a+b+c+d&step=scores');
    const canvas = page.locator(`${MAIN} canvas`);
    const cell = await page.evaluate(probe, [MAIN, 1, 3]);
    await canvas.hover({ position: { x: cell.x, y: cell.y } });
    const value = await page.locator(`${MAIN} td[data-i="1"][data-j="3"]`).getAttribute('data-value');
    const text = await readout(page);
    expect(text).toContain('[2][4] (b → d)'); // counted from 1 on the page
    expect(text).toContain(`= ${String(Number(Number(value).toPrecision(9))).replace('-', '−').slice(0, 6)}`);
    // Q's row 1 is outlined in the highlight colour (#d1008f) on its canvas, row 0 is not.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const q = '.operands figure';
    const lit = await page.evaluate(probe, [q, 1, 0, 2, 8]);
    const plain = await page.evaluate(probe, [q, 0, 0, 2, 8]);
    expect(near(lit.rgba, [0xd1, 0x00, 0x8f])).toBe(true);
    expect(near(plain.rgba, [0xd1, 0x00, 0x8f])).toBe(false);
    await context.close();
  });

  test('keyboard: the focused cell moves with the arrow keys and the readout follows', async () => {
    const { page, context } = await open('?s=a+b+c+d&step=scores');
    await page.locator(`${MAIN} td[data-i="0"][data-j="0"]`).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const focused = await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      const td = steps.activeElement;
      return [td.dataset.i, td.dataset.j, td.tabIndex];
    });
    expect(focused).toEqual(['1', '2', 0]);
    // Rows and columns are counted from 1 on the page (the cell's data-i, data-j from 0).
    expect(await readout(page)).toContain('[2][3] (b → c)');
    // The canvas outlines the focused cell in the focus colour (#c2410c), just outside it.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const ring = await page.evaluate(probe, [MAIN, 1, 2, -1, 10]);
    expect(near(ring.rgba, [0xc2, 0x41, 0x0c])).toBe(true);
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.activeElement.dataset.j)).toBe('3');
    await context.close();
  });

  test('128 tokens: a 128×128 canvas with a table of headers only, focusable, its cells read out on hover and by keyboard', async () => {
    // One CJK character per token, so 128 tokens fit in the sentence's 400 characters.
    const sentence = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' ');
    const { page, context, problems } = await open(`?s=${encodeURIComponent(sentence)}&dm=64&dk=16&h=4&mask=causal&step=weights`);
    expect(await page.locator(`${MAIN} .shape`).textContent()).toBe(' 128×128');
    expect(await page.locator(`${MAIN} td[data-i]`).count()).toBe(0);
    expect(await page.locator(`${MAIN} tbody th[scope="row"]`).count()).toBe(128);
    expect(await page.locator(`${MAIN} thead th[scope="col"]`).count()).toBe(128);
    const canvas = page.locator(`${MAIN} canvas`);
    expect(await canvas.getAttribute('role')).toBe('img');
    expect(await canvas.getAttribute('aria-label')).toContain('128×128');
    // Drawn: the diagonal cell (5, 5) has a scale colour, the masked (5, 100) the hatching.
    expect((await page.evaluate(probe, [MAIN, 5, 5])).rgba[3]).toBe(255);
    const cell = await page.evaluate(probe, [MAIN, 100, 7]);
    await canvas.hover({ position: { x: cell.x, y: cell.y } });
    expect(await readout(page)).toContain(`[101][8] (${String.fromCharCode(0x4e00 + 100)} → ${String.fromCharCode(0x4e00 + 7)}) = `);
    await canvas.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowDown');
    expect(await readout(page)).toContain('[2][128]');
    expect(await readout(page)).toContain('= 0 (masked)');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the long-sequences panel draws a full 1,024×1,024 weight matrix when its section is opened', async () => {
    const { page, context, problems } = await open('?panel=cost');
    const cost = page.locator('attention-explorer attention-cost');
    expect(await cost.locator('[data-role="long-weights"] figure').count()).toBe(0);
    await cost.locator('[data-role="long-weights"] > summary').click();
    await ready(page);
    const figure = cost.locator('figure[data-matrix="full-1024"]');
    expect(await figure.locator('.shape').textContent()).toBe(' 1024×1024');
    const canvas = figure.locator('canvas');
    const geometry = await canvas.evaluate((c) => ({ cells: c.dataset.cells.split(' ').map(Number), width: c.width, css: parseFloat(c.style.width) }));
    expect(geometry.width).toBeGreaterThanOrEqual(1024);
    const [x0, y0, w, h] = geometry.cells;
    // Row 500's weights: drawn (opaque), and the readout gives one of them exactly.
    const pixel = await canvas.evaluate((c, [x, y]) => [...c.getContext('2d').getImageData(Math.floor(x * devicePixelRatio), Math.floor(y * devicePixelRatio), 1, 1).data], [x0 + 10.5 * w, y0 + 500.5 * h]);
    expect(pixel[3]).toBe(255);
    await canvas.hover({ position: { x: x0 + 10.5 * w, y: y0 + 50.5 * h } });
    expect(await figure.locator('.readout').textContent()).toMatch(/\[51\]\[11\] \(51 → 11\) = \d/); // counted from 1
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a light/dark switch while the page is open redraws the canvases in the new colours', async () => {
    const { page, problems, context } = await open('?s=the%20cat%20sat&step=weights', { colorScheme: 'light' });
    const pixels = () =>
      page.evaluate(() => {
        const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
        return steps.querySelector('figure[data-role="main"] canvas').toDataURL();
      });
    const light = await pixels();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction((before) => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      return steps.querySelector('figure[data-role="main"] canvas').toDataURL() !== before;
    }, light);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(async (before) => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      return steps.querySelector('figure[data-role="main"] canvas').toDataURL() === before;
    }, light);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a new --attn-cell-size or --attn-font, a resize across the narrow layout, or drawAll() draws the canvases again in the new sizes', async () => {
    const { page, problems, context } = await open('?s=the%20cat%20sat&step=weights');
    // Runs in the page: the main heatmap's cell pitch (CSS px) and its pixels.
    const drawing = () =>
      page.evaluate(() => {
        const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
        const canvas = steps.querySelector('figure[data-role="main"] canvas');
        return { cw: Number(canvas.dataset.cells.split(' ')[2]), pixels: canvas.toDataURL() };
      });
    const first = await drawing();
    expect(first.cw).toBe(Math.round(2.6 * 16)); // the default --attn-cell-size, 2.6rem
    // The page sets the knobs on <html> while open (a style attribute, as a tutorial's settings might).
    await page.evaluate(() => document.documentElement.style.setProperty('--attn-cell-size', '4rem'));
    await expect.poll(async () => (await drawing()).cw).toBe(64);
    const wide = await drawing();
    await page.evaluate(() => document.documentElement.style.setProperty('--attn-font', 'serif'));
    await expect.poll(async () => (await drawing()).pixels).not.toBe(wide.pixels);
    await page.evaluate(() => document.documentElement.removeAttribute('style'));
    await expect.poll(async () => (await drawing()).cw).toBe(first.cw);
    // A phone's width: the narrow layout's default cell (2.3rem), drawn after the resize, not at the next render.
    await page.setViewportSize({ width: 420, height: 900 });
    await expect.poll(async () => (await drawing()).cw).toBe(Math.round(2.3 * 16));
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect.poll(async () => (await drawing()).cw).toBe(first.cw);
    // A knob set where no watcher looks (on the element itself): drawAll() draws it at once.
    const cw = await page.evaluate(() => {
      const explorer = document.querySelector('attention-explorer');
      explorer.style.setProperty('--attn-cell-size', '3rem');
      explorer.drawAll();
      const steps = explorer.shadowRoot.querySelector('attention-steps').shadowRoot;
      return Number(steps.querySelector('figure[data-role="main"] canvas').dataset.cells.split(' ')[2]);
    });
    expect(cw).toBe(48);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a language switch draws again only the heatmaps whose texts depend on the language', async () => {
    // Runs in the page: every canvas drawing (one drawImage of the cells each) is counted per canvas.
    const count = () =>
      page.evaluate(() => {
        const proto = CanvasRenderingContext2D.prototype;
        if (!proto.counted) {
          const drawImage = proto.drawImage;
          proto.counted = new WeakMap();
          proto.drawImage = function (...args) {
            proto.counted.set(this.canvas, (proto.counted.get(this.canvas) ?? 0) + 1);
            return drawImage.apply(this, args);
          };
        }
        const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
        const canvas = steps.querySelector('figure[data-role="main"] canvas');
        return { drawn: proto.counted.get(canvas) ?? 0, pixels: canvas.toDataURL() };
      });
    const switchTo = async (lang) => {
      await page.selectOption('#lang', lang);
      await page.locator('attention-explorer attention-steps h2').filter({ hasText: lang === 'en' ? 'Self-attention' : '自注意力' }).waitFor();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
    };
    let page;
    let context;
    // ASCII tokens: drawn the same in both languages, so not drawn again.
    ({ page, context } = await open('?s=the+cat+sat&step=weights'));
    const before = await count();
    await switchTo('zh-CN');
    const after = await count();
    expect(after.drawn).toBe(before.drawn);
    expect(after.pixels).toBe(before.pixels);
    // New numbers (another seed) are drawn.
    await page.locator('attention-explorer').evaluate((e) => e.setAttribute('seed', '7'));
    await expect.poll(async () => (await count()).drawn).toBeGreaterThan(after.drawn);
    await context.close();
    // Negative numbers in the cells are drawn with U+2212 (not ASCII: a fallback font may depend on the language).
    ({ page, context } = await open('?s=the+cat+sat&step=scores'));
    await page.locator(`${MAIN} td[data-i][data-value^="-"]`).first().waitFor({ state: 'attached' });
    const scores = await count();
    await switchTo('zh-CN');
    expect((await count()).drawn).toBeGreaterThan(scores.drawn);
    await context.close();
    // Chinese tokens: their glyphs follow the language (Han characters), so drawn again.
    ({ page, context } = await open('?s=%E6%88%91%E7%88%B1%E4%BD%A0&step=weights&lang=zh-CN'));
    const zh = await count();
    await switchTo('en');
    expect((await count()).drawn).toBeGreaterThan(zh.drawn);
    await context.close();
  });

  test('a new shape in a kept slot far off screen is drawn when a scroll brings it near, not in the change’s frame nor when idle', async () => {
    // In a 240 px viewport every figure of the scores step starts more than a viewport's height below it.
    const { page, context, problems } = await open('?s=a+b+c+d+e+f&dm=16&dk=4&h=2&step=scores', { viewport: { width: 1280, height: 240 } });
    await settled(page);
    const drawn = await page.evaluate(async () => {
      const explorer = document.querySelector('attention-explorer');
      const steps = explorer.shadowRoot.querySelector('attention-steps');
      const done = new Promise((r) => steps.addEventListener('attention-render', r, { once: true }));
      explorer.setAttribute('d-k', '5');
      await done;
      // A callback queued after the render runs after the heatmaps' own, in the change's frame.
      const inFrame = await new Promise((r) => requestAnimationFrame(() => r(stepsCanvases().map(drawnForItsShape))));
      return { inFrame, shapes: stepsCanvases().map((c) => c.closest('figure').querySelector('figcaption')?.textContent ?? c.closest('figure').className) };
    });
    // The scores' operands Q and K (n × d_k) take a new shape.
    expect(drawn.shapes.filter((name) => name.endsWith('6×5'))).toHaveLength(2);
    expect(drawn.inFrame).not.toContain(true);
    await settled(page);
    const after = await byDistance(page);
    expect(after.near).toEqual([]);
    expect(after.far.filter((c) => c.drawn)).toEqual([]);
    // Scrolled to, the last one (K) is drawn; drawAll() draws the rest.
    await page.evaluate(() => stepsCanvases().at(-1).scrollIntoView());
    await page.waitForFunction(() => drawnForItsShape(stepsCanvases().at(-1)));
    await page.evaluate(() => document.querySelector('attention-explorer').drawAll());
    expect(await page.evaluate(() => stepsCanvases().every(drawnForItsShape))).toBe(true);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('after a change, only the new figures in view are drawn in its frame; those near it follow, the far ones when scrolled to', async () => {
    // 8 heads at 32 tokens, the concat step: the main figure starts at the foot of a 900 px
    // viewport, the heads' outputs (new shapes after a d_k change) within a viewport below it.
    const words = Array.from({ length: 32 }, (_, i) => `w${i}`).join('+');
    const { page, context, problems } = await open(`?s=${words}&dm=64&dk=8&h=8&step=concat`, { viewport: { width: 1280, height: 900 } });
    const seen = await page.evaluate(async () => {
      const explorer = document.querySelector('attention-explorer');
      const steps = explorer.shadowRoot.querySelector('attention-steps');
      const done = new Promise((r) => steps.addEventListener('attention-render', r, { once: true }));
      explorer.setAttribute('d-k', '7');
      await done;
      const canvases = [...steps.shadowRoot.querySelectorAll('figure[part="heatmap"] canvas')].filter((c) => c.checkVisibility());
      const inFrame = await new Promise((r) => requestAnimationFrame(() => r(canvases.map((c) => ({ drawn: drawnForItsShape(c), top: c.closest('figure').getBoundingClientRect().top })))));
      return { inFrame, height: innerHeight };
    });
    const inView = seen.inFrame.filter((c) => c.top < seen.height);
    const near = seen.inFrame.filter((c) => c.top >= seen.height && c.top < 2 * seen.height);
    expect(inView.length).toBeGreaterThan(0);
    expect(near.length).toBeGreaterThan(0);
    expect(inView.every((c) => c.drawn)).toBe(true);
    expect(near.filter((c) => c.drawn)).toEqual([]);
    await settled(page);
    // Once settled: those within a viewport's height drawn, the farther ones (the last heads'
    // outputs) not, until a scroll brings one near or drawAll() draws them all.
    const after = await byDistance(page);
    expect(after.near.every((c) => c.drawn)).toBe(true);
    expect(after.far.length).toBeGreaterThan(0);
    expect(after.far.filter((c) => c.drawn)).toEqual([]);
    await page.evaluate(() => stepsCanvases().at(-1).scrollIntoView());
    await page.waitForFunction(() => drawnForItsShape(stepsCanvases().at(-1)));
    await page.evaluate(() => document.querySelector('attention-explorer').drawAll());
    expect(await page.evaluate(() => stepsCanvases().every(drawnForItsShape))).toBe(true);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a kept figure given a new shape keeps its canvas, and its bitmap while the drawing fits: cropped on screen, the same pixels as on a fresh page', async () => {
    // The Q step's main figure is n × d_k: a smaller d_k fits in the bitmap drawn for d_k = 6.
    const { page, context, problems } = await open('?s=a+b+c+d+e+f&dm=16&dk=6&step=Q');
    await settled(page);
    const first = await page.evaluate(mainCanvas);
    await page.evaluate(() => document.querySelector('attention-explorer').setAttribute('d-k', '4'));
    await settled(page);
    const narrower = await page.evaluate(mainCanvas);
    expect(narrower).toMatchObject({ same: true, shape: '6×4', width: first.width, height: first.height });
    expect(narrower.w).toBeLessThan(first.w);
    expect(narrower.box).toBe(`inset(0px ${first.width - narrower.w}px ${first.height - narrower.h}px 0px)`);
    // The drawing in the kept bitmap is the one a page opened at d_k = 4 draws, and the screen shows it.
    const fresh = await open('?s=a+b+c+d+e+f&dm=16&dk=4&step=Q');
    await settled(fresh.page);
    const exact = await fresh.page.evaluate(mainCanvas);
    expect(exact).toMatchObject({ width: narrower.w, height: narrower.h, sum: narrower.sum });
    expect(exact.box).toMatch(/^inset\(0px( 0px)*\)$/);
    const shot = async (p) => p.evaluate(cellsOnScreen, (await p.locator(`${MAIN} canvas`).screenshot()).toString('base64'));
    const onScreen = await shot(page);
    expect(onScreen).toHaveLength(24);
    expect(onScreen.every((rgba) => rgba[3] === 255)).toBe(true);
    expect(onScreen).toEqual(await shot(fresh.page));
    // Outgrown: a new bitmap, with room for a few more columns and rows.
    await page.evaluate(() => document.querySelector('attention-explorer').setAttribute('d-k', '8'));
    await settled(page);
    const wider = await page.evaluate(mainCanvas);
    expect(wider).toMatchObject({ same: true, shape: '6×8', width: Math.ceil(wider.w * 1.25), height: Math.ceil(wider.h * 1.25) });
    // Outgrown in height only (more tokens, a smaller d_k): the new bitmap keeps the wider width.
    await page.evaluate(() => {
      const explorer = document.querySelector('attention-explorer');
      explorer.setAttribute('d-k', '4');
      explorer.setAttribute('sentence', 'a b c d e f g h i j');
    });
    await settled(page);
    const taller = await page.evaluate(mainCanvas);
    expect(taller.h).toBeGreaterThan(wider.height);
    expect(taller).toMatchObject({ same: true, shape: '10×4', width: wider.width, height: Math.ceil(taller.h * 1.25) });
    expect(problems.console).toEqual([]);
    expect(fresh.problems.console).toEqual([]);
    await fresh.context.close();
    await context.close();
  });

  test('without object-view-box (Firefox, Safari) the bitmap is always the drawing\'s size', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.addInitScript(() => {
      const supports = CSS.supports.bind(CSS);
      CSS.supports = (...a) => (a[0] === 'object-view-box' ? false : supports(...a));
    });
    await page.goto(`${s.url}/?s=a+b+c+d+e+f&dm=16&dk=6&step=Q`);
    await ready(page);
    await settled(page);
    const first = await page.evaluate(mainCanvas);
    await page.evaluate(() => document.querySelector('attention-explorer').setAttribute('d-k', '4'));
    await settled(page);
    const narrower = await page.evaluate(mainCanvas);
    expect(first).toMatchObject({ width: first.w, height: first.h, box: 'none' });
    expect(narrower).toMatchObject({ same: true, shape: '6×4', width: narrower.w, height: narrower.h, box: 'none' });
    expect(narrower.w).toBeLessThan(first.w);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('exports: the CSV holds the cells the table holds', async () => {
    const { page, context } = await open('?s=a+b+c&step=weights');
    const values = await page.locator(`${MAIN} td[data-i]`).evaluateAll((tds) => tds.map((td) => td.dataset.value));
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`${MAIN} .export button`).nth(2).click()]);
    expect(download.suggestedFilename()).toBe('attention-weights.csv');
    const chunks = [];
    for await (const c of await download.createReadStream()) chunks.push(c); // the browser may be another process's (a path is not)
    const csv = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    expect(csv[0]).toBe('"","a","b","c"');
    expect(csv.slice(1).flatMap((line) => line.split(',').slice(1))).toEqual(values);
    await context.close();
  });
});
