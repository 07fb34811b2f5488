// A host page without <!doctype html> (quirks mode), as some old blog templates are: KaTeX
// refuses to render there, so the formulas are the MathML it writes (laid out by the browser)
// and the panel works, instead of an error in place of the whole panel.
import { describe, expect, test } from 'vitest';
import { ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: /dist/components.js

describe('a page in quirks mode', () => {
  test('the steps panel renders its heatmaps and its formula as MathML, with no error', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1000, height: 800 } });
    const html = '<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="/dist/components.js"></script></head><body><attention-steps step="weights" mask="causal"></attention-steps></body></html>';
    await page.route((u) => u.pathname === '/__quirks.html', (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
    await page.goto(`${s.url}/__quirks.html`);
    await ready(page, 'attention-steps');
    const shown = await page.evaluate(() => {
      const root = document.querySelector('attention-steps').shadowRoot;
      return {
        mode: document.compatMode,
        alert: root.querySelector('[role="alert"]')?.textContent ?? null,
        canvases: root.querySelectorAll('canvas').length,
        math: root.querySelector('[part~="formula"] math, .formula math')?.textContent ?? null,
        katexHtml: root.querySelectorAll('.katex-html').length,
      };
    });
    expect(shown.mode).toBe('BackCompat');
    expect(shown.alert).toBeNull();
    expect(shown.canvases).toBeGreaterThan(0);
    expect(shown.math).toMatch(/softmax/);
    expect(shown.katexHtml).toBe(0);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
