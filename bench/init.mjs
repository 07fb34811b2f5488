// The init cost: what a page fetches for `init()` and the time from the import to the first
// result, in Chromium (a fresh browser context per round, so nothing is cached) and in Node.
//   node bench/init.mjs              7 rounds in each
//   node bench/init.mjs --rounds=N
//   node bench/init.mjs --entry=attention-lab.min.js   the page imports dist/<that file> (default index.js)
//   node bench/init.mjs --root=DIR     serve DIR instead of the repository (another build's dist/)
// Bytes: every response the page received between the import and the first result, raw and gzip -9
// (each file gzipped alone, as a CDN serves it). Time: performance.now() from just before
// `import('/dist/index.js')` (or --entry) to the return of the first `scaledDotProductAttention` (2×2 · 3×2 · 3×1),
// split at `init()`'s resolve. Needs dist/ (node scripts/build.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';

import { serveStatic } from '../scripts/serve.mjs';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? repo;
const entry = `/dist/${process.argv.find((a) => a.startsWith('--entry='))?.slice(8) ?? 'index.js'}`;
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes) => (bytes / 1024).toFixed(1);

// One cold page load: the files it fetched (read back from disk for their sizes, so that nothing
// reads response bodies while the page loads) and its times.
async function pageRound(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const urls = [];
  page.on('requestfinished', (request) => urls.push(request.url()));
  await page.route(`${origin}/init-bench`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>init</title>' }));
  await page.goto(`${origin}/init-bench`);
  urls.length = 0;
  const times = await page.evaluate(async (entry) => {
    const t0 = performance.now();
    const { init } = await import(entry);
    const t1 = performance.now();
    const lab = await init();
    const t2 = performance.now();
    lab.scaledDotProductAttention([[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]]);
    const t3 = performance.now();
    return { build: lab.build, importMs: t1 - t0, initMs: t2 - t1, firstCallMs: t3 - t2, totalMs: t3 - t0 };
  }, entry);
  await context.close();
  const files = urls.map((url) => ({ url, b: readFileSync(path.join(root, new URL(url).pathname)) }));
  const raw = files.reduce((s, f) => s + f.b.length, 0);
  const gzip = files.reduce((s, f) => s + gzipSync(f.b, { level: 9 }).length, 0);
  const wasm = files.filter((f) => f.url.endsWith('.wasm'));
  return { ...times, files: files.length, raw, gzip, wasm: wasm.map((f) => path.basename(new URL(f.url).pathname)) };
}

// One cold Node process: import, init() and the first call, timed inside it.
function nodeRound() {
  const script = `const t0 = performance.now();
const { init } = await import(${JSON.stringify(path.join(repo, 'dist/node.js'))});
const t1 = performance.now();
const lab = await init();
const t2 = performance.now();
lab.scaledDotProductAttention([[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]]);
const t3 = performance.now();
console.log(JSON.stringify({ build: lab.build, importMs: t1 - t0, initMs: t2 - t1, firstCallMs: t3 - t2, totalMs: t3 - t0 }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

const summary = (label, runs) => {
  const m = (k) => median(runs.map((r) => r[k])).toFixed(1);
  console.error(`| ${label} | ${runs[0].build} | ${m('importMs')} | ${m('initMs')} | ${m('firstCallMs')} | ${m('totalMs')} | ${Math.max(...runs.map((r) => r.totalMs)).toFixed(1)} |`);
};

const server = await serveStatic(root, 0);
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const pageRuns = [];
const nodeRuns = [];
try {
  for (let i = 0; i < rounds; i++) {
    pageRuns.push(await pageRound(browser, origin));
    nodeRuns.push(nodeRound());
  }
} finally {
  await browser.close();
  server.close();
  server.closeAllConnections();
}

const first = pageRuns[0];
console.error(`\nChromium ${browser.version()}, Node ${process.version}, ${os.cpus()[0]?.model}; ${rounds} cold rounds each; load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
console.error(`The page imported ${entry} and fetched ${first.files} files for init() and the first call (${first.wasm.join(', ')}): ${kb(first.raw)} KB raw, ${kb(first.gzip)} KB gzip -9, each file gzipped alone.`);
console.error('\n| where | build | import ms | init() ms | first call ms | total ms (median) | total ms (worst) |\n|---|---|---|---|---|---|---|');
summary('Chromium, a fresh context', pageRuns);
summary('Node, a fresh process', nodeRuns);
console.log(JSON.stringify({ rounds, load: os.loadavg(), page: pageRuns, node: nodeRuns }));
