// The FMA build in Chromium (relaxed SIMD ships there): the demo page fetches attention-lab-fma.wasm
// and no other inference .wasm; a module page importing dist/index.js gets lab.build 'fma', the
// fused rounding, and 'simd' with { fma: false }; with the FMA .wasm unreachable (a bundle that
// did not copy it) init() loads the SIMD build, and nothing but the browser's own line about the
// failed request reaches the console.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ready, root, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: site/ and dist/ both under s.url
const built = existsSync(join(root, 'dist', 'attention-lab-fma.wasm'));
// V8 on x86-64 fuses relaxed_madd where the CPU has FMA3 (and rounds twice where it does not).
const cpuFuses =
  process.arch === 'x64' && existsSync('/proc/cpuinfo') && /^flags\s*:.*\bfma\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
if (!built) console.log('FMA e2e tests skipped: dist/attention-lab-fma.wasm was not built (scripts/build.mjs says why)');

// Loaded as a module by the page itself; window.run(options) resolves to what init(options) loaded.
// (1 + 2⁻²³)(1 − 2⁻²³) − 1 = −2⁻⁴⁶ exactly; float32 rounds the product to 1 first unless fused.
const PAGE = `<!doctype html><html lang="en"><title>fma</title><body></body>
<script type="module">
import { init } from '/dist/index.js';
window.run = async (options) => {
  const lab = await init(options);
  const A = { rows: 1, cols: 2, data: new Float32Array([1, 1 + 2 ** -23]) };
  const B = { rows: 2, cols: 4, data: new Float32Array([-1, -1, -1, -1, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23]) };
  return { build: lab.build, simd: lab.simd, fma: lab.fma, madd: lab.matmul(A, B).data[0] };
};
window.ok = true;
</script></html>`;

async function modulePage({ blockFma = false } = {}) {
  const w = await watchedPage(b.browser);
  w.wasm = [];
  w.page.on('request', (r) => r.url().endsWith('.wasm') && w.wasm.push(new URL(r.url()).pathname));
  if (blockFma) await w.page.route('**/attention-lab-fma.wasm', (route) => route.fulfill({ status: 404, body: 'not here' }));
  await w.page.route(`${s.url}/fma.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await w.page.goto(`${s.url}/fma.html`);
  await w.page.waitForFunction(() => window.ok);
  return w;
}

describe.skipIf(!built)('the FMA build in Chromium', () => {
  test('the demo page loads the FMA build: it fetches attention-lab-fma.wasm, not the SIMD or scalar one', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    const wasm = [];
    page.on('request', (r) => r.url().endsWith('.wasm') && wasm.push(new URL(r.url()).pathname));
    await page.goto(`${s.url}/site/?step=scaled`);
    await ready(page);
    expect(wasm).toEqual(['/site/attention-lab-fma.wasm']);
    expect(await page.locator('#build').textContent()).toBe('WASM build: SIMD with FMA'); // the page says which
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test("init() gives lab.build 'fma' and the once-rounded a·b + c; { fma: false } the SIMD build and its rounding", async () => {
    const { page, problems, context, wasm } = await modulePage();
    const fused = await page.evaluate(() => window.run());
    expect(fused).toEqual({ build: 'fma', simd: true, fma: true, madd: cpuFuses ? -(2 ** -46) : 0 });
    expect(await page.evaluate(() => window.run({ fma: false }))).toEqual({ build: 'simd', simd: true, fma: false, madd: 0 });
    expect(wasm).toEqual(['/dist/attention-lab-fma.wasm', '/dist/attention-lab-simd.wasm']);
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('with the FMA .wasm unreachable (404), init() loads the SIMD build, the library logs nothing; { fma: true } says why', async () => {
    const { page, problems, context, wasm } = await modulePage({ blockFma: true });
    expect(await page.evaluate(() => window.run())).toEqual({ build: 'simd', simd: true, fma: false, madd: 0 });
    // the glue asks for the FMA .wasm (streaming, then once more as a plain fetch), then the SIMD one
    expect(wasm.filter((p) => p !== '/dist/attention-lab-fma.wasm')).toEqual(['/dist/attention-lab-simd.wasm']);
    expect(wasm[0]).toBe('/dist/attention-lab-fma.wasm');
    // the browser's own line about the failed request is the only one (the library logs nothing)
    expect(problems.console.filter((m) => !/^Failed to load resource: the server responded with a status of 404/.test(m))).toEqual([]);
    const error = await page.evaluate(() => window.run({ fma: true }).then(() => 'loaded', (e) => e.message));
    expect(error).toMatch(/^init: attention-lab-fma\.wasm could not be instantiated: /);
    await context.close();
  });
});
