// The page's main thread while <attention-train task="reverse"> trains (the goal: no task of 50 ms
// or more): a Chromium trace (devtools.timeline, via CDP Tracing) of a whole run, from the click on
// Train to the goal, in a page of Debian's Chromium (playwright-core, headless) that loads
// dist/components.js. Reports the renderer main thread's tasks (count, median, p95, worst, how many
// ≥ 50 ms), its busy time per second, where the time went (style, layout, paint, scripts…), and the
// long animation frames the page saw. Runs `--runs=N` times (default 3), e.g.
//   node bench/train-panel-frames.mjs --runs=3
// --profile adds the script time by function (a CPU profile; it slows the page a little).
// One JSON line per run on stdout, then a summary line (medians over the runs).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBenchPage } from './lib/bench-page.mjs';
import { mainThreadTasks, startTrace, taskTimes } from './lib/main-thread-trace.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist', 'components.js'))) throw new Error('dist/ is missing: run node scripts/build-web.mjs first');
const runsArg = process.argv.find((a) => a.startsWith('--runs='));
const runs = runsArg ? Number(runsArg.slice(7)) : 3;
const profile = process.argv.includes('--profile');
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${runsArg}`);

const KINDS = ['UpdateLayoutTree', 'Layout', 'Paint', 'PrePaint', 'Layerize', 'FunctionCall', 'FireAnimationFrame', 'TimerFire', 'EventDispatch', 'ParseHTML', 'MajorGC', 'MinorGC', 'V8.GC_SCAVENGER', 'IntersectionObserverController::computeIntersections', 'HitTest'];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0;
};

async function traceRun(page) {
  await page.evaluate(async () => {
    await import('/dist/components.js');
    document.body.innerHTML = '<attention-train task="reverse"></attention-train>';
    await customElements.whenDefined('attention-train');
    window.__frames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__frames.push({ ms: Math.round(e.duration), render: Math.round(e.renderStart ? e.startTime + e.duration - e.renderStart : 0), scripts: e.scripts.map((x) => `${x.invoker} ${Math.round(x.duration)} ms`) });
    }).observe({ type: 'long-animation-frame' });
  });
  await page.waitForTimeout(300);
  const stopTrace = await startTrace(page);
  const cdp = profile ? await page.context().newCDPSession(page) : null;
  if (profile) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.setSamplingInterval', { interval: 250 })).then(() => cdp.send('Profiler.start'));
  const started = Date.now();
  await page.evaluate(() => document.querySelector('attention-train').shadowRoot.querySelector('[data-key="train"]').click());
  await page.waitForFunction(() => ['reached', 'stopped', 'failed'].includes(document.querySelector('attention-train').state), null, { timeout: 180_000, polling: 200 });
  await page.waitForTimeout(1500); // the last redraws
  const seconds = (Date.now() - started) / 1000;
  const hot = profile ? selfTimes((await cdp.send('Profiler.stop')).profile) : undefined;
  const events = await stopTrace();
  const state = await page.evaluate(() => ({ state: document.querySelector('attention-train').state, step: document.querySelector('attention-train').step, frames: window.__frames }));
  await cdp?.detach();
  return { ...summarise(events, seconds), ...state, ...(hot ? { hot } : {}) };
}

/** --profile: the main thread's script time by function (self time, ms), the largest 15. */
function selfTimes({ nodes, samples, timeDeltas }) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ms = new Map();
  samples.forEach((id, k) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    ms.set(key, (ms.get(key) ?? 0) + (timeDeltas[k + 1] ?? 0) / 1000);
  });
  return [...ms].filter(([key]) => !key.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, 15).map(([key, v]) => `${key} ${Math.round(v)}`);
}

/** The renderer main thread's top-level tasks and the time of each kind of work inside them. */
function summarise(events, seconds) {
  const { mine, top } = mainThreadTasks(events);
  const tasks = top.map((e) => taskTimes(e).wallMs);
  // The thread's own CPU time in each task (tdur): what the page did, without the waits for a core.
  const cpu = top.map((e) => taskTimes(e).cpuMs);
  const heavy = top.filter((e) => (e.tdur ?? 0) >= 8000).map((task) => {
    const inner = {};
    for (const e of mine) if (e !== task && e.ts >= task.ts && e.ts < task.ts + task.dur && !/RunTask|v8\.|FireAnimationFrame|FunctionCall/.test(e.name)) inner[e.name] = (inner[e.name] ?? 0) + (e.tdur ?? e.dur) / 1000;
    return { cpuMs: Math.round(task.tdur / 1000), wallMs: Math.round(task.dur / 1000), at: Math.round((task.ts - mine[0].ts) / 1000), top: Object.entries(inner).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => `${k} ${Math.round(v)}`) };
  });
  const names = {};
  for (const e of mine) names[e.name] = (names[e.name] ?? 0) + e.dur / 1000;
  if (process.env.NAMES) console.error(Object.entries(names).sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${k} ${Math.round(v)}`).join('\n'));
  const kinds = {};
  for (const k of KINDS) {
    const ms = mine.filter((e) => e.name === k).reduce((sum, e) => sum + e.dur / 1000, 0);
    if (ms > 0) kinds[k] = Math.round(ms);
  }
  // Inside each long task: the work it held, by kind (the largest few), to see what took the time.
  const long = top.filter((e) => e.dur >= 50_000).map((task) => {
    const inner = {};
    for (const e of mine) if (e !== task && e.ts >= task.ts && e.ts < task.ts + task.dur && e.name !== 'RunTask' && e.name !== 'ThreadControllerImpl::RunTask') inner[e.name] = (inner[e.name] ?? 0) + e.dur / 1000;
    const top = Object.entries(inner).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${Math.round(v)}`);
    const layouts = mine.filter((e) => e.name === 'Layout' && e.ts >= task.ts && e.ts < task.ts + task.dur).map((e) => `${Math.round(e.dur / 1000)} ms (cpu ${Math.round((e.tdur ?? NaN) / 1000)}): ${e.args?.beginData?.dirtyObjects ?? '?'}/${e.args?.beginData?.totalObjects ?? '?'} objects${e.args?.beginData?.partialLayout ? ' (partial)' : ''}`);
    return { ms: Math.round(task.dur / 1000), cpuMs: Math.round((task.tdur ?? NaN) / 1000), at: Math.round((task.ts - mine[0].ts) / 1000), top, layouts };
  });
  const busy = tasks.reduce((a, b) => a + b, 0);
  const round = (v) => Math.round(v * 10) / 10;
  return { seconds: round(seconds), tasks: tasks.length, medianMs: round(median(tasks)), p95Ms: round(quantile(tasks, 0.95)), worstMs: round(Math.max(0, ...tasks)), over50: tasks.filter((d) => d >= 50).length, cpuMedianMs: round(median(cpu)), cpuP95Ms: round(quantile(cpu, 0.95)), cpuWorstMs: round(Math.max(0, ...cpu)), cpuBusyMsPerSecond: round(cpu.reduce((a, b) => a + b, 0) / seconds), heavy, busyMsPerSecond: round(busy / seconds), kinds, long };
}

const results = [];
await withBenchPage(root, 'train-panel-frames', async (first, version) => {
  const origin = new URL(first.url()).origin;
  for (let r = 0; r < runs; r++) {
    // Each run in a new context (a renderer process of its own, cold, as a reader's first visit and as the e2e tests).
    const context = await first.context().browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.route(`${origin}/panel`, (q) => q.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><meta charset="utf-8"><title>panel</title>' }));
    await page.goto(`${origin}/panel`);
    const result = { environment: `Chromium ${version}`, run: r + 1, ...(await traceRun(page)) };
    await context.close();
    results.push(result);
    console.log(JSON.stringify(result));
  }
});
const pick = (key) => median(results.map((x) => x[key]));
console.log(JSON.stringify({ summary: true, runs, medianTaskMs: pick('medianMs'), p95TaskMs: pick('p95Ms'), worstTaskMs: Math.max(...results.map((x) => x.worstMs)), over50: results.map((x) => x.over50), longFrames: results.map((x) => x.frames.length), busyMsPerSecond: pick('busyMsPerSecond'), cpuP95TaskMs: pick('cpuP95Ms'), cpuWorstTaskMs: Math.max(...results.map((x) => x.cpuWorstMs)), cpuBusyMsPerSecond: pick('cpuBusyMsPerSecond') }));
