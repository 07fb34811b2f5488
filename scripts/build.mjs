// npm run build: the two WASM builds (SIMD and scalar) and the package's dist/, and a third,
// FMA (relaxed SIMD), where its toolchain is installed (scripts/fma-toolchain.mjs); then the
// browser entry bundled and minified (scripts/bundle-min.mjs: dist/attention-lab.min.js).
// Usage: node scripts/build.mjs [--if-missing]
//   --if-missing  skip the work when dist/ is already newer than every source
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleMin, MIN_ENTRY } from './bundle-min.mjs';
import { fmaEnvironment, fmaMissing } from './fma-toolchain.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const wasmBuild = join(root, 'build', 'wasm');
const fmaBuild = join(root, 'build', 'wasm-fma');

// bindings/ files that ship in dist/, and every operation family in bindings/ops/
// (a new family ships without an edit here). Not shipped: the .cpp/.h files and
// arg-blocks-header.js, which the WASM build runs.
const PACKAGE_FILES = [
  'index.js', 'node.js', 'index.cjs', 'load.js', 'builds.js', 'api.js', 'frame.js', 'arg-blocks.js', 'errors.js',
  'validate.js',
  'shapes.js', 'attention-trace.js', 'workspace.js', 'steps.js', 'overflow.js', 'tensors.js', 'index.d.ts', 'index.d.cts',
  'training.js', 'training-node.js', 'training.cjs', 'training.d.ts', 'training.d.cts',
  ...readdirSync(join(root, 'bindings', 'ops')).filter((f) => f.endsWith('.js')).map((f) => `ops/${f}`),
  ...readdirSync(join(root, 'bindings', 'types')).filter((f) => f.endsWith('.d.ts')).map((f) => `types/${f}`),
  ...readdirSync(join(root, 'bindings', 'tasks')).filter((f) => f.endsWith('.js')).map((f) => `tasks/${f}`),
  ...readdirSync(join(root, 'bindings', 'train')).filter((f) => f.endsWith('.js')).map((f) => `train/${f}`),
  ...readdirSync(join(root, 'bindings', 'parallel')).filter((f) => f.endsWith('.js')).map((f) => `parallel/${f}`),
  // the reader: its tokenizer, vocabulary, file format and lab.loadReader
  ...readdirSync(join(root, 'bindings', 'reader')).filter((f) => /\.(js|d\.ts|json)$/.test(f)).map((f) => `reader/${f}`),
];
// The shipped checkpoints (checkpoints/<task>.bin, written by scripts/make-checkpoints.mjs): dist/checkpoints/.
// The reader's file, once made (checkpoints/reader/reader.bin), goes to dist/checkpoints/reader/.
const CHECKPOINTS = [
  ...readdirSync(join(root, 'checkpoints')).filter((f) => f.endsWith('.bin')),
  ...(existsSync(join(root, 'checkpoints', 'reader')) ? readdirSync(join(root, 'checkpoints', 'reader')).filter((f) => f.endsWith('.bin')).map((f) => `reader/${f}`) : []),
];
// The inference builds init() loads and the training builds 'attention-lab/training' loads.
const BUILDS = ['simd', 'scalar', 'training-simd', 'training-scalar'];
const GLUE = BUILDS.flatMap((b) => [`attention-lab-${b}.js`, `attention-lab-${b}.wasm`]);
// The FMA inference build: made, and expected in dist/, only where fmaMissing() finds nothing missing.
const FMA_GLUE = ['attention-lab-fma.js', 'attention-lab-fma.wasm'];

function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  visit(join(root, 'src'));
  visit(join(root, 'bindings'));
  visit(join(root, 'checkpoints'));
  newest = Math.max(newest, statSync(join(root, 'CMakeLists.txt')).mtimeMs);
  return newest;
}

function upToDate() {
  const outputs = [...PACKAGE_FILES, ...CHECKPOINTS.map((f) => `checkpoints/${f}`), ...GLUE, ...(fmaMissing(root) ? [FMA_GLUE[0]] : FMA_GLUE), MIN_ENTRY].map((f) => join(dist, f));
  if (!outputs.every(existsSync)) return false;
  const oldest = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  return oldest >= newestSource();
}

function requireEmscripten() {
  const probe = spawnSync('em++', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return;
  console.error(
    [
      'attention-lab: the WebAssembly build needs Emscripten (em++), which is not installed.',
      '  On Debian or Ubuntu:  sudo apt-get install -y emscripten',
      '  Elsewhere: https://emscripten.org/docs/getting_started/downloads.html',
      '  (.ci/run installs it automatically.)',
    ].join('\n'),
  );
  process.exit(1);
}

// Each glue .js must match its .wasm (Emscripten minifies the import names of
// both at link time). Instantiating both builds catches a stale pair.
function smokeTest(dir) {
  const probe = `
    import { readFileSync } from 'node:fs';
    for (const build of ${JSON.stringify(BUILDS)}) {
      const { default: create } = await import('${dir}/attention-lab-' + build + '.js');
      const module = await create({ wasmBinary: readFileSync('${dir}/attention-lab-' + build + '.wasm'), printErr: () => {} });
      if (typeof module._simdEnabled !== 'function' || module._simdEnabled() !== !build.endsWith('scalar')) throw new Error(build);
    }`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }).status === 0;
}

// The same for the FMA build, in a Node that validates relaxed SIMD (Node 20: behind a flag).
function fmaSmokeTest(dir) {
  const probe = `
    import { readFileSync } from 'node:fs';
    const { default: create } = await import('${dir}/attention-lab-fma.js');
    const module = await create({ wasmBinary: readFileSync('${dir}/attention-lab-fma.wasm'), printErr: () => {} });
    if (module._simdEnabled() !== true) throw new Error('fma');`;
  const args = ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', probe];
  return spawnSync(process.execPath, args, { encoding: 'utf8' }).status === 0;
}

export function buildWasm() {
  requireEmscripten();
  // Debian's emscripten finds its Node modules (acorn) only through NODE_PATH, and runs Binaryen's
  // tools by name from PATH: under `npm start` / `npm test`, npm puts node_modules/.bin first, where
  // the npm binaryen of the FMA build (a newer version em++ 3.1.6 cannot drive) has a wasm-opt too.
  // These two builds use the system's, so node_modules' bin folders leave PATH here.
  const PATH = (process.env.PATH ?? '').split(':').filter((dir) => !/node_modules[\\/]/.test(dir)).join(':');
  const env = { ...process.env, PATH, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (!existsSync(join(wasmBuild, 'CMakeCache.txt')))
    run('emcmake', ['cmake', '-S', '.', '-B', wasmBuild, '-DCMAKE_BUILD_TYPE=Release', ...(process.env.CI ? ['-DATTN_WERROR=ON'] : [])]);
  run('cmake', ['--build', wasmBuild, '-j', '2']);
  if (!smokeTest(wasmBuild)) {
    console.log('attention-lab: the glue and .wasm do not match; relinking from scratch');
    run('cmake', ['--build', wasmBuild, '--clean-first', '-j', '2']);
    if (!smokeTest(wasmBuild)) throw new Error('attention-lab: the WebAssembly builds do not load; see the build output above');
  }
  mkdirSync(dist, { recursive: true });
  // Copy under temporary names, then rename: a reader never sees a glue file
  // without its matching .wasm for longer than two renames.
  for (const f of GLUE) copyFileSync(join(wasmBuild, f), join(dist, `.${f}.tmp`));
  for (const f of GLUE) renameSync(join(dist, `.${f}.tmp`), join(dist, f));
  for (const dir of ['ops', 'types', 'tasks', 'train', 'parallel', 'reader', 'checkpoints']) mkdirSync(join(dist, dir), { recursive: true });
  for (const f of PACKAGE_FILES) copyFileSync(join(root, 'bindings', f), join(dist, f));
  if (CHECKPOINTS.some((f) => f.startsWith('reader/'))) mkdirSync(join(dist, 'checkpoints', 'reader'), { recursive: true });
  for (const f of CHECKPOINTS) copyFileSync(join(root, 'checkpoints', f), join(dist, 'checkpoints', f));
  buildFmaWasm();
}

// The FMA build in its own directory (another compiler: clang 16 under em++). Skipped, with one
// line saying why, where its tools are missing; the two shipped builds do not depend on it.
function buildFmaWasm() {
  const missing = fmaMissing(root);
  if (missing) {
    console.log(`attention-lab: skipping the FMA build (${missing})`);
    writeFmaStub(missing);
    return;
  }
  mkdirSync(fmaBuild, { recursive: true });
  const nodePath = [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':');
  const env = fmaEnvironment(root, fmaBuild, { ...process.env, NODE_PATH: nodePath });
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (!existsSync(join(fmaBuild, 'CMakeCache.txt')))
    run('emcmake', ['cmake', '-S', '.', '-B', fmaBuild, '-DCMAKE_BUILD_TYPE=Release', '-DATTN_WASM_VARIANTS=fma',
      ...(process.env.CI ? ['-DATTN_WERROR=ON'] : [])]);
  run('cmake', ['--build', fmaBuild, '-j', '2']);
  if (!fmaSmokeTest(fmaBuild)) {
    run('cmake', ['--build', fmaBuild, '--clean-first', '-j', '2']);
    if (!fmaSmokeTest(fmaBuild))
      throw new Error('attention-lab: the FMA build does not load; see the build output above');
  }
  for (const f of FMA_GLUE) copyFileSync(join(fmaBuild, f), join(dist, `.${f}.tmp`));
  for (const f of FMA_GLUE) renameSync(join(dist, `.${f}.tmp`), join(dist, f));
}

// Without the FMA toolchain, dist/attention-lab-fma.js is a stub naming no .wasm: init() falls back to
// the SIMD build, { fma: true } rejects with the reason (`missing`, which load.js reads), and bundlers of dist/ find every file named.
export function fmaStubGlue(missing) {
  const message = `attention-lab-fma.js: the FMA build was not made here (${missing}); see docs/fma-build.md`;
  return [
    '// Written by scripts/build.mjs in place of the FMA build, whose toolchain was missing.',
    `export const missing = ${JSON.stringify(message)};`,
    'export default () => Promise.reject(new Error(missing));',
    '',
  ].join('\n');
}

function writeFmaStub(missing) {
  rmSync(join(dist, FMA_GLUE[1]), { force: true });
  writeFileSync(join(dist, FMA_GLUE[0]), fmaStubGlue(missing));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-missing') && upToDate()) {
    console.log('attention-lab: dist/ is up to date');
  } else {
    buildWasm();
    await bundleMin(dist);
    console.log(`attention-lab: built ${dist}`);
  }
}
