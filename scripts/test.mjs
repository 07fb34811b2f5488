// npm test: install what is missing (scripts/setup.mjs), build what is missing,
// then run every suite in order, stopping at the first failure. Stages:
//   native     GoogleTest via ctest (SSE and scalar back ends: one executable each)
//   sanitize   the same tests under AddressSanitizer + UBSan, in a build that also makes the
//              libFuzzer targets (CI, or --sanitize)
//   fuzz       every libFuzzer target: the kept reproducers and corpus, then a fixed number of
//              runs from a fixed seed (CI, or --fuzz); open-ended fuzzing is `npm run fuzz`
//   js         Vitest through the public API on both WASM builds (tests/js)
//   e2e        Browser tests in Debian's Chromium (tests/e2e)
//   consumers  the packed tarball in fresh folders (tests/consumers)
// Pick stages with --only=native,js. At the end: each stage's time against its budget (the CI's
// whole budget is 25 minutes), and a check that no test wrote a tracked file.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setUpOrExit } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const ci = Boolean(process.env.CI);
const run = (cmd, argv, options = {}) => execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', ...options });
const hasTests = (dir) => existsSync(join(root, dir)) && readdirSync(join(root, dir)).length > 0;

// clang++ builds the native tests three times faster than g++ (measured: 233 s against 705 s).
const clang = spawnSync('clang++', ['--version']).status === 0 ? ['-DCMAKE_CXX_COMPILER=clang++'] : [];

function nativeSuite(buildDir, extra = []) {
  if (!existsSync(join(root, buildDir, 'CMakeCache.txt')))
    run('cmake', ['-S', '.', '-B', buildDir, ...(ci ? ['-DATTN_WERROR=ON'] : []), ...clang, ...extra]);
  run('cmake', ['--build', buildDir, '-j', '2']);
  // Two ctest entries per back end's executable (its halves), two at a time.
  run('ctest', ['--test-dir', buildDir, '--output-on-failure', '-j', '2']);
}

// Seconds each stage is given, so that a whole CI run stays within 25 minutes (printed, not enforced:
// the time of a run depends on the machine).
const BUDGET = { build: 140, native: 90, sanitize: 260, fuzz: 100, js: 80, e2e: 600, consumers: 230 }; // 1,500 in all

const stages = [
  ['native', () => true, () => nativeSuite('build/native')],
  // Optimised (-O1 and up keeps ASan fast) with debug info; the fuzz targets link the same core.
  ['sanitize', () => ci || args.includes('--sanitize'), () =>
    nativeSuite('build/sanitize', ['-DATTN_SANITIZE=ON', '-DATTN_FUZZ=ON', '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DCMAKE_CXX_COMPILER=clang++'])],
  ['fuzz', () => (ci || args.includes('--fuzz')) && existsSync(join(root, 'tests/fuzz/run.sh')), () => run('bash', ['tests/fuzz/run.sh'])],
  ['js', () => hasTests('tests/js'), () => run('npx', ['vitest', 'run', '--project', 'js', '--project', 'js-fresh-process'])],
  ['e2e', () => hasTests('tests/e2e'), () => run('npx', ['vitest', 'run', '--project', 'e2e'])],
  ['consumers', () => hasTests('tests/consumers'), () => run('npx', ['vitest', 'run', '--project', 'consumers'])],
];

/** `git status --porcelain` of the tracked files (null outside a git checkout). */
function trackedChanges() {
  const r = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

const times = [];
function report() {
  const total = times.reduce((sum, [, seconds]) => sum + seconds, 0);
  console.log('\nnpm test: stage times (seconds, against the budget that keeps CI within 25 minutes)');
  for (const [name, seconds] of times) {
    const budget = BUDGET[name];
    console.log(`  ${name.padEnd(10)} ${String(Math.round(seconds)).padStart(5)}  budget ${String(budget).padStart(4)}${seconds > budget ? '  OVER' : ''}`);
  }
  console.log(`  ${'total'.padEnd(10)} ${String(Math.round(total)).padStart(5)}  budget ${Object.values(BUDGET).reduce((a, b) => a + b)}`);
}
const timed = async (name, work) => {
  const start = performance.now();
  try {
    await work();
  } finally {
    times.push([name, (performance.now() - start) / 1000]);
  }
};

const before = trackedChanges();
await timed('build', () => {
  setUpOrExit('test');
  run('node', ['scripts/build.mjs', '--if-missing']);
  run('node', ['scripts/build-web.mjs', '--if-missing']);
  // the reader's held-out text (its tests measure the shipped reader on it), split from corpora/
  if (!existsSync(join(root, 'build/reader/corpus.json'))) run('node', ['scripts/reader/corpus.mjs']);
});
for (const [name, enabled, stage] of stages) {
  if (only ? !only.includes(name) : !enabled()) continue;
  console.log(`\n=== npm test: ${name}`);
  try {
    await timed(name, stage);
  } catch (error) {
    report();
    console.error(`\nnpm test: stage "${name}" failed`);
    process.exit(typeof error.status === 'number' && error.status !== 0 ? error.status : 1);
  }
}
report();
// Tests read the tree and write only to ignored folders (build/, dist/, site/, temporary ones).
const after = trackedChanges();
if (before !== null && after !== before) {
  console.error(`\nnpm test: the tests changed tracked files (git status --porcelain before and after):\n--- before\n${before}--- after\n${after}`);
  process.exit(1);
}
console.log('\nnpm test: every stage passed');
