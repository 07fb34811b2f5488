// npm run screenshots: the README's and docs' pictures in docs/screenshots, taken by the browser
// tests that take screenshots (their names hold "screenshot"). The tests themselves write theirs to
// a temporary folder; here ATTENTION_LAB_SCREENSHOTS points them at docs/screenshots instead.
// Usage: node scripts/screenshots.mjs   (then look at the pictures and commit the ones that changed)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setUpOrExit } from './setup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd, argv, env = {}) => execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

setUpOrExit('test');
run('node', ['scripts/build.mjs', '--if-missing']);
run('node', ['scripts/build-web.mjs', '--if-missing']);
run('npx', ['vitest', 'run', '--project', 'e2e', '--testNamePattern', 'screenshot'], { ATTENTION_LAB_SCREENSHOTS: 'docs/screenshots' });
console.log('screenshots: written to docs/screenshots (git status shows which changed)');
