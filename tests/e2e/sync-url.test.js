// <attention-explorer sync-url> on a plain host page (dist/components.js, no script of ours):
// the link's state is the view shown (panel, step, sentence, language, a panel's own setting),
// every change is written back with the host's own parameters and fragment kept, at most one
// write per 250 ms with the last state written; without the attribute the URL is left alone.
import { describe, expect, test } from 'vitest';
import { ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: /dist/components.js

/** A host page at /posts/attention/ holding `body`, opened with `query` (search and hash). */
async function hostPage(body, query) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a post</title><link rel="icon" href="data:,"><script type="module" src="/dist/components.js"></script></head><body><h1 id="demo">A post</h1>${body}</body></html>`;
  await w.page.route((u) => u.pathname === '/posts/attention/', (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  await w.page.goto(`${s.url}/posts/attention/${query}`);
  await ready(w.page);
  return w;
}

const shown = (page) =>
  page.evaluate(() => {
    const ex = document.querySelector('attention-explorer');
    const steps = ex.shadowRoot.querySelector('attention-steps');
    return { panel: ex.panel, lang: ex.language, sentence: ex.state.sentence, step: steps.getAttribute('step'), hiddenSize: ex.panelSettings.hiddenSize };
  });

describe('<attention-explorer sync-url>', () => {
  test('opens the view the link gives and writes changes back, keeping the host page\'s parameters and fragment', async () => {
    const { page, problems, context } = await hostPage('<attention-explorer sync-url></attention-explorer>', `?ref=feed&panel=steps&step=weights&s=${encodeURIComponent('我爱学习')}&lang=zh-CN&hs=12#demo`);
    expect(await shown(page)).toEqual({ panel: 'steps', lang: 'zh-CN', sentence: '我爱学习', step: 'weights', hiddenSize: '12' });
    // the step's tab is the one shown, in Chinese
    const tab = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('[role="tab"][aria-selected="true"]')?.textContent);
    expect(tab).toMatch(/注意力权重/);
    // a burst of changes: the last one is in the URL
    await page.evaluate(() => {
      const ex = document.querySelector('attention-explorer');
      for (const id of ['heads', 'compare', 'cost']) ex.selectPanel(id);
      ex.setAttribute('lang', 'en');
    });
    await page.waitForFunction(() => /panel=cost/.test(location.search) && /lang=en/.test(location.search) && !('urlPending' in document.documentElement.dataset));
    const u = new URL(page.url());
    expect(u.pathname).toBe('/posts/attention/');
    expect(u.searchParams.get('ref')).toBe('feed');
    expect(u.searchParams.get('hs')).toBe('12');
    expect(u.hash).toBe('#demo');
    // the written link, opened in a fresh page, shows the same view
    const again = await hostPage('<attention-explorer sync-url></attention-explorer>', `${u.search}${u.hash}`);
    expect(await shown(again.page)).toMatchObject({ panel: 'cost', lang: 'en', hiddenSize: '12' });
    expect(problems.console).toEqual([]);
    expect(again.problems.console).toEqual([]);
    await again.context.close();
    await context.close();
  });

  test('without sync-url the explorer neither reads nor writes the URL', async () => {
    const { page, problems, context } = await hostPage('<attention-explorer></attention-explorer>', '?panel=cost&ref=feed');
    expect((await shown(page)).panel).toBe('steps');
    // A write to come is marked at once (<html data-url-pending>, set in the change's own task);
    // history is watched too. Neither happens once the change has settled.
    const seen = await page.evaluate(async () => {
      const calls = [];
      for (const name of ['replaceState', 'pushState']) {
        const original = history[name].bind(history);
        history[name] = (...args) => (calls.push(name), original(...args));
      }
      const explorer = document.querySelector('attention-explorer');
      explorer.selectPanel('heads');
      await explorer.updateComplete;
      return { calls, pending: 'urlPending' in document.documentElement.dataset, panel: explorer.panel };
    });
    expect(seen).toEqual({ calls: [], pending: false, panel: 'heads' });
    expect(new URL(page.url()).search).toBe('?panel=cost&ref=feed');
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
