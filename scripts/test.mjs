// npm test: install what is missing (scripts/setup.mjs), build what is missing,
// then run every suite in order, stopping at the first failure. Stages:
//   native     GoogleTest via ctest (SSE and scalar back ends)
//   sanitize   the same tests under AddressSanitizer + UBSan (CI, or --sanitize)
//   fuzz       libFuzzer targets for a bounded time (CI, or --fuzz)
//   js         Vitest through the public API on both WASM builds (tests/js)
//   e2e        Browser tests in Debian's Chromium (tests/e2e)
//   consumers  the packed tarball in fresh folders (tests/consumers)
// Pick stages with --only=native,js.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setUpOrExit } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const ci = Boolean(process.env.CI);
const run = (cmd, argv, options = {}) => execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', ...options });
// Runs commands side by side (one core each), each one's output kept and printed when it ends;
// rejects when any of them fails.
const runSideBySide = (commands) =>
  Promise.all(commands.map(([cmd, argv]) => new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', reject);
    child.on('close', (status) => {
      process.stdout.write(Buffer.concat(output));
      if (status === 0) resolve();
      else reject(Object.assign(new Error(`${cmd} exited with ${status}`), { status: status ?? 1 }));
    });
  })));
const hasTests = (dir) => existsSync(join(root, dir)) && readdirSync(join(root, dir)).length > 0;

function nativeSuite(buildDir, extra = []) {
  if (!existsSync(join(root, buildDir, 'CMakeCache.txt')))
    run('cmake', ['-S', '.', '-B', buildDir, ...(ci ? ['-DATTN_WERROR=ON'] : []), ...extra]);
  run('cmake', ['--build', buildDir, '-j', '2']);
  run('ctest', ['--test-dir', buildDir, '--output-on-failure', '-j', '2']);
}

const stages = [
  ['native', () => true, () => nativeSuite('build/native')],
  // Optimised (-O1 and up keeps ASan fast) with debug info; each test executable runs in one process.
  ['sanitize', () => ci || args.includes('--sanitize'), async () => {
    const dir = 'build/sanitize';
    if (!existsSync(join(root, dir, 'CMakeCache.txt')))
      run('cmake', ['-S', '.', '-B', dir, '-DATTN_SANITIZE=ON', '-DATTN_WERROR=ON', '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DCMAKE_CXX_COMPILER=clang++']);
    run('cmake', ['--build', dir, '-j', '2']);
    // The two back ends' test executables run side by side.
    await runSideBySide(['sse', 'scalar'].map((backend) => [join(root, dir, `attention_tests_${backend}`), ['--gtest_brief=1']]));
  }],
  ['fuzz', () => (ci || args.includes('--fuzz')) && existsSync(join(root, 'tests/fuzz/run.sh')), () => run('bash', ['tests/fuzz/run.sh'])],
  ['js', () => hasTests('tests/js'), () => run('npx', ['vitest', 'run', '--project', 'js'])],
  ['e2e', () => hasTests('tests/e2e'), () => run('npx', ['vitest', 'run', '--project', 'e2e'])],
  ['consumers', () => hasTests('tests/consumers'), () => run('npx', ['vitest', 'run', '--project', 'consumers'])],
];

setUpOrExit('test');
run('node', ['scripts/build.mjs', '--if-missing']);
run('node', ['scripts/build-web.mjs', '--if-missing']);
for (const [name, enabled, stage] of stages) {
  if (only ? !only.includes(name) : !enabled()) continue;
  console.log(`\n=== npm test: ${name}`);
  try {
    await stage();
  } catch (error) {
    console.error(`\nnpm test: stage "${name}" failed`);
    process.exit(typeof error.status === 'number' && error.status !== 0 ? error.status : 1);
  }
}
console.log('\nnpm test: every stage passed');
