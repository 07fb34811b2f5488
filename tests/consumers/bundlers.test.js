// Bundler consumers of the installed tarball: one small app (import { init }
// from 'attention-lab', compute, show the result) built with Vite 8, webpack 5
// and esbuild, each output served on 127.0.0.1 and loaded in Debian's Chromium.
// Vite and webpack find the .wasm through `new URL('./x.wasm', import.meta.url)`
// and emit it; esbuild leaves that URL alone, so its app copies the .wasm next
// to the bundle (the documented step) or passes init({ locateFile }).
// A second app trains the way the page will: the same main thread, and a module
// worker importing 'attention-lab/training'. Only that app's output holds the
// training .wasm; the inference app's never does.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
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
  page,
  root,
  run,
  serve,
  tools,
  trainInNode,
  viteBin,
  writeFiles,
  CHROMIUM_BUILD,
  INIT_BUILDS,
} from './helpers.js';

const main = (initArgs = '') => `import { init } from 'attention-lab';
const compute = ${COMPUTE};
const show = (value) => { document.querySelector('#result').textContent = JSON.stringify(value); };
init(${initArgs}).then((lab) => show(compute(lab)), (e) => show({ error: String(e) }));
`;

// The training entry on the main thread (esbuild's app): the inference answer and the training ones.
const MAIN_TRAINING = `import { init } from 'attention-lab/training';
const compute = ${COMPUTE};
const train = ${TRAIN};
const show = (value) => { document.querySelector('#result').textContent = JSON.stringify(value); };
init().then((lab) => show({ ...compute(lab), trained: train(lab) }), (e) => show({ error: String(e) }));
`;

// The Vite and webpack app also starts a module worker that computes with its own lab.
const APP = `import { init } from 'attention-lab';
const compute = ${COMPUTE};
const show = (value) => { document.querySelector('#result').textContent = JSON.stringify(value); };
const fromWorker = new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => resolve(data);
  worker.onerror = (e) => reject(new Error('worker: ' + e.message));
  worker.postMessage('compute');
});
Promise.all([init(), fromWorker]).then(([lab, worker]) => show({ ...compute(lab), worker }), (e) => show({ error: String(e) }));
`;

const WORKER = `import { init } from 'attention-lab';
const compute = ${COMPUTE};
const ready = init();
self.onmessage = async () => {
  const lab = await ready;
  self.postMessage({ ...compute(lab), inWorker: typeof document === 'undefined' });
};
`;

// The training app's worker (train/worker.js, started by the same APP from train/app.js).
const TRAIN_WORKER = `import { init } from 'attention-lab/training';
const train = ${TRAIN};
const ready = init();
self.onmessage = async () => {
  try {
    const lab = await ready;
    // A shipped checkpoint, fetched from where the bundler emitted it (new URL('../checkpoints/…', import.meta.url)).
    const trained = await lab.loadTrained('reverse');
    const checkpoint = trained.generate(lab.tasks.reverse.encode('abcdef')).text;
    trained.dispose();
    // The reader, likewise (new URL('../checkpoints/reader/reader.bin', import.meta.url)).
    const reader = await lab.loadReader({ language: 'zh-CN' });
    const read = reader.attend('动物没有过马路，因为它太累了', { model: 'decoder' });
    const readerView = { tokens: read.tokens.join(' '), layers: read.attention.length, next: reader.predict('床前明月光', { topK: 3 }).length };
    reader.dispose();
    self.postMessage({ ...train(lab), checkpoint, reader: readerView, inWorker: typeof document === 'undefined' });
  } catch (e) {
    self.postMessage({ error: String(e) });
  }
};
`;

// `import 'attention-lab/components'` in a bundled app, and one element.
const COMPONENTS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>components in an app</title>
<script type="module">
import 'attention-lab/components';
const el = document.querySelector('attention-steps');
const done = () => {
  const cells = [...el.shadowRoot.querySelectorAll('[data-step] td[data-i]')].filter((td) => !td.closest('.operands'));
  document.querySelector('#result').textContent = JSON.stringify({ step: el.shadowRoot.querySelector('[data-step]').dataset.step, values: cells.map((td) => Number(td.dataset.value)) });
};
const poll = setInterval(() => { if ('ready' in el.dataset) { clearInterval(poll); done(); } }, 50);
</script></head>
<body><attention-steps sentence="the cat sat" step="weights"></attention-steps><pre id="result"></pre></body></html>
`;

const WEBPACK = (toolsDir) => `// webpack 5 through its Node API (no CLI), production mode, default rules.
const webpack = require(${JSON.stringify(join(toolsDir, 'node_modules', 'webpack'))});
const [entry, outdir] = process.argv.slice(2);
webpack({
  mode: 'production',
  context: __dirname,
  entry,
  output: { path: __dirname + '/' + outdir, filename: 'main.js', clean: true },
  performance: { hints: false },
}, (err, stats) => {
  if (err) { console.error(err); process.exit(1); }
  if (stats.hasErrors() || stats.hasWarnings()) { console.error(stats.toString('errors-warnings')); process.exit(1); }
  console.log(JSON.stringify(stats.toJson({ all: false, assets: true }).assets.map((a) => a.name)));
});
`;

const ESBUILD = (toolsDir) => `// esbuild: one ES module bundle. The .wasm is not bundled: copy it next to the bundle.
import { build } from ${JSON.stringify(join(toolsDir, 'node_modules', 'esbuild', 'lib', 'main.js'))};
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
// flavours: 'attention-lab' (the inference .wasm), 'attention-lab-training' (the training entry's)
const [entry, outdir, copyTo, flavours = 'attention-lab'] = process.argv.slice(2);
await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', outdir, logLevel: 'warning' });
if (copyTo) {
  // the step users add: copy every build's .wasm (init() picks one at run time; the FMA one is the
  // inference entry's only, and absent from a package built without its toolchain)
  const require = createRequire(import.meta.url);
  for (const flavour of flavours.split(','))
    for (const build of flavour === 'attention-lab' ? ['fma', 'simd', 'scalar'] : ['simd', 'scalar']) {
      const file = flavour + '-' + build + '.wasm';
      const from = join(require.resolve('attention-lab/package.json'), '..', 'dist', file);
      if (build !== 'fma' || existsSync(from)) copyFileSync(require.resolve('attention-lab/' + file), join(copyTo, file));
    }
}
console.log(JSON.stringify(readdirSync(outdir)));
`;

// The training build's two .wasm, as the tarball packs them (dist/ is what `npm pack` took).
const TRAINING_WASM = ['simd', 'scalar'].map((b) =>
  readFileSync(join(root, 'dist', `attention-lab-training-${b}.wasm`)),
);

const WEBPACK_HTML = page('attention-lab consumer', '', '<script src="main.js"></script>');

const HTML = (script) => page('attention-lab consumer', '', `<script type="module" src="${script}"></script>`);

describe('bundler consumers: the built app computes an attention in Chromium', () => {
  let app;
  let browser;
  let node; // the training answers computed in this Node process, SIMD build
  const servers = [];

  beforeAll(async () => {
    const toolsDir = tools();
    app = freshApp(
      'bundlers',
      {
        'index.html': HTML('/src/app.js'),
        'src/app.js': APP,
        'src/worker.js': WORKER,
        'src/main.js': main(),
        'src/main-locate.js': main("{ locateFile: (file) => '/static/wasm/' + file }"),
        'src/main-training.js': MAIN_TRAINING,
        'train/index.html': HTML('./app.js'),
        'train/app.js': APP,
        'train/worker.js': TRAIN_WORKER,
        'build-webpack.cjs': WEBPACK(toolsDir),
        'build-esbuild.mjs': ESBUILD(toolsDir),
        'components/index.html': COMPONENTS_PAGE,
      },
      { type: 'module' },
    );
    browser = await launch();
    node = await trainInNode(true);
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  const webpack = (entry, outdir) => run(process.execPath, ['build-webpack.cjs', entry, outdir], { cwd: app });

  async function load(dir, path = '/index.html') {
    const server = await serve(dir);
    servers.push(server);
    const out = await openAndRead(browser, `${server.url}${path}`);
    await out.context.close();
    return out;
  }

  /** `worker`: what the app's module worker computed, 'inference' (the known answer) or 'training'. */
  function expectLoaded(out, { simd = true, worker } = {}) {
    expect(out.result.error).toBeUndefined();
    expectKnownAnswer(expect, out.result, { simd });
    if (worker === 'inference') expectKnownAnswer(expect, out.result.worker, { simd });
    if (worker === 'training') expectTrainingAnswer(expect, out.result.worker, node, { simd });
    if (worker === 'training') {
      expect(out.result.worker.checkpoint).toBe('fedcba');
      expect(out.result.worker.reader).toEqual({ tokens: '<bos> 动 物 没 有 过 马 路 ， 因 为 它 太 累 了', layers: 4, next: 3 });
    }
    if (worker) expect(out.result.worker.inWorker).toBe(true);
    expect(out.problems).toEqual([]);
    // the .wasm was fetched over HTTP with the type instantiateStreaming needs
    expect(out.wasm.length).toBeGreaterThan(0);
    for (const w of out.wasm) {
      expect(w.status).toBe(200);
      expect(w.type).toBe('application/wasm');
    }
  }

  /**
   * The files of a build's output that are the training build's .wasm (by content: webpack names
   * assets by hash alone) or JavaScript naming it (its glue, or the training entry).
   */
  function trainingFiles(dir) {
    const files = readdirSync(dir, { recursive: true }).filter((f) => statSync(join(dir, f)).isFile());
    const isTrainingWasm = (bytes) => TRAINING_WASM.some((w) => w.equals(bytes));
    const namesTraining = (f) => /\.m?js$/.test(f) &&
      readFileSync(join(dir, f), 'utf8').includes('attention-lab-training');
    return files.filter((f) => isTrainingWasm(readFileSync(join(dir, f))) || namesTraining(f));
  }

  it('Vite 8: vite build, then the built app computes the known answer on the main thread and in a module worker', async () => {
    const log = run(process.execPath, [viteBin, 'build', '--outDir', 'out-vite', '--emptyOutDir', '--logLevel', 'warn'], { cwd: app });
    expect(log).not.toMatch(/warn|error/i);
    const assets = readdirSync(join(app, 'out-vite', 'assets'));
    for (const build of INIT_BUILDS) expect(assets.some((f) => new RegExp(`^attention-lab-${build}-.*\\.wasm$`).test(f)), build).toBe(true);
    expect(trainingFiles(join(app, 'out-vite'))).toEqual([]); // an inference app never carries the training build
    const out = await load(join(app, 'out-vite'));
    expectLoaded(out, { worker: 'inference' });
    expect(out.wasm.map((w) => w.url).join()).toMatch(new RegExp(`attention-lab-${CHROMIUM_BUILD}-[^/]*\\.wasm`));
  });

  it("Vite 8: the training app (training in a module worker) emits its .wasm, trains to Node's losses", async () => {
    const args = ['build', 'train', '--outDir', '../out-vite-train', '--emptyOutDir', '--logLevel', 'warn'];
    const log = run(process.execPath, [viteBin, ...args], { cwd: app });
    expect(log).not.toMatch(/warn|error/i);
    const assets = readdirSync(join(app, 'out-vite-train', 'assets')).filter((f) => f.endsWith('.wasm'));
    for (const name of [...INIT_BUILDS, 'training-simd', 'training-scalar'].map((b) => `attention-lab-${b}`))
      expect(assets.filter((f) => new RegExp(`^${name}-[^.]+\\.wasm$`).test(f)), name).toHaveLength(1);
    const out = await load(join(app, 'out-vite-train'));
    expectLoaded(out, { worker: 'training' });
    expect(out.wasm.map((w) => w.url).join()).toMatch(/attention-lab-training-simd-[^/]*\.wasm/);
  });

  it('webpack 5: production build, then the built app computes the known answer on the main thread and in a module worker', async () => {
    const assets = JSON.parse(webpack('./src/app.js', 'out-webpack'));
    expect(assets.filter((f) => f.endsWith('.wasm'))).toHaveLength(INIT_BUILDS.length);
    expect(trainingFiles(join(app, 'out-webpack'))).toEqual([]);
    writeFiles(join(app, 'out-webpack'), { 'index.html': WEBPACK_HTML });
    expectLoaded(await load(join(app, 'out-webpack')), { worker: 'inference' });
  });

  it("webpack 5: the training app emits the training .wasm; its module worker trains to Node's losses", async () => {
    const assets = JSON.parse(webpack('./train/app.js', 'out-webpack-train'));
    expect(assets.filter((f) => f.endsWith('.wasm'))).toHaveLength(INIT_BUILDS.length + 2);
    expect(trainingFiles(join(app, 'out-webpack-train')).filter((f) => f.endsWith('.wasm'))).toHaveLength(2);
    writeFiles(join(app, 'out-webpack-train'), { 'index.html': WEBPACK_HTML });
    expectLoaded(await load(join(app, 'out-webpack-train')), { worker: 'training' });
  });

  // dist/components.js keeps literal new URL('./attention-lab-*.wasm', import.meta.url) and font URLs, which bundlers follow.
  it('Vite 8: an app importing attention-lab/components renders an element with computed weights', async () => {
    run(process.execPath, [viteBin, 'build', 'components', '--outDir', '../out-vite-components', '--emptyOutDir', '--logLevel', 'error'], { cwd: app });
    const server = await serve(join(app, 'out-vite-components'));
    servers.push(server);
    const out = await openAndRead(browser, `${server.url}/index.html`, { timeout: 15_000 });
    await out.context.close();
    expect(out.result.step).toBe('weights');
    expect(out.result.values).toHaveLength(9);
    for (let i = 0; i < 3; i++) expect(Math.abs(out.result.values.slice(3 * i, 3 * i + 3).reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-5);
    expect(out.problems).toEqual([]);
  });

  it('Vite 8 dev server: both apps and their workers compute the known answers unbundled (pre-bundling)', async () => {
    const { createServer } = await import('vite');
    const server = await createServer({ root: app, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false } });
    await server.listen();
    try {
      const { port } = server.httpServer.address();
      const out = await openAndRead(browser, `http://127.0.0.1:${port}/index.html`);
      await out.context.close();
      expectLoaded(out, { worker: 'inference' });
      const trained = await openAndRead(browser, `http://127.0.0.1:${port}/train/index.html`);
      await trained.context.close();
      expectLoaded(trained, { worker: 'training' });
    } finally {
      await server.close();
    }
  });

  it('esbuild: bundle plus the copy-the-.wasm step, then the app computes the known answer', async () => {
    const out = join(app, 'out-esbuild');
    rmSync(out, { recursive: true, force: true });
    const files = JSON.parse(run(process.execPath, ['build-esbuild.mjs', 'src/main.js', out, out], { cwd: app }));
    expect(files).toEqual(expect.arrayContaining(['main.js', ...INIT_BUILDS.map((b) => `attention-lab-${b}.wasm`)]));
    expect(trainingFiles(out)).toEqual([]);
    writeFiles(out, { 'index.html': HTML('main.js') });
    expectLoaded(await load(out));
  });

  it("esbuild: the training entry, bundled with its .wasm copied next to it, trains to Node's losses", async () => {
    const out = join(app, 'out-esbuild-training');
    rmSync(out, { recursive: true, force: true });
    const args = ['build-esbuild.mjs', 'src/main-training.js', out, out, 'attention-lab-training'];
    const files = JSON.parse(run(process.execPath, args, { cwd: app }));
    const wasm = files.filter((f) => f.endsWith('.wasm')).sort();
    expect(wasm).toEqual(['attention-lab-training-scalar.wasm', 'attention-lab-training-simd.wasm']);
    // and the other way round: a bundle of the training entry alone holds no inference glue
    expect(readFileSync(join(out, 'main-training.js'), 'utf8')).not.toContain('attention-lab-simd.wasm');
    writeFiles(out, { 'index.html': HTML('main-training.js') });
    const loaded = await load(out);
    expectLoaded(loaded);
    expectTrainingAnswer(expect, loaded.result.trained, node, { simd: true });
    expect(loaded.wasm.map((w) => new URL(w.url).pathname)).toEqual(['/attention-lab-training-simd.wasm']);
  });

  it('esbuild: without the copy step the .wasm is missing, and init() rejects (the step is needed)', async () => {
    const out = join(app, 'out-esbuild-nocopy');
    rmSync(out, { recursive: true, force: true });
    run(process.execPath, ['build-esbuild.mjs', 'src/main.js', out], { cwd: app });
    writeFiles(out, { 'index.html': HTML('main.js') });
    const server = await serve(out);
    servers.push(server);
    const { result, context } = await openAndRead(browser, `${server.url}/index.html`);
    await context.close();
    expect(result.error).toBeDefined();
  });

  it('esbuild: init({ locateFile }) finds the .wasm served from another folder, no copy next to the bundle', async () => {
    const out = join(app, 'out-esbuild-locate');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(join(out, 'static', 'wasm'), { recursive: true });
    run(process.execPath, ['build-esbuild.mjs', 'src/main-locate.js', out, join(out, 'static', 'wasm')], { cwd: app });
    expect(existsSync(join(out, 'attention-lab-simd.wasm'))).toBe(false);
    writeFiles(out, { 'index.html': HTML('main-locate.js') });
    const loaded = await load(out);
    expectLoaded(loaded);
    expect(loaded.wasm.map((w) => new URL(w.url).pathname)).toEqual([`/static/wasm/attention-lab-${CHROMIUM_BUILD}.wasm`]);
  });
});
