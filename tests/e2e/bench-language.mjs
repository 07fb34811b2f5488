#!/usr/bin/env node
// Benchmark of the page's language switch (not a test: numbers only, no assertions).
// Each round is a fresh browser (no font, shaping or glyph cache kept from an earlier round) loading
// the page at its largest sizes with one panel open; the reader then waits (1.5 s, idle) and picks
// 中文 in the page's language menu, then switches back and forth. Per switch: script (the change
// event until the open panel's render event); frame and shown, the switch's frame in wall
// time (timeFrame in bench-frame.js: script, the frame's callbacks, style and layout; and until
// its paint is over); style+layout (CDP RecalcStyleDuration + LayoutDuration over the change and
// the next two frames) and main-thread CPU (ThreadTime, same span).
// Usage: node tests/e2e/bench-language.mjs [--rounds 5] [--panel scaling] [--switches 6]
//        [--trace /tmp/first-switch.json]   (a Chromium trace of the first switch of the first round)
//        [--plain]                            (a plain page of one <attention-steps>, its lang attribute set)
//        [--frame]   (each switch traced: a frame column, the switch's own frame, and the fallback-font queries;
//                     tracing adds its overhead to every column)
//        env WAIT=ms   (how long the reader waits before the first switch, 1500 by default; a switch after
//                       a longer idle is slower, see docs/performance.md)
//        [--alt DIR]   (DIR holds another build's site/ and dist/, e.g. a copy kept from before a change:
//                       rounds alternate between the two builds, each summarised on its own, so both
//                       see the same load)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { FRAME_CATEGORIES, frameAfter, installFrameTimer } from './bench-frame.js';
import { componentPage, launch, ready, root, server, watchedPage } from './browser.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const ROUNDS = Number(arg('rounds', 5));
const PANEL = arg('panel', 'scaling');
const SWITCHES = Number(arg('switches', 6));
const TRACE = arg('trace', '');
const PLAIN = process.argv.includes('--plain');
const ALT = arg('alt', '');
const FRAME = process.argv.includes('--frame');
const big = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
const QUERY = `?s=${big}&dm=64&dk=16&h=4&mask=causal&step=weights&panel=${PANEL}`;

/** Runs in the page: one switch through the language menu (or <html lang> on a plain page), and its frame (timeFrame, bench-frame.js). */
const switchTo = async ([lang, plain]) => {
  const panel = plain ? document.querySelector('attention-steps') : document.querySelector('attention-explorer').shadowRoot.querySelector('[role="tabpanel"]:not([hidden])');
  const timed = await timeFrame(() => {
    const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
    if (plain) panel.setAttribute('lang', lang);
    else {
      const menu = document.getElementById('lang');
      menu.value = lang;
      menu.dispatchEvent(new Event('change'));
    }
    return done;
  });
  for (let f = 0; f < 2; f++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return timed;
};

/** The switch's frame (bench-frame.js), from the change event the language menu dispatched. */
const frameOf = (events) => frameAfter(events, events.find((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'change'));

const TRACE_CATEGORIES = ['devtools.timeline', 'blink', 'disabled-by-default-devtools.timeline', 'fonts', 'disabled-by-default-devtools.timeline.stack'];

async function round(site, first) {
  const b = await launch();
  const { page, context } = PLAIN
    ? await componentPage(b.browser, site.url, `<attention-steps sentence="${big}" d-model="64" d-k="16" heads="4" mask="causal" step="weights"></attention-steps>`, { selector: 'attention-steps' })
    : await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  if (!PLAIN) {
    await page.goto(`${site.url}/site/${QUERY}`);
    await ready(page);
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => {
    const m = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value * 1000]));
    return { layout: m.RecalcStyleDuration + m.LayoutDuration, cpu: m.ThreadTime };
  };
  await page.evaluate(installFrameTimer);
  await page.waitForTimeout(Number(process.env.WAIT ?? 1500)); // the reader reads before switching
  const rows = [];
  for (let k = 0; k < SWITCHES; k++) {
    const traced = first && k === 0 && TRACE;
    if (traced || FRAME) await b.browser.startTracing(page, { categories: traced ? TRACE_CATEGORIES : FRAME_CATEGORIES });
    const m0 = await metrics();
    const { script, frame, shown } = await page.evaluate(switchTo, [k % 2 ? 'en' : 'zh-CN', PLAIN]);
    const m1 = await metrics();
    const trace = traced || FRAME ? await b.browser.stopTracing() : null;
    if (traced) writeFileSync(TRACE, trace);
    const events = trace ? JSON.parse(trace).traceEvents : [];
    // Fallback-font queries (on Linux each is a round trip to the browser process).
    const fallbacks = events.filter((e) => e.name === 'FontCache::FallbackFontForCharacter').length;
    rows.push({ script, frame, shown, layout: m1.layout - m0.layout, cpu: m1.cpu - m0.cpu, traced: trace ? frameOf(events) : NaN, fallbacks });
    await page.waitForTimeout(300);
  }
  await context.close();
  await b.close();
  return rows;
}

// Needs dist/ and site/ built (node scripts/build-web.mjs); not rebuilt here.
const builds = [{ label: 'current', site: await server(process.env.BENCH_ROOT ?? root) }]; // BENCH_ROOT: a folder holding another build's site/ and dist/
if (ALT) builds.push({ label: `alt (${ALT})`, site: await server(ALT) });
console.log(`load average at start: ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
console.log(PLAIN ? 'plain page, one <attention-steps> (32 tokens, d_model 64, 4 heads)' : `demo page ${QUERY.replace(big, '<32 tokens>')}`);
const fmt = (x) => `${x.script.toFixed(1)}/${x.frame.toFixed(1)}/${x.shown.toFixed(1)}/${x.layout.toFixed(1)}/${x.cpu.toFixed(1)}${FRAME ? `/${x.traced.toFixed(1)} (${x.fallbacks} fallback-font queries)` : ''}`;
for (const build of builds) build.all = [];
for (let r = 0; r < ROUNDS; r++)
  for (const build of builds) {
    const rows = await round(build.site, r === 0 && build === builds[0]);
    build.all.push(rows);
    const load = loadavg()[0].toFixed(2);
    console.log(`round ${r + 1}${ALT ? ` ${build.label}` : ''}: first → zh-CN ${fmt(rows[0])}; later ${rows.slice(1).map(fmt).join('  ')}   (script/frame/shown/style+layout/cpu${FRAME ? '/traced frame' : ''} ms; load ${load})`);
  }
const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
const summary = (label, rows) => {
  const col = (key) => `${key === 'traced' ? 'traced frame' : key} median ${median(rows.map((r) => r[key])).toFixed(1)} max ${Math.max(...rows.map((r) => r[key])).toFixed(1)}`;
  console.log(`${label} (${rows.length}): ${['script', 'frame', 'shown', 'layout', 'cpu', ...(FRAME ? ['traced'] : [])].map(col).join('; ')}`);
};
for (const { label, all } of builds) {
  summary(`${ALT ? `${label}: ` : ''}first switch`, all.map((rows) => rows[0]));
  summary(`${ALT ? `${label}: ` : ''}later switches`, all.flatMap((rows) => rows.slice(1)));
}
console.log(`load average at end: ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
for (const { site } of builds) await site.close();
