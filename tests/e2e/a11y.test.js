// Accessibility checks in light and dark, in English and Chinese: every focusable control has an
// accessible name, every heatmap is a table with headers, and the text colours of the page and
// the panels reach WCAG AA contrast (4.5:1) on their backgrounds. Every panel of the explorer is
// audited with its folded parts (<details>) opened, so what a reader can unfold is checked too;
// the transformer at several steps, the cost panel also after a (short) measurement.
import { afterAll, describe, expect, test } from 'vitest';
import { expectAccessible, ready, watchedPage } from './browser.js';
import { PANELS as REGISTRY } from '../../web/src/panels.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo

const PANELS = REGISTRY.map((p) => p.id);
// Further views audited after the first: attributes set on the panel, or 'measure' (cost's button).
const MORE = {
  transformer: [{ step: 'attention' }, { step: 'norm1' }, { step: 'output' }],
  cost: [{ 'max-n': '64' }, 'measure'],
  // 'train': trained for a while, then paused: the curves, the attention grid and the try box.
  train: ['train'],
};

/** Opens every visible closed <details> of the panel and waits for their toggle events. */
const unfold = (page, tag) =>
  page.evaluate(async (t) => {
    const shadow = document.querySelector('attention-explorer').shadowRoot.querySelector(`attention-${t}`).shadowRoot;
    const closed = [...shadow.querySelectorAll('details:not([open])')].filter((d) => d.checkVisibility());
    const toggled = closed.map((d) => new Promise((done) => d.addEventListener('toggle', done, { once: true })));
    for (const d of closed) d.querySelector(':scope > summary').click();
    await Promise.all(toggled);
  }, tag);

// One page per language, the panels opened in turn from it (the explorer's panel attribute, as a
// link's panel= sets it); each view is audited in light and then in dark colours (the page follows
// the reader's colour scheme, switched in place as an OS switch does).
const pages = new Map();
async function pageFor(lang) {
  if (!pages.has(lang))
    pages.set(lang, (async () => {
      const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, colorScheme: 'light', locale: lang });
      await w.page.goto(`${s.url}/?mask=causal&step=masked&h=2&lang=${lang}`);
      await ready(w.page);
      return w;
    })());
  return pages.get(lang);
}
afterAll(async () => {
  for (const w of pages.values()) await (await w).context.close();
});

describe('accessibility', () => {
  for (const lang of ['en', 'zh-CN'])
    for (const panel of PANELS)
      test(`${panel} panel, ${lang}, light and dark: names, table headers, AA contrast`, async () => {
        const { page, problems } = await pageFor(lang);
        await page.evaluate((p) => document.querySelector('attention-explorer').setAttribute('panel', p), panel);
        await ready(page);
        expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('[role=tab][aria-selected=true]').id)).toBe(`ptab-${panel}`);
        expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
        const panelEl = page.locator(`attention-explorer attention-${panel}`);
        expect(await panelEl.evaluate((el) => el.shadowRoot.querySelector('.root').getAttribute('lang'))).toBe(lang);
        for (const view of [null, ...(MORE[panel] ?? [])]) {
          if (view === 'measure') {
            await panelEl.locator('button[data-key="measure"]').click();
            await page.waitForFunction(() => {
              const r = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-cost').shadowRoot;
              return r.querySelector('table[data-role=times] tbody tr') && !r.querySelector('[data-role=charts][aria-busy=true]');
            }, null, { timeout: 60_000 });
          } else if (view === 'train') {
            await panelEl.locator('button[data-key="train"]').click();
            await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-train').step >= 100, null, { timeout: 60_000 });
            await panelEl.locator('button[data-key="pause"]').click();
            await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-train').state === 'paused');
            await panelEl.locator('button[data-key="try-run"]').click();
            await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-train').shadowRoot.querySelector('[data-role="try-grid"]'));
          } else if (view) await panelEl.evaluate((el, attrs) => Object.entries(attrs).forEach(([k, v]) => el.setAttribute(k, v)), view);
          await ready(page);
          await unfold(page, panel);
          await ready(page);
          // A new heatmap's table for screen readers is built when the page is next idle (aria-busy
          // until then); the train panel's maps change outside a render (a few per frame, the grid
          // aria-busy meanwhile), so its data-ready does not wait for them.
          await page.waitForFunction((tag) => !document.querySelector('attention-explorer').shadowRoot.querySelector(tag).shadowRoot.querySelector('[aria-busy="true"]'), `attention-${panel}`);
          for (const scheme of ['light', 'dark']) {
            await page.emulateMedia({ colorScheme: scheme });
            expect(await page.evaluate(() => document.querySelector('attention-explorer').colorScheme), `${view ?? 'first view'}`).toBe(scheme);
            const where = `${JSON.stringify(view ?? 'first view')}, ${scheme}`;
            // The train panel holds its tables (the attention maps) once it has trained.
            const tables = panel !== 'scaling' && !(panel === 'train' && !view) ? 1 : undefined;
            await expectAccessible(page, undefined, { where, tables });
          }
          await page.emulateMedia({ colorScheme: 'light' });
        }
        expect(problems.console).toEqual([]);
      });
});
