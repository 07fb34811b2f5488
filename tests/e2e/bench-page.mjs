#!/usr/bin/env node
// Benchmark of the built page (not a test: numbers only, no assertions).
// Sizes of site/ (raw and gzip), first paint on localhost, and the script time
// of one change in each panel at the page's largest sizes (32 tokens, d_model 64).
// Usage: node tests/e2e/bench-page.mjs
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt, launch, ready, root, server, watchedPage } from './browser.js';

ensureBuilt();
const site = join(root, 'site');
const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) (e.isDirectory() ? walk(join(dir, e.name)) : files.push(join(dir, e.name)));
};
walk(site);
const group = (f) => (f.endsWith('.wasm') ? 'wasm' : f.includes('katex-fonts') ? 'fonts' : 'html/css/js');
const sizes = {};
for (const f of files) {
  const raw = statSync(f).size;
  const gz = gzipSync(readFileSync(f), { level: 9 }).length;
  const g = (sizes[group(relative(site, f))] ??= { raw: 0, gzip: 0 });
  g.raw += raw;
  g.gzip += gz;
}
const total = Object.values(sizes).reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip }), { raw: 0, gzip: 0 });
// Only the SIMD or the scalar .wasm is fetched; the page downloads one of them.
console.log('site/ sizes (bytes):', JSON.stringify({ ...sizes, total }, null, 1));

/** Runs in the page: one change in each panel, timed until its re-render finishes. */
const measure = async () => {
  const explorer = document.querySelector('attention-explorer');
  const out = {};
  const time = async (panelId, change, runs = 15) => {
    explorer.setAttribute('panel', panelId);
    const panel = explorer.shadowRoot.querySelector(`#panel-${panelId}`);
    // Let the panel render, lay out and paint (its heatmaps learn whether they are on screen).
    await new Promise((r) => setTimeout(r, 50));
    for (let f = 0; f < 3; f++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const ms = [];
    for (let k = 0; k < runs; k++) {
      const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
      const t0 = performance.now();
      change(panel, k);
      await done;
      ms.push(performance.now() - t0);
    }
    ms.sort((a, c) => a - c);
    out[panelId] = { median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
  };
  await time('steps', (p, k) => p.setAttribute('seed', String(100 + k)));
  await time('steps', (p, k) => p.setAttribute('step', ['scores', 'scaled', 'masked', 'weights'][k % 4]));
  out['steps (step change)'] = out.steps;
  await time('steps', (p, k) => p.setAttribute('seed', String(200 + k)));
  await time('heads', (p, k) => p.setAttribute('seed', String(100 + k)));
  await time('compare', (p, k) => p.setAttribute('hidden-size', String(4 + k)));
  await time('pooling', (p, k) => p.setAttribute('query', String(0.2 * k)));
  await time('scaling', (p, k) => p.setAttribute('lang', k % 2 ? 'en' : 'zh-CN'), 6);
  return out;
};

const b = await launch();
const s = await server(site);
const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
const loads = [];
for (let k = 0; k < 5; k++) {
  await page.goto(`${s.url}/?step=weights`);
  await ready(page);
  loads.push(
    await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      ready: performance.now(),
    })),
  );
}
const median = (xs) => xs.sort((a, c) => a - c)[Math.floor(xs.length / 2)];
console.log(`first contentful paint: median ${median(loads.map((l) => l.fcp)).toFixed(0)} ms; explorer rendered: median ${median(loads.map((l) => l.ready)).toFixed(0)} ms`);

const big = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
for (const [label, query] of [
  ['default sizes (n = 6, d_model = 8, 1 head)', '?mask=causal&step=weights'],
  ['largest sizes (n = 32, d_model = 64, 4 heads of d_k 16)', `?s=${big}&dm=64&dk=16&h=4&mask=causal&step=weights`],
]) {
  await page.goto(`${s.url}/${query}`);
  await ready(page);
  const timings = await page.evaluate(measure);
  console.log(`script time per change, ${label} (ms):`);
  for (const [k, v] of Object.entries(timings)) console.log(`  ${k.padEnd(20)} median ${v.median.toFixed(1)}  max ${v.max.toFixed(1)}`);
}
await context.close();
await b.close();
await s.close();
