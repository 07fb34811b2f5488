#!/usr/bin/env node
// Benchmark of the landing view (the lesson), cold (not a test: numbers only, no assertions).
// Each round opens the built page in a new browser context (an empty HTTP cache) from localhost
// and reads, in the page's own clock from navigation start:
//   text     first contentful paint (the lesson's text, before the .wasm has arrived);
//   figure   the first figure's weights drawn: its canvas holds a bitmap (the page's own
//            `data-cells` attribute, written when the heatmap draws) on a frame after the trained
//            model loaded;
//   settled  the first figure's updateComplete (its idle work done too).
// The aim: text ≤ 1 s, figure ≤ 2 s, on this machine, at 1280 × 800 and 375 × 667.
// Usage: node tests/e2e/bench-landing.mjs [--runs 5]
import { ensureBuilt, launch, server, root } from './browser.js';
import { join } from 'node:path';

const at = process.argv.indexOf('--runs');
const RUNS = at > 0 ? Number(process.argv[at + 1]) : 5;

ensureBuilt();
const b = await launch();
const s = await server(process.env.BENCH_SITE ?? join(root, 'site'));

/** Runs in the page: resolves with the times once the first figure is drawn and settled. */
const measure = () =>
  new Promise((resolve) => {
    const hero = document.getElementById('hero');
    let figure = null;
    const look = () => {
      const root = hero.shadowRoot;
      const canvas = root?.querySelector('[data-role="main"] canvas');
      // The trained model loaded (random weights are drawn until then), then drawn in a frame.
      const trained = Boolean(root?.querySelector('[data-role="trained-about"]'));
      if (figure === null && canvas?.dataset.cells && trained) return requestAnimationFrame(() => ((figure = performance.now()), look()));
      if (figure === null) return requestAnimationFrame(look);
      hero.updateComplete.then(() => {
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        resolve({ text: paint?.startTime ?? NaN, figure, settled: performance.now() });
      });
    };
    customElements.whenDefined('attention-steps').then(look);
  });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [width, height] of [
  [1280, 800],
  [375, 667],
]) {
  const rounds = [];
  for (let r = 0; r < RUNS; r++) {
    const context = await b.browser.newContext({ viewport: { width, height }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${s.url}/index.html`);
    rounds.push(await page.evaluate(measure));
    await context.close();
  }
  const row = (key) => `${key} ${median(rounds.map((x) => x[key])).toFixed(0)} ms (max ${Math.max(...rounds.map((x) => x[key])).toFixed(0)})`;
  console.log(`${width}×${height}, ${RUNS} cold loads, median: ${['text', 'figure', 'settled'].map(row).join(', ')}`);
}
await s.close();
await b.close();
process.exit(0);
