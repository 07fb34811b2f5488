#!/usr/bin/env node
// Benchmark of the four newer panels (not a test: numbers only, no assertions): attention-cross,
// attention-positions, attention-transformer and attention-cost, each alone on a plain page with
// dist/components.js, at the page's largest sizes (32 tokens, d_model 64, d_k 64; cross with a
// 32-token source; cross128: 128 target and 128 source tokens), in Debian's Chromium (tests/e2e/browser.js).
//
// Per change, after a warm-up, over `runs` rounds (median and max), as in bench-page.mjs:
//   script        wall time from the change (an attribute set, as the panel's controls do) until
//                 the element's `attention-render` event: the synchronous re-render;
//   draw, frame, shown   the change's frame in wall time, not traced (timeFrame in bench-frame.js):
//                 its animation-frame callbacks (the canvases are drawn there); script, callbacks,
//                 style and layout together (the column the 16 ms goal is read from); the same
//                 with the frame's paint and the canvases' pixels handed to the compositor. Like
//                 script, they grow when other processes take the machine's cores;
//   style+layout  RecalcStyleDuration + LayoutDuration (Chrome DevTools Protocol Performance
//                 metrics), deltas over the change and the next two frames: what the change leaves
//                 for when the page is idle counts here too;
//   cpu           main-thread CPU (CDP ThreadTime) over the change and the next two frames and a
//                 task, less the same wait without a change: script, style, layout, paint and
//                 anything deferred. Unlike wall time it does not grow when other processes take
//                 the machine's cores.
//   trace         with --frame: the change's own frame from a Chromium trace (bench-frame.js): the
//                 main thread's busy time from the change to the end of the first paint after it.
//                 The two CDP columns also count what the change leaves for when the page is idle
//                 (heatmaps off screen, screen-reader tables, parts built when idle); this does not.
//                 Tracing adds its overhead to every column.
// Usage: node tests/e2e/bench-panels.mjs [--runs 15] [--warm 3] [--only cross] [--frame]
//   (--only: interactions whose name starts so)
import os from 'node:os';
import { join } from 'node:path';
import { FRAME_CATEGORIES, frameAfter, installFrameTimer, markEvent } from './bench-frame.js';
import { ensureBuilt, launch, root, server, watchedPage } from './browser.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const RUNS = Number(arg('--runs', 15));
const WARM = Number(arg('--warm', 3));
const ONLY = arg('--only', '');
// --bundle FILE: measure another build of components.js (e.g. a copy kept from before a change),
// served as /__alt/components.js beside dist/'s other files, so before and after run alike.
const BUNDLE = arg('--bundle', '');
const FRAME = process.argv.includes('--frame');

const words = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const BIG = words('w', 32);
const SOURCE = words('s', 32);
const LARGE = { sentence: BIG, 'd-model': '64', 'd-k': '64', heads: '1', seed: '1' };
// 128 tokens within the 400 characters a sentence keeps: one CJK character per token.
const HUGE = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' ');
const HUGE_SOURCE = Array.from({ length: 128 }, (_, i) => String.fromCharCode(0x5000 + i)).join(' ');
const LARGE128 = { ...LARGE, sentence: HUGE, source: HUGE_SOURCE };
// The sentence edit keeps 32 tokens: the first word changes.
const edit = (k) => BIG.replace(/^\S+/, `v${k}`);
const TSTEPS = ['X', 'attention', 'residual1', 'norm1', 'hidden', 'ffn', 'residual2', 'output'];

// [name, tag, starting attributes, attribute changed, value of round k, warm-up rounds (default --warm),
//  { rounds (default --runs), pause (ms before each change, default none) }].
const INTERACTIONS = [
  ['cross: seed', 'attention-cross', { ...LARGE, source: SOURCE }, 'seed', (k) => String(100 + k)],
  ['cross: sentence', 'attention-cross', { ...LARGE, source: SOURCE }, 'sentence', edit],
  ['cross: source', 'attention-cross', { ...LARGE, source: SOURCE }, 'source', (k) => SOURCE.replace(/^\S+/, `u${k}`)],
  ['cross: d_k', 'attention-cross', { ...LARGE, source: SOURCE }, 'd-k', (k) => String(k % 2 ? 64 : 63)],
  ['cross: scoring', 'attention-cross', { ...LARGE, source: SOURCE }, 'scoring', (k) => (k % 2 ? 'dot' : 'additive')],
  ['cross: valid-lens', 'attention-cross', { ...LARGE, source: SOURCE }, 'valid-lens', (k) => Array.from({ length: 32 }, (_, i) => 1 + ((i + k) % 32)).join(' ')],
  ['cross: mask', 'attention-cross', { ...LARGE, source: SOURCE }, 'mask', (k) => ['causal', 'padding', 'none'][k % 3]],
  ['cross128: seed', 'attention-cross', LARGE128, 'seed', (k) => String(100 + k)],
  ['cross128: sentence', 'attention-cross', LARGE128, 'sentence', (k) => HUGE.replace(/^\S+/, `v${k}`)],
  ['cross128: mask', 'attention-cross', LARGE128, 'mask', (k) => ['causal', 'padding', 'none'][k % 3]],
  ['positions: seed', 'attention-positions', LARGE, 'seed', (k) => String(100 + k)],
  ['positions: sentence', 'attention-positions', LARGE, 'sentence', edit],
  ['positions: d_k', 'attention-positions', LARGE, 'd-k', (k) => String(k % 2 ? 64 : 63)],
  ['positions: d_model', 'attention-positions', LARGE, 'd-model', (k) => String(k % 2 ? 64 : 62)],
  ['positions: swap', 'attention-positions', LARGE, 'swap', (k) => `${k % 31} ${(k % 31) + 1}`],
  ['transformer: step', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16' }, 'step', (k) => TSTEPS[(k + 1) % TSTEPS.length]],
  // After every step has been shown once (8 warm-up rounds): a reader going back and forth.
  ['transformer: step (revisit)', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16' }, 'step', (k) => TSTEPS[(k + 1) % TSTEPS.length], 8],
  // Each step's first visit only (7 rounds, no warm-up), a second after the last change as a
  // reader takes to read a step (the page idle meanwhile).
  ['transformer: step (first visit)', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16' }, 'step', (k) => TSTEPS[(k + 1) % TSTEPS.length], 0, { rounds: 7, pause: 1000 }],
  ['transformer: next', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16' }, 'step', (k) => TSTEPS[(k * 3 + 1) % TSTEPS.length]],
  ['transformer: seed@X', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'X' }, 'seed', (k) => String(100 + k)],
  ['transformer: seed@attention', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'attention' }, 'seed', (k) => String(100 + k)],
  ['transformer: seed@hidden', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'hidden' }, 'seed', (k) => String(100 + k)],
  ['transformer: seed@norm1', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'norm1' }, 'seed', (k) => String(100 + k)],
  ['transformer: sentence@hidden', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'hidden' }, 'sentence', edit],
  ['transformer: d_k@attention', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'attention' }, 'd-k', (k) => String(k % 2 ? 16 : 15)],
  ['transformer: positional', 'attention-transformer', { ...LARGE, heads: '4', 'd-k': '16', step: 'residual1' }, 'positional', (k) => (k % 2 ? 'off' : 'on')],
  // The bandwidth slider's values (0.05 steps), as a reader moving it.
  ['pooling: bandwidth', 'attention-pooling', {}, 'bandwidth', (k) => String(Number((0.3 + 0.05 * (k % 40)).toFixed(2)))],
  // The language switch rewrites texts in place (the charts' data stay); the seed redraws the charts.
  ['scaling: language', 'attention-scaling', {}, 'lang', (k) => (k % 2 ? 'en' : 'zh-CN')],
  ['scaling: seed', 'attention-scaling', {}, 'seed', (k) => String(500 + k)],
  ['cost: seed', 'attention-cost', LARGE, 'seed', (k) => String(100 + k)],
  ['cost: sentence', 'attention-cost', LARGE, 'sentence', edit],
  ['cost: d_k', 'attention-cost', LARGE, 'd-k', (k) => String(k % 2 ? 64 : 63)],
  ['cost: window', 'attention-cost', LARGE, 'window', (k) => String(1 + (k % 32))],
  ['cost: linformer-k', 'attention-cost', LARGE, 'linformer-k', (k) => String(1 + (k % 32))],
  ['cost: mask', 'attention-cost', LARGE, 'mask', (k) => ['causal', 'padding', 'none'][k % 3]],
];

/** Runs in the page: one change and its frame (timeFrame, bench-frame.js). */
const change = ([name, value]) => {
  const panel = document.querySelector('#panel');
  return timeFrame(() => {
    const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
    performance.mark('bench-change');
    panel.setAttribute(name, value);
    return done;
  });
};

/** Runs in the page: lets deferred work (requestAnimationFrame, tasks) and paint run. */
const settle = async () => {
  for (let f = 0; f < 2; f++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  await new Promise((r) => setTimeout(r, 20));
};

ensureBuilt();
const b = await launch();
const s = await server(root);
const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
await page.addInitScript(installFrameTimer);
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = async () => {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(list.map((x) => [x.name, x.value * 1000]));
  return { layout: m.RecalcStyleDuration + m.LayoutDuration, cpu: m.ThreadTime };
};
let html = '';
await page.route('**/__bench.html', (route) => route.fulfill({ contentType: 'text/html', body: html }));
await page.route('**/__alt/**', (route) => {
  const file = new URL(route.request().url()).pathname.replace(/^\/__alt\//, '');
  route.fulfill({ path: file === 'components.js' ? BUNDLE : join(root, 'dist', file) });
});
const script = BUNDLE ? '/__alt/components.js' : '/dist/components.js';
const esc = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;');

const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
const max = (xs) => Math.max(...xs);
const loadStart = os.loadavg();
console.log(`bench-panels (${script}${BUNDLE ? ` = ${BUNDLE}` : ''}): ${RUNS} rounds after ${WARM} warm-up; load average at start ${loadStart.map((v) => v.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}`);
const COLUMNS = ['script', 'draw', 'layout', 'frame', 'shown', 'cpu', ...(FRAME ? ['traced'] : [])];
const heads = ['script (wall)', 'draw (wall)', 'style+layout', 'frame (wall)', 'shown (wall)', 'cpu (all)', ...(FRAME ? ['trace'] : [])];
console.log(`  ${'interaction'.padEnd(30)}${heads.map((h) => h.padStart(16)).join('')}`);
console.log(`  ${''.padEnd(30)}${heads.map(() => 'median    max'.padStart(16)).join('')}`);
const worst = {};
for (const [name, tag, attrs, attribute, value, warm = WARM, { rounds = RUNS, pause = 0 } = {}] of INTERACTIONS.filter(([n]) => n.startsWith(ONLY))) {
  html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title><script type="module" src="${script}"></script></head><body><${tag} id="panel" ${Object.entries(attrs)
    .map(([k, v]) => `${k}="${esc(v)}"`)
    .join(' ')}></${tag}></body></html>`;
  await page.goto(`${s.url}/__bench.html`);
  await page.waitForFunction(() => 'ready' in (document.querySelector('#panel')?.dataset ?? {}));
  await page.evaluate(settle);
  // The measurement's own cost: the same round trips and wait without a change.
  const idle = [];
  for (let k = 0; k < 5; k++) {
    const m0 = await metrics();
    await page.evaluate(() => performance.now());
    await page.evaluate(settle);
    idle.push((await metrics()).cpu - m0.cpu);
  }
  const base = median(idle);
  const rows = [];
  for (let k = -warm; k < rounds; k++) {
    if (pause) await page.waitForTimeout(pause);
    const traced = FRAME && k >= 0;
    if (traced) await b.browser.startTracing(page, { categories: FRAME_CATEGORIES });
    const m0 = await metrics();
    const { script, draw, frame, shown } = await page.evaluate(change, [attribute, value(k + warm, attrs)]);
    await page.evaluate(settle);
    const m1 = await metrics();
    const events = traced ? JSON.parse(await b.browser.stopTracing()).traceEvents : [];
    if (k >= 0) rows.push({ script, draw, frame, shown, layout: m1.layout - m0.layout, cpu: Math.max(0, m1.cpu - m0.cpu - base), traced: traced ? frameAfter(events, markEvent(events, 'bench-change')) : NaN });
  }
  const col = (key) => `${median(rows.map((r) => r[key])).toFixed(1).padStart(7)}${max(rows.map((r) => r[key])).toFixed(1).padStart(7)}`.padStart(16);
  console.log(`  ${name.padEnd(30)}${COLUMNS.map(col).join('')}`);
  const panel = name.split(':')[0];
  worst[panel] ??= Object.fromEntries(COLUMNS.map((key) => [key, 0]));
  for (const key of COLUMNS) worst[panel][key] = Math.max(worst[panel][key], median(rows.map((r) => r[key])));
}
for (const [panel, w] of Object.entries(worst)) console.log(`worst median, ${panel}: script ${w.script.toFixed(1)} ms, draw ${w.draw.toFixed(1)} ms, style+layout ${w.layout.toFixed(1)} ms, frame ${w.frame.toFixed(1)} ms, shown ${w.shown.toFixed(1)} ms, cpu ${w.cpu.toFixed(1)} ms${FRAME ? `, traced frame ${w.traced.toFixed(1)} ms` : ''}`);
console.log(`load average at end: ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
if (problems.console.length || problems.external.length) console.log('page problems:', JSON.stringify(problems));
await context.close();
await b.close();
await s.close();
