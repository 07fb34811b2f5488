// Shared by the consumer tests: the packed tarball (built and packed once per
// run of its contents, then reused), fresh consumer folders with the tarball
// installed, the bundlers installed once into a cache, a static server with
// optional CORS and URL prefix, Debian's Chromium, and the known answer every
// consumer computes.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
/** Whether scripts/build.mjs made the FMA build (its .wasm is in dist/ and so in the tarball): Chromium then loads it. */
export const FMA_BUILT = existsSync(join(root, 'dist', 'attention-lab-fma.wasm'));
/** The builds the inference entry's init() may load, and the one Chromium (relaxed SIMD) loads. */
export const INIT_BUILDS = FMA_BUILT ? ['fma', 'simd', 'scalar'] : ['simd', 'scalar'];
export const CHROMIUM_BUILD = FMA_BUILT ? 'fma' : 'simd';
export const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
export const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
export const viteBin = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const cache = join(tmpdir(), 'attention-lab-consumers');

/** Bundlers not in the repo's devDependencies: installed once into the cache, exact versions. */
export const TOOLS = { webpack: '5.112.2', esbuild: '0.28.2' };

/** Run a command; throw with its output when it fails. Returns stdout. */
export function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function hashTree(hash, path) {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) hashTree(hash, join(path, name));
  } else {
    hash.update(path.slice(root.length));
    hash.update(readFileSync(path));
  }
}

/**
 * Build dist/ (library and components) if needed, through the build lock, then `npm pack` it, once per
 * distinct content: later test files of the same run reuse the tarball.
 * @returns {{ tarball: string, files: { path: string, size: number }[], size: number, version: string }}
 */
export function packed() {
  // the library, then the components bundle (the exports map names dist/components.js)
  for (const script of ['scripts/build.mjs', 'scripts/build-web.mjs']) run('flock', ['/tmp/build.lock', process.execPath, script, '--if-missing'], { cwd: root });
  const hash = createHash('sha256');
  for (const p of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist', 'bin', 'docs']) hashTree(hash, join(root, p));
  const dir = join(cache, `pack-${hash.digest('hex').slice(0, 16)}`);
  const info = join(dir, 'pack.json');
  if (!existsSync(info)) {
    mkdirSync(cache, { recursive: true });
    const tmp = mkdtempSync(join(cache, 'packing-'));
    const out = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: root }))[0];
    writeFileSync(join(tmp, 'pack.json'), JSON.stringify({ tarball: out.filename, files: out.files, size: out.size, version: out.version }));
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another run packed the same content first
    }
    // tarballs of older contents: drop those unused for two hours
    for (const old of readdirSync(cache).filter((f) => /^(pack|packing)-/.test(f)))
      if (Date.now() - statSync(join(cache, old)).mtimeMs > 2 * 3600_000) rmSync(join(cache, old), { recursive: true, force: true });
  }
  const meta = JSON.parse(readFileSync(info, 'utf8'));
  return { ...meta, tarball: join(dir, meta.tarball) };
}

/**
 * A fresh folder with the tarball installed as a user would (`npm install x.tgz`).
 * @param {string} name  a label for the folder
 * @param {Record<string, string>} files  extra files to write, by relative path
 * @param {object} manifest  extra package.json fields
 */
export function freshApp(name, files = {}, manifest = {}) {
  const { tarball } = packed();
  const dir = mkdtempSync(join(tmpdir(), `attention-lab-${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true, ...manifest }, null, 2));
  run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: dir });
  writeFiles(dir, files);
  return dir;
}

export function writeFiles(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
}

/** The folder holding webpack and esbuild at TOOLS' versions, installed on first use (under a lock). */
export function tools() {
  const dir = join(cache, `tools-webpack${TOOLS.webpack}-esbuild${TOOLS.esbuild}`);
  if (existsSync(join(dir, 'ok'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-tools', private: true }));
  run('flock', [join(cache, 'tools.lock'), 'sh', '-c', `test -e ok || (npm install --no-audit --no-fund -E webpack@${TOOLS.webpack} esbuild@${TOOLS.esbuild} && touch ok)`], { cwd: dir });
  return dir;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * Serve `dir` on 127.0.0.1 (a free port). `prefix` mounts it under a path
 * (e.g. /npm/attention-lab@0.1.0); `cors` adds Access-Control-Allow-Origin: *.
 * Records every request path in `requests`.
 */
export function serve(dir, { prefix = '', cors = false } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    const headers = cors ? { 'access-control-allow-origin': '*' } : {};
    if (!path.startsWith(`${prefix}/`)) return res.writeHead(404, headers).end();
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(dir.endsWith(sep) ? dir : dir + sep)) return res.writeHead(403, headers).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return res.writeHead(404, headers).end();
    res.writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${server.address().port}${prefix}`,
        requests,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

/** Debian's Chromium through playwright-core (which gives each launch a fresh profile). */
export async function launch() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Open `url` in a new context; collect console errors, page errors and failed
 * requests; wait for `#result` to be filled and return its JSON.
 * `init` is a script run in the page before any of its own.
 */
export async function openAndRead(browser, url, { init, selector = '#result', timeout = 30_000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  const wasm = [];
  page.on('response', (r) => r.url().endsWith('.wasm') && wasm.push({ url: r.url(), type: r.headers()['content-type'], status: r.status() }));
  if (init) await page.addInitScript(init);
  await page.goto(url);
  let text;
  try {
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent, selector, { timeout });
    text = await page.textContent(selector);
  } catch (e) {
    throw new Error(`${url}: no result (${e.message.split('\n')[0]}); problems: ${problems.join('; ') || 'none'}`);
  }
  return { result: JSON.parse(text), problems, wasm, page, context };
}

// The known answer every consumer computes: scaled dot-product attention of
// these Q, K, V (cross-attention: 3 queries over 4 keys), output and weights
// checked against a float64 reference, plus one SHAPE_MISMATCH error.
export const Q = [
  [1, 0, 0.5],
  [0, 1, -1],
  [0.25, -0.5, 2],
];
export const K = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
  [1, 1, 1],
];
export const V = [
  [1, 2],
  [3, 4],
  [5, 6],
  [7, -8],
];

/** The consumer code, as source: computes the attention with `lab` and returns a JSON-able result. */
export const COMPUTE = `(lab) => {
  const r = lab.scaledDotProductAttention(${JSON.stringify(Q)}, ${JSON.stringify(K)}, ${JSON.stringify(V)});
  let code = 'none';
  try { lab.matmul([[1, 2]], [[1, 2]]); } catch (e) { code = e.code; }
  return { simd: lab.simd, rows: r.output.rows, cols: r.output.cols, output: Array.from(r.output.data), weights: Array.from(r.weights.data), code };
}`;

/** float64 softmax(QKᵀ/√d)V, row-major, and the weights. */
export function reference() {
  const d = Q[0].length;
  const weights = [];
  const output = [];
  for (const q of Q) {
    const s = K.map((k) => k.reduce((acc, kj, j) => acc + kj * q[j], 0) / Math.sqrt(d));
    const max = Math.max(...s);
    const e = s.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    const w = e.map((x) => x / sum);
    weights.push(...w);
    for (let c = 0; c < V[0].length; c++) output.push(w.reduce((acc, wj, j) => acc + wj * V[j][c], 0));
  }
  return { output, weights };
}

/** Assert a consumer's result against the float64 reference. */
export function expectKnownAnswer(expect, result, { simd } = {}) {
  const ref = reference();
  expect(result.rows).toBe(3);
  expect(result.cols).toBe(2);
  expect(result.code).toBe('SHAPE_MISMATCH');
  if (simd !== undefined) expect(result.simd).toBe(simd);
  for (const [got, want] of [
    [result.output, ref.output],
    [result.weights, ref.weights],
  ]) {
    expect(got).toHaveLength(want.length);
    got.forEach((x, i) => expect(Math.abs(x - want[i])).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(want[i])));
  }
}

/** An HTML page that runs `script` as a module and writes its result into #result. */
export const page = (title, body = '', head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title>${head}</head>
<body><h1>${title}</h1>${body}<pre id="result"></pre></body></html>
`;

// The training entry's known answers ('attention-lab/training'): the backward pass of the attention
// above for an output gradient dO, checked against a float64 reference, and a few training steps of a
// tiny seeded Transformer on the reverse task, checked against the same steps run in Node.
export const DO = [
  [1, 0],
  [0, -1],
  [0.5, 2],
];

/** The training consumer code, as source: needs a training lab; returns a JSON-able result. */
export const TRAIN = `(lab) => {
  const [Q, K, V, dO] = ${JSON.stringify([Q, K, V, DO])};
  const { dQ, dK, dV } = lab.attentionBackward(Q, K, V, dO);
  const task = lab.tasks.reverse;
  const sizes = { dModel: 16, heads: 2, dFF: 32, encoderLayers: 1, decoderLayers: 1 };
  const model = lab.createTransformer({ task, ...sizes, seed: 5 });
  const batch = task.batch({ seed: 3, size: 8 });
  const losses = [];
  for (let i = 0; i < 4; i++) losses.push(model.trainStep(batch, { learningRate: 0.01 }).loss);
  const generated = model.generate(task.encode('abcd')).tokens;
  model.dispose();
  const data = (m) => Array.from(m.data);
  return { training: lab.training, simd: lab.simd, dQ: data(dQ), dK: data(dK), dV: data(dV), losses, generated };
}`;

/** float64 gradients of L = Σ O ∘ dO for the known answer's Q, K, V: { dQ, dK, dV }, row-major. */
export function backwardReference() {
  const scale = 1 / Math.sqrt(Q[0].length);
  const dot = (a, b) => a.reduce((acc, x, i) => acc + x * b[i], 0);
  const P = Q.map((q) => {
    const e = K.map((k) => Math.exp(dot(q, k) * scale));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
  // dS = P ∘ (dP − rowsum(P ∘ dP)) with dP = dO Vᵀ
  const dS = P.map((p, i) => {
    const dP = V.map((v) => dot(DO[i], v));
    const mean = dot(p, dP);
    return p.map((pj, j) => pj * (dP[j] - mean));
  });
  const column = (rows, c) => rows.map((r) => r[c]);
  const times = (A, B) => A.flatMap((a) => B[0].map((_, c) => dot(a, column(B, c))));
  const transpose = (A) => A[0].map((_, c) => column(A, c));
  return {
    dQ: times(dS, K).map((x) => x * scale),
    dK: times(transpose(dS), Q).map((x) => x * scale),
    dV: times(transpose(P), DO),
  };
}

/** TRAIN run in this Node process on the repo's build (dist/training-node.js, what the tarball packs). */
export async function trainInNode(simd) {
  const { init } = await import(join(root, 'dist', 'training-node.js'));
  return new Function(`return ${TRAIN}`)()(await init({ simd }));
}

/**
 * Assert a training consumer's result: the gradients against the float64 reference, the losses and
 * the decoded tokens against Node's (`node`, from trainInNode with the same build). Node and the
 * browser run the same .wasm bytes, and WebAssembly's float arithmetic is deterministic (no fast
 * math, no relaxed SIMD), so the losses agree bit for bit (they did, in Chromium, for both builds).
 * The relative 1e-5 (float32's precision) keeps the test about "the training build loaded and
 * computed" rather than about engines being bit-exact; a wrong seed, batch or rate moves the losses
 * by far more (each step lowers them by 0.15 to 0.35).
 */
export function expectTrainingAnswer(expect, result, node, { simd } = {}) {
  expect(result.error).toBeUndefined();
  expect(result.training).toBe(true);
  if (simd !== undefined) expect(result.simd).toBe(simd);
  const ref = backwardReference();
  for (const name of ['dQ', 'dK', 'dV']) {
    expect(result[name], name).toHaveLength(ref[name].length);
    const tolerance = (want) => 1e-5 + 1e-5 * Math.abs(want);
    result[name].forEach((x, i) =>
      expect(Math.abs(x - ref[name][i]), `${name}[${i}]`).toBeLessThanOrEqual(tolerance(ref[name][i])),
    );
  }
  expect(result.losses).toHaveLength(node.losses.length);
  const close = (x, want) => Math.abs(x - want) <= 1e-5 * Math.abs(want);
  result.losses.forEach((x, i) =>
    expect(close(x, node.losses[i]), `loss ${i}: ${x}, Node: ${node.losses[i]}`).toBe(true),
  );
  expect(result.losses.at(-1)).toBeLessThan(result.losses[0]); // it learns
  expect(result.generated).toEqual(node.generated);
}
