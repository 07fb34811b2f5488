// Package-level smoke test: `npm pack`, install the tarball into an empty
// folder, and use it from there as a user would (ESM import, CommonJS
// require, TypeScript types), running one attention on each build.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

// softmax([1, 0]) · [1, 3] = (e + 3) / (e + 1) for Q = [[1, 0]], K = I, V = [[1], [3]], scale 1
const EXPECTED = (Math.E + 3) / (Math.E + 1);
const SCRIPT = `
import { init, AttentionError } from 'attention-lab';
const lab = await init({ simd: process.argv[1] === 'simd' });
const r = lab.scaledDotProductAttention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]], { scale: 1 });
let code = 'none';
try { lab.matmul([[1, 2]], [[1, 2]]); } catch (e) { code = e instanceof AttentionError ? e.code : 'wrong class'; }
console.log(JSON.stringify({ simd: lab.simd, value: r.output.data[0], code }));
`;

describe('npm pack → npm install → import', () => {
  let dir;
  let app;
  let files;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'attention-lab-pack-'));
    const packed = JSON.parse(execFileSync('npm', ['pack', '--pack-destination', dir, '--json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    files = packed[0].files.map((f) => f.path);
    app = join(dir, 'app');
    mkdirSync(app);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', join(dir, packed[0].filename)], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }, 240_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships both builds, every entry point and the types, and no sources or tests', () => {
    for (const f of ['package.json', 'README.md', 'dist/node.js', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/attention-lab-simd.wasm', 'dist/attention-lab-scalar.wasm', 'dist/attention-lab-simd.js', 'dist/attention-lab-scalar.js'])
      expect(files).toContain(f);
    for (const f of files) expect(f).not.toMatch(/^(src|tests|bindings|node_modules|build|scripts)\//);
  });

  it.each(['simd', 'scalar'])('import { init } from "attention-lab" runs one attention on the %s build', (build) => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT, build], { cwd: app, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.simd).toBe(build === 'simd');
    expect(Math.abs(out.value - EXPECTED)).toBeLessThan(1e-6);
    expect(out.code).toBe('SHAPE_MISMATCH');
  });

  it('require("attention-lab") works from CommonJS', () => {
    const script = "require('attention-lab').init({ simd: false }).then((lab) => console.log(lab.matmul([[1, 2]], [[3], [4]]).data[0]))";
    const run = spawnSync(process.execPath, ['-e', script], { cwd: app, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('11');
  });

  it('the installed package type-checks in a strict TypeScript consumer', () => {
    writeFileSync(
      join(app, 'check.mts'),
      `import { init, AttentionError, type AttentionLab, type Matrix } from 'attention-lab';
const lab: AttentionLab = await init({ simd: false });
const out: Matrix = lab.scaledDotProductAttention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]], { scale: 1 }).output;
const code: string = new AttentionError('INTERNAL', 'x').code;
// @ts-expect-error unknown option
lab.softmax([[1]], { masks: 'causal' });
console.log(out.data[0], code);
`,
    );
    const compilerOptions = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.mts'] }));
    const run = spawnSync(process.execPath, [tsc, '-p', app], { cwd: app, encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);
});
