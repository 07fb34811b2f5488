// Accessibility checks in light and dark: every focusable control has an
// accessible name, every heatmap is a table with headers, and the text colours
// of the page and the panels reach WCAG AA contrast (4.5:1) on their backgrounds.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { ensureBuilt, launch, ready, root, server, watchedPage } from './browser.js';

let b;
let s;

beforeAll(async () => {
  ensureBuilt();
  b = await launch();
  s = await server(join(root, 'site'));
});
afterAll(async () => {
  await b?.close();
  await s?.close();
});

// Runs in the page: walks every shadow root of the document.
function audit() {
  const all = [];
  const visit = (r) => {
    for (const el of r.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  const visible = (el) => el.getClientRects().length > 0 && el.checkVisibility();
  const nameOf = (el) => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(' ').map((id) => el.getRootNode().getElementById(id)?.textContent ?? '').join(' ');
    if (el.labels?.length) return el.labels[0].textContent;
    return el.textContent;
  };
  const unnamed = all
    .filter((el) => el.matches('button, input, select, textarea, summary, [role="tab"], table') && visible(el))
    .filter((el) => !nameOf(el)?.trim())
    .map((el) => el.outerHTML.slice(0, 100));
  const tables = all.filter((el) => el.matches('table[role="grid"]') && visible(el));
  const headerless = tables.filter((t) => !t.querySelector('thead th[scope="col"]') || !t.querySelector('tbody th[scope="row"]')).length;

  const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
  const lum = ([r, g, bl]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(bl);
  };
  const background = (el) => {
    for (let n = el; n; n = n.parentElement ?? n.getRootNode().host) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
      if (getComputedStyle(n).backgroundImage !== 'none') return null; // hatched cells: checked by colour choice
    }
    return rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  };
  const low = [];
  for (const el of all) {
    if (!visible(el)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.katex, svg')) continue;
    const bg = background(el);
    if (!bg) continue;
    const fg = rgb(getComputedStyle(el).color).slice(0, 3);
    const [a, c] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (c + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return { unnamed, tables: tables.length, headerless, low: [...new Set(low)].slice(0, 20) };
}

describe('accessibility', () => {
  for (const scheme of ['light', 'dark'])
    for (const panel of ['steps', 'heads', 'compare', 'scaling', 'pooling'])
      test(`${panel} panel, ${scheme}: names, table headers, AA contrast`, async () => {
        const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, colorScheme: scheme });
        await page.goto(`${s.url}/?panel=${panel}&mask=causal&step=masked&h=2`);
        await ready(page);
        const r = await page.evaluate(audit);
        expect(r.unnamed).toEqual([]);
        if (panel !== 'scaling') expect(r.tables).toBeGreaterThan(0);
        expect(r.headerless).toBe(0);
        expect(r.low).toEqual([]);
        await context.close();
      });
});
