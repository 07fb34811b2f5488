// createWorkerPool in Chromium: module Workers loading the page's build (FMA here) from bytes the
// page sent, results bit-identical to the one-thread call; and on a page whose
// Content-Security-Policy blocks workers (worker-src 'none') the pool falls back to one thread,
// says why, and still answers; and a page whose .wasm is served from elsewhere (init's wasmUrl) gives
// the pool the same URL (its wasm option), or gets one thread and the failed fetch as the reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { root, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: dist/ under s.url

// window.run() resolves to what the pool did and whether every split result matched the lab's bit for bit.
const PAGE = `<!doctype html><html lang="en"><title>pool</title><body></body>
<script type="module">
import { createWorkerPool, init } from '/dist/index.js';
const random = (rows, cols, seed) => {
  let x = seed;
  const data = Float32Array.from({ length: rows * cols }, () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1);
  return { rows, cols, data };
};
const same = (a, b) => a.rows === b.rows && a.cols === b.cols && a.data.every((v, i) => Object.is(v, b.data[i]));
window.run = async (initOptions = {}, poolOptions = {}) => {
  const lab = await init(initOptions);
  const pool = await createWorkerPool(lab, { workers: 2, smallCall: 0, ...poolOptions });
  const checks = [];
  for (const n of [1, 7, 130])
    for (const mask of [undefined, 'causal'])
      for (const weights of [true, false]) {
        const [Q, K, V] = [random(n, 16, n), random(n, 16, n + 1), random(n, 8, n + 2)];
        const one = lab.scaledDotProductAttention(Q, K, V, { mask, weights });
        const split = await pool.scaledDotProductAttention(Q, K, V, { mask, weights });
        checks.push(same(one.output, split.output) && (!weights || same(one.weights, split.weights)));
      }
  const options = { heads: 4, Wq: random(32, 32, 1), Wk: random(32, 32, 2), Wv: random(32, 32, 3), Wo: random(32, 30, 4) };
  const X = random(21, 32, 5);
  const layer = await pool.createMultiHeadAttention(options);
  const [a, c] = [lab.createMultiHeadAttention(options).forward(X, { mask: 'causal' }), await layer.forward(X, { mask: 'causal' })];
  checks.push(same(a.output, c.output) && same(a.concat, c.concat));
  const bad = await pool.scaledDotProductAttention(random(2, 3, 1), random(2, 4, 1), random(2, 4, 1)).then(() => null, (e) => [e.name, e.code, e.message]);
  const result = { build: lab.build, workers: pool.workers, reason: pool.reason, checks, bad };
  pool.close();
  result.closed = await pool.scaledDotProductAttention(random(2, 3, 1), random(2, 3, 1), random(2, 3, 1)).then(() => null, (e) => e.code);
  return result;
};
window.ok = true;
</script></html>`;

async function poolPage(headers = {}) {
  const w = await watchedPage(b.browser, { isolated: true });
  w.wasm = [];
  w.context.on('request', (r) => r.url().endsWith('.wasm') && w.wasm.push(new URL(r.url()).pathname));
  await w.page.route(`${s.url}/pool.html`, (route) => route.fulfill({ contentType: 'text/html', headers, body: PAGE }));
  await w.page.goto(`${s.url}/pool.html`);
  await w.page.waitForFunction(() => window.ok);
  return w;
}

const badInput = ['AttentionError', 'SHAPE_MISMATCH', 'scaledDotProductAttention: Q is 2×3 but K is 2×4 (Q.cols must equal K.cols)'];

describe('createWorkerPool in Chromium', () => {
  test('two module Workers of the page build: split results bit-identical, no worker fetches the .wasm', async () => {
    const { page, context, problems, wasm } = await poolPage();
    const result = await page.evaluate(() => window.run());
    expect(result).toMatchObject({ workers: 2, reason: null, bad: badInput, closed: 'DISPOSED' });
    expect(result.checks).toEqual(Array(13).fill(true));
    // init() fetches its .wasm, the pool once more for the workers' bytes (from the HTTP cache); the workers none
    expect(wasm.length).toBeLessThanOrEqual(2);
    expect(new Set(wasm)).toEqual(new Set([`/dist/attention-lab-${result.build}.wasm`]));
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test("a Content-Security-Policy with worker-src 'none': the pool falls back to one thread, says why, and answers alike", async () => {
    const { page, context, problems } = await poolPage({ 'Content-Security-Policy': "worker-src 'none'" });
    const result = await page.evaluate(() => window.run());
    expect(result).toMatchObject({ workers: 0, bad: badInput, closed: 'DISPOSED' });
    expect(result.reason).toMatch(/could not start/);
    expect(result.checks).toEqual(Array(13).fill(true));
    // the browser's own report of the blocked worker is the only console line
    expect(problems.console.filter((m) => !/Content Security Policy/i.test(m))).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('a .wasm served from elsewhere (init wasmUrl): the pool given the same URL starts its workers; without it, one thread and why', async () => {
    const w = await watchedPage(b.browser, { isolated: true });
    const simd = readFileSync(join(root, 'dist', 'attention-lab-simd.wasm'));
    await w.page.route(`${s.url}/dist/*.wasm`, (route) => route.fulfill({ status: 404, body: 'moved to /cdn/' }));
    await w.page.route(`${s.url}/cdn/attention-lab-simd.wasm`, (route) => route.fulfill({ contentType: 'application/wasm', body: simd }));
    await w.page.route(`${s.url}/pool.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
    await w.page.goto(`${s.url}/pool.html`);
    await w.page.waitForFunction(() => window.ok);
    const given = await w.page.evaluate(() => window.run({ wasmUrl: '/cdn/attention-lab-simd.wasm' }, { wasm: '/cdn/attention-lab-simd.wasm' }));
    expect(given).toMatchObject({ build: 'simd', workers: 2, reason: null, bad: badInput, closed: 'DISPOSED' });
    expect(given.checks).toEqual(Array(13).fill(true));
    const notGiven = await w.page.evaluate(() => window.run({ wasmUrl: '/cdn/attention-lab-simd.wasm' }));
    expect(notGiven).toMatchObject({ build: 'simd', workers: 0, bad: badInput });
    expect(notGiven.reason).toMatch(/attention-lab-simd\.wasm answered 404/);
    expect(notGiven.checks).toEqual(Array(13).fill(true));
    // the browser reports the 404 of the default location; nothing else
    expect(w.problems.console.filter((m) => !/404/.test(m))).toEqual([]);
    await w.context.close();
  });
});
