// The figures an author exports, in Chromium, in both languages: the
// PNG and SVG of a causal weight matrix carry the title, the labels, the colour legend and the
// masked cells hatched with no number (the PNG decoded and read at the SVG's coordinates); the
// PNG is at least 2× (3× on a 3× screen); "copy as LaTeX" puts the table of the page's numbers
// on the clipboard with a visible confirmation, or shows the text selected when there is no
// clipboard; the compare panel's time row reads a time, not 0 µs, in Chinese; the step tabs are
// typeset (<sub>) with readable names; the Chinese masked-step formula has no "where".
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ready, root, settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';
import heatmapStrings from '../../web/src/strings/heatmap.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' });

const MAIN = 'attention-explorer attention-steps figure[data-role="main"]';
const CAUSAL = '?s=the+cat+sat+on&mask=causal&step=weights';

async function open(query, options = {}) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...options });
  await w.page.goto(`${s.url}/${query}`);
  await ready(w.page);
  return w;
}

async function exported(page, fmt) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`${MAIN} button[data-export="${fmt}"]`).click()]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return { name: download.suggestedFilename(), bytes: Buffer.concat(chunks) };
}

/** Width and height from a PNG's IHDR chunk (bytes 16–23). */
const pngSize = (bytes) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

/** In the page: what the SVG draws where (parsed), and the PNG's pixels at those places (decoded). */
function readFigure([svgText, pngBase64, scale]) {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const box = (e) => ['x', 'y', 'width', 'height'].map((a) => Number(e.getAttribute(a)));
  const cells = [...doc.querySelectorAll('rect[data-i]')].map((r) => ({ i: Number(r.dataset.i), j: Number(r.dataset.j), masked: r.dataset.masked === 'true', fill: r.getAttribute('fill'), box: box(r) }));
  const text = (role) => [...doc.querySelectorAll(`[data-role="${role}"]`)].map((e) => e.textContent);
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => {
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      // Every pixel of a region (CSS px of the SVG, inset by 2 px) of the PNG.
      const pixels = ([x, y, w, h]) => {
        const d = g.getImageData(Math.round((x + 2) * scale), Math.round((y + 2) * scale), Math.round((w - 4) * scale), Math.round((h - 4) * scale)).data;
        const out = [];
        for (let k = 0; k < d.length; k += 4) out.push([d[k], d[k + 1], d[k + 2]]);
        return out;
      };
      const bar = box(doc.querySelector('[data-role="legend-bar"]'));
      const swatch = doc.querySelector('[data-role="legend-masked"]');
      resolve({
        svgWidth: Number(doc.documentElement.getAttribute('width')),
        cells: cells.map((cell) => ({ ...cell, pixels: pixels(cell.box) })),
        title: text('title'),
        cols: text('col-label'),
        rows: text('row-label'),
        numbers: text('number'),
        maskedLabel: text('legend-masked-label'),
        legendName: text('legend-name'),
        barEnds: [pixels([bar[0], bar[1], 6, bar[3]])[0], pixels([bar[0] + bar[2] - 6, bar[1], 6, bar[3]])[0]],
        swatch: swatch ? pixels(box(swatch)) : null,
        stops: [...doc.querySelectorAll('#scale stop')].map((st) => st.getAttribute('stop-color')),
      });
    };
    img.src = `data:image/png;base64,${pngBase64}`;
  });
}

const rgbOf = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
const near = (a, b, tol = 24) => a.every((v, k) => Math.abs(v - b[k]) <= tol);
const HATCH = [rgbOf('#9aa0a8'), rgbOf('#d9dce0')];
/** A pixel of the hatching: on the line between its two colours (anti-aliasing blends them). */
const hatchPixel = (p) => p.every((v, k) => v >= HATCH[0][k] - 12 && v <= HATCH[1][k] + 12);

describe('exported figures', () => {
  for (const lang of ['en', 'zh-CN']) {
    test(`PNG and SVG (${lang}): title, labels, legend, masked cells hatched with no number; PNG at 2×`, async () => {
      const { page, context, problems } = await open(`${CAUSAL}&lang=${lang}`, { deviceScaleFactor: 1 });
      const svg = await exported(page, 'svg');
      const png = await exported(page, 'png');
      expect(png.name).toBe('attention-weights.png');
      const title = await page.locator(`${MAIN} figcaption .name`).textContent();
      const tokens = ['the', 'cat', 'sat', 'on'];
      const fig = await page.evaluate(readFigure, [svg.bytes.toString('utf8'), png.bytes.toString('base64'), 2]);
      expect(pngSize(png.bytes).width).toBe(Math.ceil(fig.svgWidth * 2));
      expect(fig.title).toEqual([title]);
      expect(fig.cols).toEqual(tokens);
      expect(fig.rows).toEqual(tokens);
      // Causal: the 6 cells above the diagonal are masked, hatched in the PNG, with no number.
      const masked = fig.cells.filter((c) => c.masked);
      expect(masked.map((c) => [c.i, c.j])).toEqual(fig.cells.filter((c) => c.j > c.i).map((c) => [c.i, c.j]));
      for (const c of masked) {
        expect(c.pixels.every(hatchPixel)).toBe(true);
        expect(c.pixels.some((p) => near(p, HATCH[0], 8)) && c.pixels.some((p) => near(p, HATCH[1], 8))).toBe(true);
      }
      expect(fig.numbers).toHaveLength(10);
      // A visible cell's corner has its colour of the scale (the number sits in the middle).
      for (const c of fig.cells.filter((x) => !x.masked)) expect(near(c.pixels[0], rgbOf(c.fill))).toBe(true);
      // The legend: the bar runs from the scale's first colour to its last, the swatch is hatched, the words are the page's.
      expect(near(fig.barEnds[0], rgbOf(fig.stops[0]), 30)).toBe(true);
      expect(near(fig.barEnds[1], rgbOf(fig.stops.at(-1)), 30)).toBe(true);
      expect(fig.swatch.every(hatchPixel)).toBe(true);
      expect(fig.maskedLabel).toEqual([heatmapStrings[lang]['heatmap.masked']]);
      expect(fig.legendName[0]).toContain(heatmapStrings[lang]['heatmap.legend']);
      // The numbers are the page's (its table's data-value, two decimals).
      const values = await page.locator(`${MAIN} td[data-i]`).evaluateAll((tds) => tds.filter((td) => Number(td.dataset.j) <= Number(td.dataset.i)).map((td) => Number(td.dataset.value).toFixed(2)));
      expect(fig.numbers).toEqual(values);
      expect(problems.console).toEqual([]);
      await context.close();
    });
  }

  test('the PNG follows a denser screen: 3× on a 3× display', async () => {
    const { page, context } = await open(CAUSAL, { deviceScaleFactor: 3 });
    const svg = await exported(page, 'svg');
    const png = await exported(page, 'png');
    const width = Number(svg.bytes.toString('utf8').match(/<svg[^>]* width="(\d+)"/)[1]);
    expect(pngSize(png.bytes).width).toBe(Math.ceil(width * 3));
    await context.close();
  });

  test('long and Chinese labels are rotated whole; a label too long is cut and kept in full in the SVG', async () => {
    const long = 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(2);
    const { page, context } = await open(`?${new URLSearchParams({ s: `注意力 antidisestablishmentarianism ${long}`, step: 'weights', lang: 'zh-CN' })}`);
    const svg = (await exported(page, 'svg')).bytes.toString('utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const cols = [...doc.querySelectorAll('[data-role="col-label"]')];
      return { rotated: cols.map((c) => c.getAttribute('transform')?.includes('rotate(-90)')), texts: cols.map((c) => c.textContent), titles: [...doc.querySelectorAll('g > title')].map((t) => t.textContent), notes: [...doc.querySelectorAll('[data-role="note"]')].map((n) => n.textContent).join('') };
    }, svg);
    expect(parsed.rotated.every(Boolean)).toBe(true);
    expect(parsed.texts.slice(0, 4)).toEqual(['注', '意', '力', 'antidisestablishmentarianism']);
    expect(parsed.texts[4].endsWith('…')).toBe(true);
    expect(parsed.titles).toContain(long);
    expect(parsed.notes).toContain(long);
    await context.close();
  });
});

describe('copy as LaTeX', () => {
  test('the table goes to the clipboard with the page’s numbers and a visible confirmation', async () => {
    const { page, context } = await open(CAUSAL, { isolated: true }); // a permission of its own
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    const button = page.locator(`${MAIN} button[data-export="latexTable"]`);
    await expect.poll(() => button.getAttribute('aria-label')).toBe('Copy Attention weights (softmax) as a LaTeX table');
    await button.click();
    const status = page.locator(`${MAIN} [data-role="export-status"]`);
    await expect.poll(() => status.textContent()).toBe('Copied the LaTeX table of Attention weights (softmax) to the clipboard.');
    expect(await status.isVisible()).toBe(true);
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect(text).toContain('\\begin{tabular}{l|rrrr}');
    expect(text).toContain('\\footnotesize -- : masked');
    const first = await page.locator(`${MAIN} td[data-i="0"][data-j="0"]`).getAttribute('data-value');
    expect(text).toContain(`the & $${Number(first).toFixed(4)}$ & -- & -- & -- \\\\`);
    await page.locator(`${MAIN} button[data-export="latexFigure"]`).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('\\includegraphics[width=\\linewidth]{attention-weights.png}');
    await context.close();
  });

  test('without a clipboard the text is shown selected, with a line saying to copy it by hand (Chinese)', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    await w.context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
    await w.page.goto(`${s.url}/${CAUSAL}&lang=zh-CN`);
    await ready(w.page);
    await w.page.locator(`${MAIN} button[data-export="latexFigure"]`).click();
    const box = w.page.locator(`${MAIN} textarea.export-fallback`);
    await box.waitFor();
    expect(await box.isVisible()).toBe(true);
    expect(await box.inputValue()).toContain('\\includegraphics[width=\\linewidth]{attention-weights.png}');
    expect(await box.inputValue()).toContain('斜线单元格为已掩蔽。');
    const selected = await box.evaluate((t) => [t.selectionStart, t.selectionEnd, t.value.length, t.getRootNode().activeElement === t]);
    expect(selected).toEqual([0, selected[2], selected[2], true]);
    expect(await w.page.locator(`${MAIN} [data-role="export-status"]`).textContent()).toBe(heatmapStrings['zh-CN']['export.manual']);
    await w.page.locator(`${MAIN} button.export-fallback`).click();
    expect(await box.count()).toBe(0);
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });
});

describe('small wrong things', () => {
  test('the compare panel’s time row reads a time in Chinese, also after switching language (not 0 µs)', async () => {
    // 63 tokens: additive attention's call is long enough to time beside its empty call (a time is
    // shown only where the empty 1×1 call takes under 10 % of it; a dash otherwise).
    const long = Array.from({ length: 63 }, (_, i) => `w${i}`).join('+');
    const { page, context } = await open(`?panel=compare&lang=zh-CN&s=${long}`);
    const times = () =>
      page.evaluate(() => {
        const c = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-compare').shadowRoot;
        const row = [...c.querySelectorAll('table.stats tbody tr')].find((tr) => tr.querySelector('th').textContent.includes('WASM'));
        return [...row.querySelectorAll('td')].map((td) => td.textContent);
      });
    const check = (cells) => {
      expect(cells).toHaveLength(3);
      const shown = cells.filter((cell) => cell !== '—');
      expect(shown.length, cells.join(' | ')).toBeGreaterThan(0);
      for (const cell of shown) {
        const m = cell.match(/^([\d,]+(?:\.\d+)?) (ns|µs|ms)(?=[ （(])/); // then the sizes timed, in the page's language
        expect(m, cell).not.toBe(null);
        expect(Number(m[1].replaceAll(',', ''))).toBeGreaterThan(0);
      }
    };
    await settled(page);
    check(await times());
    // A warm re-render: before, each call was timed once and read 0 µs.
    for (const lang of ['en', 'zh-CN', 'en', 'zh-CN']) {
      await page.evaluate((l) => document.querySelector('attention-explorer').setAttribute('lang', l), lang);
      await ready(page);
      await page.waitForFunction((l) => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-compare').shadowRoot.querySelector('h2')?.textContent === (l === 'en' ? 'Scoring functions compared' : '评分函数的比较'), lang);
      // The times are measured when the page is idle after the render: settled says they are in.
      await settled(page);
      check(await times());
    }
    await context.close();
  });

  test('step tabs are typeset (W with a subscript Q, √d with a subscript k) with readable names; the Chinese masked formula has no "where"', async () => {
    for (const [lang, sub] of [
      ['en', 'sub'],
      ['zh-CN', '下标'],
    ]) {
      const { page, context } = await open(`?s=a+b+c&mask=causal&step=masked&lang=${lang}`);
      const tabs = await page.locator('attention-explorer attention-steps [role="tab"]').evaluateAll((list) => list.map((t) => ({ text: t.textContent, subs: [...t.querySelectorAll('sub')].map((s) => s.textContent) })));
      expect(tabs.map((t) => t.text).join(' ')).not.toContain('_');
      expect(tabs[1].subs).toEqual(['Q']);
      expect(tabs[5].subs).toEqual(['k']);
      const steps = page.locator('attention-explorer attention-steps');
      expect(await steps.getByRole('tab', { name: `Q = X W ${sub} Q` }).count()).toBe(1);
      expect(await steps.getByRole('tab', { name: `√d ${sub} k` }).count()).toBe(1);
      const formula = await page.locator('attention-explorer attention-steps #step-panel .formula annotation').textContent();
      if (lang === 'zh-CN') {
        expect(formula).not.toContain('where');
        expect(formula).toContain('\\text{，若 }');
      } else expect(formula).toContain('\\text{ where }');
      await context.close();
    }
  });
});

describe('docs/embedding.md, "Exporting figures"', () => {
  test('its CSS hides the copy buttons (downloads kept) and then the whole bar of a panel element', async () => {
    const doc = readFileSync(`${root}/docs/embedding.md`, 'utf8');
    const section = doc.slice(doc.indexOf('## Exporting figures'), doc.indexOf('## Plain HTML'));
    const css = section.match(/```css\n([\s\S]*?)```/)[1].split('\n').filter(Boolean);
    const { page, context } = await open(CAUSAL);
    const shown = (rule) =>
      page.evaluate(async (rule) => {
        document.querySelector('style[data-test]')?.remove();
        const style = Object.assign(document.createElement('style'), { textContent: rule });
        style.dataset.test = '';
        document.head.append(style);
        let steps = document.querySelector('body > attention-steps');
        if (!steps) {
          steps = Object.assign(document.createElement('attention-steps'), {});
          steps.setAttribute('sentence', 'a b c');
          steps.setAttribute('step', 'weights');
          document.body.append(steps);
          await new Promise((ok) => steps.addEventListener('attention-render', ok, { once: true }));
        }
        const bar = steps.shadowRoot.querySelector('figure[data-role="main"] .export');
        const visible = (node) => node.checkVisibility();
        return { bar: visible(bar), png: visible(bar.querySelector('[data-export="png"]')), table: visible(bar.querySelector('[data-export="latexTable"]')), label: visible(bar.querySelector('[part="copy-label"]')) };
      }, rule);
    expect(await shown('')).toEqual({ bar: true, png: true, table: true, label: true });
    expect(await shown(css.find((l) => l.includes('copy-button')))).toEqual({ bar: true, png: true, table: false, label: false });
    expect((await shown(css.find((l) => l.includes('::part(export) {')))).bar).toBe(false);
    await context.close();
  });
});
