// <attention-scaling> given a new seed: its numbers and lines are written into the elements it
// already has (web/src/components/attention-scaling.js, redrawSeries in web/src/chart.js), and what
// it then shows is exactly what a panel opened at that seed shows. Whether this makes the change
// faster is measured in tests/e2e/bench-page.mjs, not here.
import { describe, expect, test } from 'vitest';
import { componentPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser();

const open = (seed) => componentPage(b.browser, s.url, `<attention-scaling seed="${seed}"></attention-scaling>`, { selector: 'attention-scaling' });

/** Runs in the page: the panel as markup (not the font warm-up beside it), and its charts and cells, kept in `window.seen`. */
function snapshot() {
  const root = document.querySelector('attention-scaling').shadowRoot;
  const nodes = { charts: [...root.querySelectorAll('figure[part="chart"]')], lines: [...root.querySelectorAll('figure[part="chart"] path')], cells: [...root.querySelectorAll('td')] };
  window.seen ??= [];
  window.seen.push(nodes);
  return { markup: root.querySelector('.root').outerHTML, cells: nodes.cells.map((td) => td.textContent), yLabels: nodes.charts.map((f) => [...f.querySelectorAll('g[lang="zxx"] > text[text-anchor="end"]')].map((t) => t.textContent)) };
}

/** Runs in the page: sets the seed and waits for the render. */
async function reseed(seed) {
  const panel = document.querySelector('attention-scaling');
  const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
  panel.setAttribute('seed', String(seed));
  await done;
}

/** Runs in the page: which of the first snapshot's charts, lines and cells the last one still holds. */
function kept() {
  const [first, last] = [window.seen[0], window.seen.at(-1)];
  const same = (key) => first[key].map((node, k) => node === last[key][k]);
  return { charts: same('charts'), lines: same('lines'), cells: same('cells'), connected: last.lines.every((p) => p.isConnected) };
}

describe('<attention-scaling> and a new seed', () => {
  test('keeps its charts and cells, writes new numbers and lines into them, and shows what a panel opened at that seed shows', async () => {
    const { page, context, problems } = await open(7);
    const before = await page.evaluate(snapshot);
    await page.evaluate(reseed, 8);
    const after = await page.evaluate(snapshot);
    const same = await page.evaluate(kept);
    expect(same.charts).toEqual([true, true, true]);
    expect(same.cells.every(Boolean)).toBe(true);
    expect(same.cells).toHaveLength(100);
    // Only the lines are new: every one of the 8 is replaced, and the axes stay.
    expect(same.lines).toEqual(Array(8).fill(false));
    expect(same.connected).toBe(true);
    expect(after.yLabels).toEqual(before.yLabels);
    expect(after.cells).not.toEqual(before.cells);
    const fresh = await open(8);
    expect(after.markup).toBe((await fresh.page.evaluate(snapshot)).markup);
    await fresh.context.close();
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test("a seed whose Jacobian needs a taller axis gets a new chart for it (the others are kept), as a panel opened at that seed draws it", async () => {
    // Seed 200's largest mean Jacobian norm needs the axis to 0.5; seed 199's, like almost every seed's, to 0.4.
    const { page, context, problems } = await open(199);
    const before = await page.evaluate(snapshot);
    await page.evaluate(reseed, 200);
    const after = await page.evaluate(snapshot);
    expect(before.yLabels[2]).toEqual(['0', '0.1', '0.2', '0.3', '0.4']);
    expect(after.yLabels[2]).toEqual(['0', '0.13', '0.25', '0.38', '0.5']);
    expect((await page.evaluate(kept)).charts).toEqual([true, true, false]);
    const fresh = await open(200);
    expect(after.markup).toBe((await fresh.page.evaluate(snapshot)).markup);
    await fresh.context.close();
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });
});
