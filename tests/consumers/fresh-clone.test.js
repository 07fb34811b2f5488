// The README's two commands on a fresh clone: `npm start` in a clone of the committed HEAD
// (no node_modules, dist/, site/ or build/) installs the npm packages, builds and serves the
// demo; the set-up step reinstalls when package-lock.json is newer than node_modules and says
// nothing when all is there; and with a tool missing, `npm start` and `npm test` stop with one
// line naming the command to run (ATTENTION_LAB_SETUP=check: report, never install).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingMessage } from '../../scripts/setup.mjs';
import { root, run } from './helpers.js';

/** The environment of a new user's shell: no NODE_PATH, no set-up override. */
function userEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.NODE_PATH;
  if (!('ATTENTION_LAB_SETUP' in extra)) delete env.ATTENTION_LAB_SETUP;
  return env;
}

/** Start `npm start -- --port 0` in `dir` (its process handed to `started`); resolves to { url, child, output } once it prints its URL. */
function npmStart(dir, started) {
  const child = spawn('npm', ['start', '--', '--port', '0'], { cwd: dir, env: userEnv(), detached: true });
  started(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      const url = output.match(/attention-lab demo: (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1];
      if (url) resolve({ url, child, output });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm start exited (${code}) before printing its URL:\n${output}`)));
  });
}

describe('a fresh clone', () => {
  let clone, server;
  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'attention-lab-clone-'));
    run('git', ['clone', '--quiet', root, clone]);
  });
  afterAll(() => {
    if (server?.exitCode === null) process.kill(-server.pid);
    rmSync(clone, { recursive: true, force: true });
  });

  // In CI the checkout is itself a fresh clone, and its build stage has just built dist/ and site/
  // from nothing with the scripts npm start runs (scripts/build.mjs, scripts/build-web.mjs): the
  // clone here is given those builds, and npm start's own part (the install, the check that finds
  // them up to date, the server) is what this test adds. Elsewhere (a developer's tree, built bit by
  // bit) the clone builds from nothing: about 140 s of both cores, the consumers stage's longest part.
  const reuseBuild = Boolean(process.env.CI);
  it(`npm start installs the npm packages, ${reuseBuild ? "finds the CI run's fresh build" : 'builds'} and serves the demo`, { timeout: 900_000 }, async () => {
    for (const dir of ['node_modules', 'dist', 'site', 'build']) expect(existsSync(join(clone, dir)), dir).toBe(false);
    if (reuseBuild) for (const dir of ['dist', 'site']) cpSync(join(root, dir), join(clone, dir), { recursive: true });
    const { url, child, output } = await npmStart(clone, (started) => (server = started));
    try {
      expect(output).toContain('attention-lab: installing the npm packages (npm ci)');
      if (reuseBuild) expect(output).toContain('attention-lab: dist/ is up to date');
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/<html/i);
      const wasm = await fetch(new URL('attention-lab-simd.wasm', url));
      expect([wasm.status, wasm.headers.get('content-type')]).toEqual([200, 'application/wasm']);
    } finally {
      process.kill(-child.pid);
    }
  });

  it('the set-up step reinstalls when package-lock.json is newer, and is silent when all is there', () => {
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(clone, 'node_modules', '.package-lock.json'), old, old);
    const again = spawnSync(process.execPath, ['scripts/setup.mjs', 'test'], { cwd: clone, env: userEnv(), encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('installing the npm packages (npm ci)');
    expect(existsSync(join(clone, 'node_modules', 'vitest'))).toBe(true);
    const idle = spawnSync(process.execPath, ['scripts/setup.mjs', 'test'], { cwd: clone, env: userEnv(), encoding: 'utf8' });
    expect([idle.status, idle.stdout, idle.stderr]).toEqual([0, '', '']);
  });
});

describe('a machine without Emscripten', () => {
  let bin;
  // A PATH with every command of today's PATH except Emscripten's.
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'attention-lab-no-em-'));
    for (const dir of process.env.PATH.split(delimiter)) {
      let names = [];
      try {
        names = readdirSync(dir);
      } catch {}
      for (const name of names)
        if (!/^em(\+\+|cc|cmake|make|configure)$/.test(name) && !existsSync(join(bin, name))) symlinkSync(join(dir, name), join(bin, name));
    }
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  for (const [command, script] of [['start', 'scripts/serve.mjs'], ['test', 'scripts/test.mjs']]) {
    it(`npm ${command} stops with one line naming the command to run`, () => {
      const r = spawnSync(process.execPath, [script], { cwd: root, env: userEnv({ PATH: bin, ATTENTION_LAB_SETUP: 'check' }), encoding: 'utf8', timeout: 120_000 });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe(''); // nothing was built
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^attention-lab: npm ${command} needs em\\+\\+, which is not installed: `));
      expect(lines[0]).toMatch(new RegExp(`(sudo )?bash scripts/install-system\\.sh ${command}\` \\(it runs apt-get install emscripten\\)|Debian's packages: emscripten`));
    });
  }

  it('without apt the line names the tools, where to get Emscripten and the Debian packages', () => {
    const line = missingMessage([{ name: 'emscripten', provides: 'em++' }, { name: 'cmake', provides: 'cmake' }], 'start', { apt: false, root: false });
    expect(line).toBe(
      "attention-lab: npm start needs em++, cmake, which are not installed: install them (Emscripten: https://emscripten.org/docs/getting_started/downloads.html; Debian's packages: emscripten cmake), then run npm start again",
    );
  });
});
