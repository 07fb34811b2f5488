// Browser consumers of the installed tarball, without a bundler, in Debian's
// Chromium: a CDN layout (the package's files under /npm/attention-lab@<version>/
// on one 127.0.0.1 origin, a blog-like page on another), the web components
// from that CDN with one <script type="module">, a module Web Worker, and the
// SIMD → scalar fallback when WebAssembly.validate rejects SIMD. The training
// entry (dist/training.js) the same way: a page, a module worker, the fallback.
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  COMPUTE,
  TRAIN,
  expectKnownAnswer,
  expectTrainingAnswer,
  freshApp,
  launch,
  openAndRead,
  packed,
  page,
  root,
  serve,
  trainInNode,
  writeFiles,
  CHROMIUM_BUILD,
  INIT_BUILDS,
} from './helpers.js';

const { version } = packed();

// A deterministic larger input (an LCG), the same on the main thread and in the worker.
const SEEDED = `(n, d, seed) => {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296) * 2 - 1;
  return { rows: n, cols: d, data: Float32Array.from({ length: n * d }, next) };
}`;

// Scaled dot-product attention of seeded 64×16 inputs, causal, all on the page's lab.
const BIG = `(lab) => {
  const seeded = ${SEEDED};
  const r = lab.scaledDotProductAttention(seeded(64, 16, 1), seeded(64, 16, 2), seeded(64, 8, 3), { mask: 'causal' });
  return Array.from(r.output.data);
}`;

// Patched before any page script: WebAssembly.validate rejects every module
// containing the SIMD opcode prefix 0xFD (the library's SIMD probe among them).
const NO_SIMD = `(() => {
  const validate = WebAssembly.validate;
  WebAssembly.validate = function (bytes) {
    const u8 = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (u8.includes(0xfd)) return false;
    return validate.call(WebAssembly, bytes);
  };
})();`;

const blogPages = (cdn) => ({
  // the library from the CDN, as a blog post would use it
  'post.html': page(
    'A blog post about attention',
    '<p>The weights below are computed in your browser.</p>',
    `<script type="module">
import { init } from '${cdn}/dist/index.js';
const compute = ${COMPUTE};
const big = ${BIG};
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
init().then((lab) => show({ ...compute(lab), big: big(lab) }), (e) => show({ error: String(e) }));
</script>`,
  ),
  // the same post from the bundled, minified entry (one module, then the build's glue and .wasm),
  // with createWorkerPool (its code inside the bundle) and an error it raises
  'post-min.html': page(
    'A blog post about attention, the minified entry',
    '',
    `<script type="module">
import { init, createWorkerPool, AttentionError } from '${cdn}/dist/attention-lab.min.js';
const compute = ${COMPUTE};
const big = ${BIG};
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
const scripts = () => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js'));
init().then(async (lab) => {
  const js = scripts();
  const pool = await createWorkerPool(lab);
  let poolError = null;
  try { await pool.scaledDotProductAttention([[1, 2]], [[1, 2, 3]], [[1]]); } catch (e) { poolError = { isAttentionError: e instanceof AttentionError, code: e.code }; }
  pool.close();
  show({ ...compute(lab), big: big(lab), poolError, js, poolJs: scripts().filter((n) => !js.includes(n)) });
}, (e) => show({ error: String(e) }));
</script>`,
  ),
  // the same post, importing from a CDN that sends no CORS header (must fail)
  'post-no-cors.html': page(
    'A blog post without CORS',
    '',
    `<script type="module">
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
import(new URLSearchParams(location.search).get('cdn') + '/dist/index.js').then((m) => m.init()).then(() => show({ ok: true }), (e) => show({ error: String(e) }));
</script>`,
  ),
  // the components: one <script type="module"> and an element
  'components.html': `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Attention, step by step</title>
<script type="module" src="${cdn}/dist/components.js"></script></head>
<body><h1>Attention, step by step</h1>
<attention-steps sentence="the cat sat" d-model="3" d-k="3" step="weights"></attention-steps>
</body></html>
`,
  // a module worker importing the library from the CDN
  'worker.html': page(
    'Attention off the main thread',
    '',
    `<script type="module">
import { init } from '${cdn}/dist/index.js';
const big = ${BIG};
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
const worker = new Worker(new URL('./attention-worker.js', import.meta.url), { type: 'module' });
worker.onerror = (e) => show({ error: 'worker: ' + e.message });
worker.onmessage = async ({ data }) => {
  if (data.error) return show(data);
  const lab = await init();
  const mine = big(lab);
  const theirs = Array.from(new Float32Array(data.big));
  show({ ...data.small, inWorker: data.inWorker, big: theirs, sameAsMainThread: mine.length === theirs.length && mine.every((x, i) => x === theirs[i]) });
};
worker.postMessage({ compute: true });
</script>`,
  ),
  'attention-worker.js': `import { init } from '${cdn}/dist/index.js';
const compute = ${COMPUTE};
const big = ${BIG};
const ready = init();
self.onmessage = async () => {
  try {
    const lab = await ready;
    const out = Float32Array.from(big(lab));
    self.postMessage({ small: compute(lab), big: out.buffer, inWorker: typeof document === 'undefined' && typeof WorkerGlobalScope === 'function' }, [out.buffer]);
  } catch (e) {
    self.postMessage({ error: String(e) });
  }
};
`,
  // the training entry from the CDN: the inference answer and the training ones
  'training.html': page(
    'Training in the page',
    '',
    `<script type="module">
import { init } from '${cdn}/dist/training.js';
const compute = ${COMPUTE};
const train = ${TRAIN};
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
const checkpoint = ${CHECKPOINT};
init().then(async (lab) => show({ ...compute(lab), trained: train(lab), checkpoint: await checkpoint(lab) }), (e) => show({ error: String(e) }));
</script>`,
  ),
  // training in a module worker, as the page will
  'training-worker.html': page(
    'Training off the main thread',
    '',
    `<script type="module">
const show = (v) => { document.querySelector('#result').textContent = JSON.stringify(v); };
const worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
worker.onerror = (e) => show({ error: 'worker: ' + e.message });
worker.onmessage = ({ data }) => show(data);
worker.postMessage('train');
</script>`,
  ),
  'training-worker.js': `import { init } from '${cdn}/dist/training.js';
const train = ${TRAIN};
const ready = init();
self.onmessage = async () => {
  try {
    const inWorker = typeof document === 'undefined' && typeof WorkerGlobalScope === 'function';
    self.postMessage({ ...train(await ready), inWorker });
  } catch (e) {
    self.postMessage({ error: String(e) });
  }
};
`,
});

// A shipped checkpoint fetched from beside dist/training.js (the CDN, another origin): the dates model's
// text and cross-attention for a fixed input, and a hostile URL's error.
const CHECKPOINT = `async (lab) => {
  const model = await lab.loadTrained('dates');
  const { text, attention } = model.generate(lab.tasks.dates.encode('1 Dec 2026'), { attention: true });
  model.dispose();
  let error = null;
  try { await lab.loadTrained('dates', { url: 'data:,not a model' }); } catch (e) { error = [e.name, e.code, e.message]; }
  return { text, cross: attention.cross, error };
}`;

async function checkpointInNode(simd) {
  const { init } = await import(join(root, 'dist', 'training-node.js'));
  return new Function(`return ${CHECKPOINT}`)()(await init({ simd }));
}

function expectCheckpoint(result, node) {
  expect(result.text).toBe('2026-12-01');
  expect(result.cross).toEqual(node.cross); // number for number: the same .wasm on the same bytes
  expect(result.error).toEqual(['AttentionError', 'INVALID_ARGUMENT', expect.stringMatching(/^loadTrained\("dates"\): loadTransformer: these 11 bytes are not a model saved by model\.save\(\): it does not start with "ATLM"/)]);
}

describe('browser consumers from a CDN layout, in Chromium', () => {
  let app;
  let browser;
  let cdn;
  let blog;
  let bareCdn;
  const node = {}; // the training answers computed in this Node process, by build

  beforeAll(async () => {
    app = freshApp('browser');
    const pkgDir = join(app, 'node_modules', 'attention-lab');
    cdn = await serve(pkgDir, { prefix: `/npm/attention-lab@${version}`, cors: true });
    bareCdn = await serve(pkgDir, { prefix: `/npm/attention-lab@${version}` });
    const blogDir = join(app, 'blog');
    writeFiles(blogDir, blogPages(cdn.url));
    blog = await serve(blogDir);
    browser = await launch();
    node.simd = await trainInNode(true);
    node.scalar = await trainInNode(false);
    node.checkpoint = { simd: await checkpointInNode(true), scalar: await checkpointInNode(false) };
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of [cdn, bareCdn, blog]) await s?.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('a page on another origin imports the library from /npm/attention-lab@<version>/ and computes', async () => {
    expect(cdn.url).toMatch(new RegExp(`/npm/attention-lab@${version.replace(/\./g, '\\.')}$`));
    expect(new URL(cdn.url).origin).not.toBe(new URL(blog.url).origin);
    const { result, problems, wasm, context } = await openAndRead(browser, `${blog.url}/post.html`);
    await context.close();
    expect(result.error).toBeUndefined();
    expectKnownAnswer(expect, result, { simd: true });
    expect(result.big).toHaveLength(64 * 8);
    expect(result.big.every(Number.isFinite)).toBe(true);
    expect(problems).toEqual([]);
    // the .wasm came from the CDN, found relative to the module's own URL
    expect(wasm).toEqual([{ url: `${cdn.url}/dist/attention-lab-${CHROMIUM_BUILD}.wasm`, type: 'application/wasm', status: 200 }]);
  });

  it('the minified entry (dist/attention-lab.min.js): one module and the glue, the same numbers, the pool inside it', async () => {
    const min = await openAndRead(browser, `${blog.url}/post-min.html`);
    await min.context.close();
    const plain = await openAndRead(browser, `${blog.url}/post.html`);
    await plain.context.close();
    expect(min.result.error).toBeUndefined();
    expect(min.problems).toEqual([]);
    expectKnownAnswer(expect, min.result, { simd: true });
    expect(min.result.big).toEqual(plain.result.big);
    expect(min.result.poolError).toEqual({ isAttentionError: true, code: 'SHAPE_MISMATCH' });
    // init() fetched the bundle and the build's glue; the pool, its browser workers' module beside it
    expect(min.result.js).toEqual([`${cdn.url}/dist/attention-lab.min.js`, `${cdn.url}/dist/attention-lab-${CHROMIUM_BUILD}.js`]);
    expect(min.result.poolJs).toEqual([`${cdn.url}/dist/parallel/browser-workers.js`]);
    // the .wasm from beside the bundle (init(), then once more for the pool's workers)
    expect(new Set(min.wasm.map(JSON.stringify))).toEqual(new Set([JSON.stringify({ url: `${cdn.url}/dist/attention-lab-${CHROMIUM_BUILD}.wasm`, type: 'application/wasm', status: 200 })]));
  });

  it('the CDN needs CORS: without Access-Control-Allow-Origin the import fails', async () => {
    const { result, context } = await openAndRead(browser, `${blog.url}/post-no-cors.html?cdn=${encodeURIComponent(bareCdn.url)}`);
    await context.close();
    expect(result.ok).toBeUndefined();
    expect(result.error).toMatch(/Failed to fetch dynamically imported module/);
  });

  it('the components: one <script type="module"> from the CDN and an element render and compute', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems = [];
    tab.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    tab.on('pageerror', (e) => problems.push(String(e)));
    tab.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    await tab.goto(`${blog.url}/components.html`);
    await tab.waitForFunction(() => 'ready' in (document.querySelector('attention-steps')?.dataset ?? {}), null, { timeout: 30_000 });
    // Replace the seeded matrices with known ones: X = Q of the known answer, W_Q = W_K = W_V = I,
    // so the weights are softmax(XXᵀ/√3); read them back from the rendered heatmap.
    const X = [
      [1, 0, 0.5],
      [0, 1, -1],
      [0.25, -0.5, 2],
    ];
    const I = [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
    const shown = await tab.evaluate(
      ({ X, I }) =>
        new Promise((done) => {
          const el = document.querySelector('attention-steps');
          const read = () => {
            const panel = el.shadowRoot.querySelector('[data-step]');
            const cells = [...panel.querySelectorAll('td[data-i]')].filter((td) => !td.closest('.operands'));
            done({ step: panel.dataset.step, cells: cells.map((td) => [Number(td.dataset.i), Number(td.dataset.j), Number(td.dataset.value)]) });
          };
          // data-ready comes back once every cell of this render is written (data-value when the page is next idle, after the render).
          const whenReady = () => ('ready' in el.dataset ? read() : setTimeout(whenReady, 5));
          el.addEventListener('attention-render', whenReady, { once: true });
          el.inputs = { X, Wq: I, Wk: I, Wv: I };
        }),
      { X, I },
    );
    await context.close();
    const expected = X.map((q) => {
      const s = X.map((k) => k.reduce((a, kj, j) => a + kj * q[j], 0) / Math.sqrt(3));
      const m = Math.max(...s);
      const e = s.map((x) => Math.exp(x - m));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((x) => x / sum);
    });
    expect(shown.step).toBe('weights');
    expect(shown.cells).toHaveLength(9);
    for (const [i, j, v] of shown.cells) expect(Math.abs(v - expected[i][j])).toBeLessThan(1e-5);
    expect(problems).toEqual([]);
  });

  it('a module Web Worker imports the library and computes off the main thread', async () => {
    const { result, problems, context } = await openAndRead(browser, `${blog.url}/worker.html`);
    await context.close();
    expect(result.error).toBeUndefined();
    expect(result.inWorker).toBe(true);
    expectKnownAnswer(expect, result, { simd: true });
    expect(result.big).toHaveLength(64 * 8);
    expect(result.sameAsMainThread).toBe(true);
    expect(problems).toEqual([]);
  });

  it('SIMD fallback: with WebAssembly.validate rejecting SIMD, init() loads the scalar build and the results match', async () => {
    const simd = await openAndRead(browser, `${blog.url}/post.html`);
    const scalar = await openAndRead(browser, `${blog.url}/post.html`, { init: NO_SIMD });
    await simd.context.close();
    await scalar.context.close();
    expect(scalar.result.error).toBeUndefined();
    expectKnownAnswer(expect, scalar.result, { simd: false });
    expect(scalar.wasm.map((w) => w.url)).toEqual([`${cdn.url}/dist/attention-lab-scalar.wasm`]);
    expect(scalar.problems).toEqual([]);
    expect(simd.result.simd).toBe(true);
    // the two builds agree on a 64×16 causal attention
    expect(scalar.result.big).toHaveLength(simd.result.big.length);
    scalar.result.big.forEach((x, i) => expect(Math.abs(x - simd.result.big[i])).toBeLessThanOrEqual(1e-6 + 1e-5 * Math.abs(simd.result.big[i])));
  });

  it('a page on another origin imports the training entry from the CDN (dist/training.js) and trains', async () => {
    const { result, problems, wasm, context } = await openAndRead(browser, `${blog.url}/training.html`);
    await context.close();
    expect(result.error).toBeUndefined();
    expectKnownAnswer(expect, result, { simd: true });
    expectTrainingAnswer(expect, result.trained, node.simd, { simd: true });
    expectCheckpoint(result.checkpoint, node.checkpoint.simd);
    expect(problems).toEqual([]);
    // only the training .wasm, found relative to dist/training.js on the CDN
    const url = `${cdn.url}/dist/attention-lab-training-simd.wasm`;
    expect(wasm).toEqual([{ url, type: 'application/wasm', status: 200 }]);
  });

  it('a module Web Worker imports the training entry from the CDN and trains off the main thread', async () => {
    const { result, problems, wasm, context } = await openAndRead(browser, `${blog.url}/training-worker.html`);
    await context.close();
    expect(result.inWorker).toBe(true);
    expectTrainingAnswer(expect, result, node.simd, { simd: true });
    expect(problems).toEqual([]);
    expect(wasm.map((w) => w.url)).toEqual([`${cdn.url}/dist/attention-lab-training-simd.wasm`]);
  });

  it("SIMD fallback, training entry: it loads attention-lab-training-scalar.wasm, Node's scalar losses", async () => {
    const opened = await openAndRead(browser, `${blog.url}/training.html`, { init: NO_SIMD });
    const { result, problems, wasm, context } = opened;
    await context.close();
    expect(result.error).toBeUndefined();
    expectKnownAnswer(expect, result, { simd: false });
    expectTrainingAnswer(expect, result.trained, node.scalar, { simd: false });
    expectCheckpoint(result.checkpoint, node.checkpoint.scalar);
    expect(wasm.map((w) => w.url)).toEqual([`${cdn.url}/dist/attention-lab-training-scalar.wasm`]);
    expect(problems).toEqual([]);
  });
});
