// Theme, print and capture (web/src/styles.js, base.js, heatmap/frame.js): the default theme
// follows the page's colour scheme (a class-themed blog's html.dark { color-scheme: dark }, or the
// OS for a page with color-scheme: light dark, light for a page that declares none), the theme
// attribute overrides it, the canvases, KaTeX and charts take the new colours when it changes;
// every heatmap is drawn for a full-page capture or a print, and print hides the controls.
import { describe, expect, test } from 'vitest';
import { settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: dist/components.js

const DARK = { bg: 'rgb(22, 24, 28)', muted: 'rgb(180, 186, 196)', fg: 'rgb(236, 238, 241)' };
const LIGHT = { bg: 'rgb(255, 255, 255)', muted: 'rgb(74, 79, 87)', fg: 'rgb(26, 26, 26)' };

/** A page with `head` (styles) and `body`, `htmlClass` on <html>; resolves once every element has rendered. */
async function open({ head = '', body, htmlClass = '', colorScheme = 'light', viewport = { width: 1000, height: 800 } }) {
  const w = await watchedPage(b.browser, { viewport, locale: 'en-US', colorScheme });
  const url = `${s.url}/__theme-${Math.random().toString(36).slice(2)}.html`;
  const html = `<!doctype html><html lang="en" class="${htmlClass}"><head><meta charset="utf-8"><title>theme</title>${head}<script type="module" src="/dist/components.js"></script></head><body>${body}</body></html>`;
  await w.page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  await w.page.goto(url);
  await allReady(w.page);
  return w;
}
const allReady = (page) => page.waitForFunction(() => [...document.querySelectorAll('body > [data-el]')].every((el) => 'ready' in el.dataset));

/** Runs in the page: the element's colours as drawn (panel, canvas label colour, KaTeX, an SVG chart's text). */
function colours(selector) {
  const el = document.querySelector(selector);
  const sh = el.shadowRoot;
  const canvas = sh.querySelector('canvas');
  const katex = sh.querySelector('.katex');
  const chartText = sh.querySelector('.chart text');
  return {
    scheme: el.colorScheme,
    bg: getComputedStyle(sh.querySelector('.root')).backgroundColor,
    canvas: canvas && getComputedStyle(canvas).color,
    katex: katex && getComputedStyle(katex).color,
    chart: chartText && getComputedStyle(chartText).fill,
    image: canvas?.toDataURL(),
  };
}

/** Runs in the page: [r, g, b] of the first label pixel drawn in a canvas's row-label area that is fully opaque. */
function labelInk(selector) {
  const canvas = document.querySelector(selector).shadowRoot.querySelector('canvas');
  const [left, top] = canvas.dataset.cells.split(' ').map(Number);
  const r = canvas.width / parseFloat(canvas.style.width);
  const d = canvas.getContext('2d').getImageData(0, Math.round(top * r), Math.round(left * r), Math.round(20 * r)).data;
  for (let k = 0; k < d.length; k += 4) if (d[k + 3] === 255) return [d[k], d[k + 1], d[k + 2]];
  return null;
}
const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const close = (a, b, tol = 6) => a.every((v, k) => Math.abs(v - b[k]) <= tol);

const STEPS = '<attention-steps data-el sentence="the cat sat" step="scores"></attention-steps>';
const RECIPE = '<style>html.dark { color-scheme: dark } html.dark body { background: #111; color: #eee }</style>';

describe('theme', () => {
  test('a class-themed blog: html.dark with the one-line recipe gives dark panels, canvases and formulas (OS light); removing the class gives light ones, redrawn', async () => {
    const { page, context, problems } = await open({ head: RECIPE, htmlClass: 'dark', body: STEPS + '<attention-scaling data-el></attention-scaling>', colorScheme: 'light' });
    const dark = await page.evaluate(colours, 'attention-steps');
    expect(dark).toMatchObject({ scheme: 'dark', bg: DARK.bg, canvas: DARK.muted, katex: DARK.fg });
    expect(await page.evaluate(colours, 'attention-scaling')).toMatchObject({ scheme: 'dark', chart: DARK.fg });
    expect(close(await page.evaluate(labelInk, 'attention-steps'), rgb(DARK.muted))).toBe(true);
    // The reader's toggle: the class goes, the canvas is drawn again in the light colours.
    await page.evaluate(() => document.documentElement.classList.remove('dark'));
    await page.waitForFunction((before) => document.querySelector('attention-steps').shadowRoot.querySelector('canvas').toDataURL() !== before, dark.image);
    expect(await page.evaluate(colours, 'attention-steps')).toMatchObject({ scheme: 'light', bg: LIGHT.bg, canvas: LIGHT.muted, katex: LIGHT.fg });
    expect(close(await page.evaluate(labelInk, 'attention-steps'), rgb(LIGHT.muted))).toBe(true);
    expect(await page.evaluate(colours, 'attention-scaling')).toMatchObject({ chart: LIGHT.fg });
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a light blog (no color-scheme) read with the OS in dark mode: light panels', async () => {
    const { page, context } = await open({ body: STEPS, colorScheme: 'dark' });
    expect(await page.evaluate(colours, 'attention-steps')).toMatchObject({ scheme: 'light', bg: LIGHT.bg, canvas: LIGHT.muted, katex: LIGHT.fg });
    await context.close();
  });

  test('a page with color-scheme: light dark follows the OS, and the canvases follow a switch', async () => {
    const { page, context } = await open({ head: '<style>:root { color-scheme: light dark }</style>', body: STEPS, colorScheme: 'dark' });
    const dark = await page.evaluate(colours, 'attention-steps');
    expect(dark).toMatchObject({ scheme: 'dark', bg: DARK.bg, canvas: DARK.muted });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction((before) => document.querySelector('attention-steps').shadowRoot.querySelector('canvas').toDataURL() !== before, dark.image);
    expect(await page.evaluate(colours, 'attention-steps')).toMatchObject({ scheme: 'light', bg: LIGHT.bg, canvas: LIGHT.muted });
    expect(close(await page.evaluate(labelInk, 'attention-steps'), rgb(LIGHT.muted))).toBe(true);
    await context.close();
  });

  test('theme="light" and theme="dark" override the page; the explorer passes its theme to its panels; an unknown theme is noted', async () => {
    const body = `<attention-steps data-el id="light" theme="light" sentence="a b"></attention-steps><attention-explorer data-el theme="dark" sentence="a b"></attention-explorer><attention-steps data-el id="odd" theme="blue" sentence="a b"></attention-steps>`;
    const { page, context, problems } = await open({ head: RECIPE, htmlClass: 'dark', body, colorScheme: 'dark' });
    expect(await page.evaluate(colours, '#light')).toMatchObject({ scheme: 'light', bg: LIGHT.bg, canvas: LIGHT.muted, katex: LIGHT.fg });
    const panel = await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
      return { scheme: steps.colorScheme, bg: getComputedStyle(steps.shadowRoot.querySelector('.root')).backgroundColor, canvas: getComputedStyle(steps.shadowRoot.querySelector('canvas')).color };
    });
    expect(panel).toEqual({ scheme: 'dark', bg: DARK.bg, canvas: DARK.muted });
    // Property and attribute agree; a change redraws the canvas.
    const before = await page.evaluate(colours, '#light');
    await page.evaluate(() => (document.querySelector('#light').theme = 'dark'));
    await page.waitForFunction((img) => document.querySelector('#light').shadowRoot.querySelector('canvas').toDataURL() !== img, before.image);
    expect(await page.evaluate(() => [document.querySelector('#light').getAttribute('theme'), document.querySelector('#light').theme])).toEqual(['dark', 'dark']);
    expect(await page.evaluate(colours, '#light')).toMatchObject({ scheme: 'dark', canvas: DARK.muted });
    // theme="blue": used as auto (dark here), and said so.
    expect(await page.evaluate(() => document.querySelector('#odd').theme)).toBe('auto');
    expect(await page.locator('#odd [data-role="out-of-range"]').textContent()).toContain('theme: blue → auto');
    expect(problems.console).toEqual([]);
    await context.close();
  });
});

const MANY = Array.from({ length: 8 }, (_, k) => `<attention-steps data-el sentence="a b c d e f g" step="weights" seed="${k}"></attention-steps>`).join('');

describe('print and full-page capture', () => {
  test('drawAll(): every heatmap, on screen or far below it, is drawn at once after attention-render (before the idle follow-up)', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1000, height: 700 } });
    const url = `${s.url}/__capture.html`;
    // On the last element's first render, before any frame or idle time: blank canvases, then drawAll().
    const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="/dist/components.js"></script><script type="module">
      const drawn = () => [...document.querySelectorAll('attention-steps')].map((el) => {
        const c = el.shadowRoot.querySelector('canvas');
        if (!c.width || !c.dataset.cells) return false;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let k = 3; k < d.length; k += 4) if (d[k] === 255) return true;
        return false;
      });
      let n = 0;
      document.addEventListener('attention-render', (e) => {
        if (++n < 8) return;
        const before = drawn();
        e.target.drawAll();
        window.__flags = { before, after: drawn() };
      });
    </script></head><body>${MANY}</body></html>`;
    await w.page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
    await w.page.goto(url);
    await w.page.waitForFunction(() => window.__flags);
    const flags = await w.page.evaluate(() => window.__flags);
    expect(flags.before).toEqual(Array(8).fill(false));
    expect(flags.after).toEqual(Array(8).fill(true));
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });

  test('a full-page screenshot after drawAll() shows every heatmap drawn, also those far off screen after a theme switch', async () => {
    const { page, context } = await open({ head: '<style>:root { color-scheme: light dark }</style>', body: MANY, colorScheme: 'light', viewport: { width: 1000, height: 700 } });
    const before = await page.evaluate(() => [...document.querySelectorAll('attention-steps')].map((el) => el.shadowRoot.querySelector('canvas').toDataURL()));
    await page.emulateMedia({ colorScheme: 'dark' });
    // On screen and near it: drawn again in the dark colours at once, or when the page is idle.
    const near = await page.evaluate(() => [...document.querySelectorAll('attention-steps')].map((el) => el.shadowRoot.querySelector('figure').getBoundingClientRect().top < 2 * innerHeight));
    expect(near).toContain(true);
    expect(near).toContain(false);
    await page.waitForFunction(([old, near]) => [...document.querySelectorAll('attention-steps')].every((el, k) => !near[k] || el.shadowRoot.querySelector('canvas').toDataURL() !== old[k]), [before, near]);
    await settled(page);
    const changed = await page.evaluate((old) => [...document.querySelectorAll('attention-steps')].map((el, k) => el.shadowRoot.querySelector('canvas').toDataURL() !== old[k]), before);
    expect(changed.filter((c, k) => !near[k])).not.toContain(true); // far below: not drawn until a scroll brings them near
    // A full-page capture draws them first (docs/embedding.md).
    await page.evaluate(() => document.querySelector('attention-steps').drawAll());
    expect(await page.evaluate((old) => [...document.querySelectorAll('attention-steps')].every((el, k) => el.shadowRoot.querySelector('canvas').toDataURL() !== old[k]), before)).toBe(true);
    const shot = await page.screenshot({ fullPage: true, path: `${process.env.TMPDIR ?? '/tmp'}/attention-lab-theme-fullpage.png` });
    // Each canvas's area in the capture holds its cells' colours, not the panel's background.
    const filled = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = new OffscreenCanvas(img.width, img.height);
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return [...document.querySelectorAll('attention-steps')].map((el) => {
        const canvas = el.shadowRoot.querySelector('canvas');
        const box = canvas.getBoundingClientRect();
        const [left, top, cw, ch] = canvas.dataset.cells.split(' ').map(Number);
        const x = Math.round(box.left + scrollX + left + cw / 2);
        const y = Math.round(box.top + scrollY + top + ch / 2);
        const [r, gr, bl] = g.getImageData(x, y, 1, 1).data;
        return [r, gr, bl];
      });
    }, shot.toString('base64'));
    expect(filled.length).toBe(8);
    // The dark panel is rgb(22, 24, 28); a viridis cell is not.
    for (const px of filled) expect(close(px, [22, 24, 28], 10)).toBe(false);
    await context.close();
  });

  test('print media: controls, export buttons and other steps hidden, a heatmap kept on one page, canvases in the light colours', async () => {
    const { page, context } = await open({ head: RECIPE, htmlClass: 'dark', body: STEPS + '<attention-explorer data-el sentence="a b c"></attention-explorer>' });
    const shown = (sel) =>
      page.evaluate((q) => {
        const steps = document.querySelector('attention-steps').shadowRoot;
        const explorer = document.querySelector('attention-explorer').shadowRoot;
        return [...steps.querySelectorAll(q), ...explorer.querySelectorAll(q)].map((n) => getComputedStyle(n).display !== 'none');
      }, sel);
    expect((await shown('.export, .stepper button, form.controls')).some(Boolean)).toBe(true);
    const before = await page.evaluate(colours, 'attention-steps');
    await page.emulateMedia({ media: 'print' });
    await page.waitForFunction((img) => document.querySelector('attention-steps').shadowRoot.querySelector('canvas').toDataURL() !== img, before.image);
    expect(await shown('.export, .stepper button, form.controls, .readout')).not.toContain(true);
    expect(await shown('[role="tab"][aria-selected="true"]')).not.toContain(false);
    expect(await shown('[role="tab"][aria-selected="false"]')).not.toContain(true);
    const figure = await page.evaluate(() => getComputedStyle(document.querySelector('attention-steps').shadowRoot.querySelector('figure.heatmap')).breakInside);
    expect(figure).toBe('avoid');
    expect(await page.evaluate(colours, 'attention-steps')).toMatchObject({ bg: LIGHT.bg, canvas: LIGHT.muted });
    expect(close(await page.evaluate(labelInk, 'attention-steps'), rgb(LIGHT.muted))).toBe(true);
    await page.pdf({ path: `${process.env.TMPDIR ?? '/tmp'}/attention-lab-theme-print.pdf` });
    // Back on screen: the dark colours again.
    await page.emulateMedia({ media: 'screen' });
    await page.waitForFunction(() => getComputedStyle(document.querySelector('attention-steps').shadowRoot.querySelector('canvas')).color === 'rgb(180, 186, 196)');
    await page.waitForFunction((img) => document.querySelector('attention-steps').shadowRoot.querySelector('canvas').toDataURL() === img, before.image);
    await context.close();
  });

  test('beforeprint (window.print()) draws every heatmap that waits, at once', async () => {
    const { page, context } = await open({ body: MANY, viewport: { width: 1000, height: 700 } });
    // Make every canvas wait: a new seed on each, then beforeprint in the same task.
    const drawn = await page.evaluate(() => {
      const old = [...document.querySelectorAll('attention-steps')].map((el) => el.shadowRoot.querySelector('canvas').toDataURL());
      return new Promise((done) => {
        let n = 0;
        document.addEventListener('attention-render', () => {
          if (++n < 8) return;
          dispatchEvent(new Event('beforeprint'));
          done([...document.querySelectorAll('attention-steps')].map((el, k) => el.shadowRoot.querySelector('canvas').toDataURL() !== old[k]));
        });
        document.querySelectorAll('attention-steps').forEach((el, k) => el.setAttribute('seed', String(100 + k)));
      });
    });
    expect(drawn).toEqual(Array(8).fill(true));
    await context.close();
  });
});

describe('the theme row of config.js, its type and its documentation', () => {
  test('LOOK_FIELDS theme: no URL key; components.d.ts and docs/embedding.md list its choices', async () => {
    const { readFileSync } = await import('node:fs');
    const { LOOK_FIELDS, URL_KEYS } = await import('../../web/src/config.js');
    const theme = LOOK_FIELDS.find((f) => f.attribute === 'theme');
    expect(theme).toMatchObject({ type: 'choice', default: 'auto' });
    expect(URL_KEYS.map(([field]) => field)).not.toContain('theme');
    const dts = readFileSync(new URL('../../web/src/components.d.ts', import.meta.url), 'utf8');
    expect(dts).toContain(`theme: ${theme.choices.map((c) => `'${c}'`).join(' | ')};`);
    const docs = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
    expect(docs).toContain(`| \`theme\` | all | ${theme.choices.map((c) => `\`${c}\``).join(', ')} (`);
    expect(docs).toContain('html.dark { color-scheme: dark }');
  });
});
