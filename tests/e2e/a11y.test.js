// Accessibility checks in light and dark: every focusable control has an
// accessible name, every heatmap is a table with headers, and the text colours
// of the page and the panels reach WCAG AA contrast (4.5:1) on their backgrounds.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { audit, ensureBuilt, launch, ready, root, server, watchedPage } from './browser.js';

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
