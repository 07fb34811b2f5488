#!/usr/bin/env node
// Benchmark of the built page (not a test: numbers only, no assertions).
// Sizes of site/ (raw and gzip), first paint on localhost, and the cost of one change in each
// panel at the default and the page's largest sizes (32 tokens, d_model 64, h·d_k 64), and at 128 tokens.
//
// Per change, over `runs` rounds (median and max):
//   script        wall time from the change (an attribute set, as the controls do) until the
//                 element's `attention-render` event: the synchronous re-render;
//   draw, frame, shown   the change's frame in wall time, not traced (timeFrame in bench-frame.js):
//                 its animation-frame callbacks (the heatmaps' canvases are drawn there, before the
//                 frame is painted); script, callbacks, style and layout together (the column the
//                 16 ms goal is read from); the same with the frame's paint and the canvases'
//                 pixels handed to the compositor;
//   all filled    wall time from the change until the element's data-ready is back: compact
//                 heatmaps' cell labels, every cell's data-value and heatmaps off screen are
//                 filled when the page is next idle, after the change's frame (see heatmap.js),
//                 and tables the render dropped are removed then too;
//   style+layout  the style recalculation and layout that change causes, in that task or in the
//                 frames after it (Chrome DevTools Protocol Performance metrics RecalcStyleDuration
//                 + LayoutDuration, deltas over the change and the next two frames; a forced layout
//                 right after the change would miss the heatmaps that content-visibility: auto
//                 lays out in the next frame);
//   cpu           main-thread CPU time of everything the change caused until the page is idle:
//                 script, style, layout, paint and anything deferred to requestAnimationFrame or a
//                 later task (CDP metric ThreadTime over the change and the next two frames and a
//                 task, less the same wait without a change). Unlike wall time it does not grow
//                 when other processes take the machine's cores.
// On a shared machine wall times swing with the load; the cpu column much less.
// Usage: node tests/e2e/bench-page.mjs [--runs 20] [--only steps] [--config largest] [--each]
//   (--only: interactions whose name starts so; --config: configurations whose label starts so;
//   --each: every round's value, script, draw and frame too)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { installFrameTimer } from './bench-frame.js';
import { ensureBuilt, launch, ready, root, server, watchedPage } from './browser.js';

const at = process.argv.indexOf('--runs');
const RUNS = at > 0 ? Number(process.argv[at + 1]) : 20;
const only = process.argv.indexOf('--only');
const ONLY = only > 0 ? process.argv[only + 1] : '';
const config = process.argv.indexOf('--config');
const CONFIG = config > 0 ? process.argv[config + 1] : '';
const EACH = process.argv.includes('--each');

ensureBuilt();
// BENCH_SITE: another build of the site to measure (e.g. an earlier commit's), same method.
const site = process.env.BENCH_SITE ?? join(root, 'site');
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

// The interactions, as the page's controls make them: [label, panel, target, attribute, values].
// `target` 'explorer' sets the explorer's attribute (the input model's fields), 'panel' the panel's own.
const big = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
// 128 tokens within the sentence's 400 characters: one CJK character each (a token per character).
const huge = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' ');
const INTERACTIONS = [
  ['steps: seed', 'steps', 'explorer', 'seed', (k) => String(100 + k)],
  ['steps: step (n×n)', 'steps', 'panel', 'step', (k) => ['scores', 'scaled', 'masked', 'weights'][k % 4]],
  ['steps: step (all)', 'steps', 'panel', 'step', (k, keys) => keys[(k * 5 + 1) % keys.length]],
  // A reader pressing "next" after a moment (300 ms) on each step, from the first to the last and again.
  ['steps: next (read)', 'steps', 'panel', 'step', (k, keys) => keys[(k + 1) % keys.length], 300],
  ['steps: head', 'steps', 'panel', 'head', (k) => String(k % 4)],
  ['steps: d_k', 'steps', 'explorer', 'd-k', (k) => String(4 + (k % 4))],
  ['steps: sentence', 'steps', 'explorer', 'sentence', (k, keys, sentence) => sentence.replace(/^\S+/, `v${k}`)],
  ['heads: seed', 'heads', 'explorer', 'seed', (k) => String(300 + k)],
  ['heads: mask', 'heads', 'explorer', 'mask', (k) => ['none', 'causal', 'padding'][k % 3]],
  ['compare: hidden size', 'compare', 'panel', 'hidden-size', (k) => String(4 + k)],
  ['compare: seed', 'compare', 'explorer', 'seed', (k) => String(400 + k)],
  ['pooling: query', 'pooling', 'panel', 'query', (k) => String(0.2 * k)],
  ['pooling: bandwidth', 'pooling', 'panel', 'bandwidth', (k) => String(0.3 + 0.1 * k)],
  ['scaling: language', 'scaling', 'explorer', 'lang', (k) => (k % 2 ? 'en' : 'zh-CN')],
  ['scaling: seed', 'scaling', 'explorer', 'seed', (k) => String(500 + k)],
];

/** Runs in the page: shows a panel and lets it render, lay out and paint. */
const show = async (panelId) => {
  const explorer = document.querySelector('attention-explorer');
  explorer.setAttribute('panel', panelId);
  await new Promise((r) => setTimeout(r, 100));
  for (let f = 0; f < 3; f++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  // The step keys, from the stepper's tabs (id tab-<key>).
  const tabs = explorer.shadowRoot.querySelector(`#panel-${panelId}`).shadowRoot.querySelectorAll('[role="tab"][id^="tab-"]');
  return [...tabs].map((tab) => tab.id.slice('tab-'.length));
};

/** Runs in the page: one change, its frame (timeFrame, bench-frame.js), then until data-ready. */
const change = async ([panelId, target, name, value]) => {
  const explorer = document.querySelector('attention-explorer');
  const panel = explorer.shadowRoot.querySelector(`#panel-${panelId}`);
  const t0 = performance.now();
  const timed = await timeFrame(() => {
    const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
    (target === 'explorer' ? explorer : panel).setAttribute(name, value);
    return done;
  });
  // Labels, data-value and heatmaps off screen are filled when the page is next idle;
  // data-ready comes back once they are.
  if (!('ready' in panel.dataset))
    await new Promise((r) => {
      const seen = new MutationObserver(() => 'ready' in panel.dataset && (seen.disconnect(), r()));
      seen.observe(panel, { attributes: true, attributeFilter: ['data-ready'] });
    });
  return { ...timed, filled: performance.now() - t0 };
};

/** Runs in the page: lets deferred work (requestAnimationFrame, tasks) and paint run. */
const settle = async () => {
  for (let f = 0; f < 2; f++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  await new Promise((r) => setTimeout(r, 20));
};

const b = await launch();
const s = await server(site);
const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
await page.addInitScript(installFrameTimer);
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = async () => {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(list.map((x) => [x.name, x.value * 1000]));
  return { layout: m.RecalcStyleDuration + m.LayoutDuration, cpu: m.ThreadTime };
};

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
const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
const max = (xs) => Math.max(...xs);
console.log(`first contentful paint: median ${median(loads.map((l) => l.fcp)).toFixed(0)} ms; explorer rendered: median ${median(loads.map((l) => l.ready)).toFixed(0)} ms`);

// The attribute extremes: 8 heads of d_k 64 asked for (clamped to h·d_k = 64, with the note), concat step.
const extreme = [];
for (let k = 0; k < 3; k++) {
  await page.goto(`${s.url}/?s=${big}&dm=64&dk=64&h=8&step=concat`);
  await ready(page);
  extreme.push(await page.evaluate(() => ({ ready: performance.now(), note: document.querySelector('attention-explorer').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent })));
}
console.log(`extremes (?dm=64&dk=64&h=8&step=concat, 32 tokens): explorer rendered: median ${median(extreme.map((e) => e.ready)).toFixed(0)} ms, max ${max(extreme.map((e) => e.ready)).toFixed(0)} ms; note: ${extreme[0].note}`);

const worst = { script: 0, draw: 0, frame: 0, shown: 0, filled: 0, layout: 0, cpu: 0 };
const os = await import('node:os');
console.log(`load average at start: ${os.loadavg().map((v) => v.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
for (const [label, query, sentence] of [
  ['default sizes (n = 6, d_model = 8, 1 head)', '?mask=causal&step=weights', 'the cat sat on the mat'],
  ['largest sizes (n = 32, d_model = 64, 4 heads of d_k 16)', `?s=${big}&dm=64&dk=16&h=4&mask=causal&step=weights`, big],
  ['largest sizes (n = 32, d_model = 64, 8 heads of d_k 8)', `?s=${big}&dm=64&dk=8&h=8&mask=causal&step=concat`, big],
  ['128 tokens (n = 128, d_model = 64, 4 heads of d_k 16)', `?s=${encodeURIComponent(huge)}&dm=64&dk=16&h=4&mask=causal&step=weights`, huge],
].filter(([label]) => !CONFIG || label.startsWith(CONFIG))) {
  await page.goto(`${s.url}/${query}`);
  await ready(page);
  // The measurement's own cost: the same round trips and wait without a change.
  const idle = [];
  for (let k = 0; k < 7; k++) {
    const m0 = await metrics();
    await page.evaluate(() => performance.now());
    await page.evaluate(settle);
    idle.push((await metrics()).cpu - m0.cpu);
  }
  const base = median(idle);
  console.log(`\nper change, ${label}, ${RUNS} rounds (ms; cpu less ${base.toFixed(1)} ms measured without a change):`);
  const heads = ['script (wall)', 'draw (wall)', 'frame (wall)', 'shown (wall)', 'all filled', 'style+layout', 'cpu (all)'];
  console.log(`  ${'interaction'.padEnd(22)}${heads.map((h) => h.padStart(16)).join('')}`);
  console.log(`  ${''.padEnd(22)}${heads.map(() => 'median    max'.padStart(16)).join('')}`);
  for (const [name, panelId, target, attribute, value, wait] of INTERACTIONS.filter(([n]) => n.startsWith(ONLY))) {
    // Each interaction starts from the configuration's page (an earlier one may have changed it).
    await page.goto(`${s.url}/${query}`);
    await ready(page);
    const keys = await page.evaluate(show, panelId);
    const rows = [];
    for (let k = 0; k < RUNS; k++) {
      const m0 = await metrics();
      const { script, draw, frame, shown, filled } = await page.evaluate(change, [panelId, target, attribute, value(k, keys, sentence)]);
      await page.evaluate(settle);
      const m1 = await metrics();
      // A reader's pause: idle work then (the steps panel preparing its neighbours) is not counted.
      if (wait) await page.evaluate((ms) => new Promise((r) => setTimeout(r, ms)), wait);
      rows.push({ script, draw, frame, shown, filled, layout: m1.layout - m0.layout, cpu: Math.max(0, m1.cpu - m0.cpu - base) });
      if (EACH) console.log(`    round ${k + 1} (${String(value(k, keys, sentence)).slice(0, 24)}): script ${script.toFixed(1)}, draw ${draw.toFixed(1)}, frame ${frame.toFixed(1)}`);
    }
    const col = (key) => `${median(rows.map((r) => r[key])).toFixed(1).padStart(7)}${max(rows.map((r) => r[key])).toFixed(1).padStart(7)}`.padStart(16);
    console.log(`  ${name.padEnd(22)}${['script', 'draw', 'frame', 'shown', 'filled', 'layout', 'cpu'].map(col).join('')}`);
    for (const key of Object.keys(worst)) worst[key] = Math.max(worst[key], max(rows.map((r) => r[key])));
  }
}
console.log(`\nworst single change: script ${worst.script.toFixed(1)} ms (wall), draw ${worst.draw.toFixed(1)} ms (wall), frame ${worst.frame.toFixed(1)} ms (wall), shown ${worst.shown.toFixed(1)} ms (wall), all filled ${worst.filled.toFixed(1)} ms (wall), style+layout ${worst.layout.toFixed(1)} ms, all ${worst.cpu.toFixed(1)} ms (cpu)`);
await context.close();
await b.close();
await s.close();
