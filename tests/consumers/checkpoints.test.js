// The trained checkpoints from the installed tarball, in Node: lab.loadTrained reads them from
// node_modules/attention-lab/dist/checkpoints/ (the same bytes as the repository's checkpoints/), and
// the 'attention-lab/checkpoints/<task>.bin' subpath resolves to them for a program that reads them itself;
// lab.loadReader reads the reader from dist/checkpoints/reader/reader.bin likewise.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freshApp, root } from './helpers.js';

const SCRIPT = `
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from 'attention-lab/training';
const lab = await init({ simd: process.argv[2] !== 'scalar' });
const out = { names: Object.keys(lab.checkpoints), files: {}, text: {} };
const inputs = { dates: '2026年12月1日', reverse: 'abcdef', grammar: 'the dog chased the cats. they ran. who ran? the', repeat: 'pmkdaoif|' };
for (const name of out.names) {
  const path = fileURLToPath(import.meta.resolve('attention-lab/checkpoints/' + name + '.bin'));
  out.files[name] = { path, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
  const model = await lab.loadTrained(name);
  out.text[name] = model.generate(lab.tasks[name].encode(inputs[name])).text;
  model.dispose();
}
const ids = lab.tasks.dates.encode('1 Dec 2026');
const shipped = await lab.loadTrained('dates');
const given = await lab.loadTrained('dates', { bytes: new Uint8Array(readFileSync(out.files.dates.path)) });
const a = shipped.generate(ids, { attention: true }).attention.cross;
const b = given.generate(ids, { attention: true }).attention.cross;
out.sameCross = JSON.stringify(a) === JSON.stringify(b);
try { await lab.loadTrained('dates', { url: 'file:///nowhere/dates.bin' }); } catch (e) { out.error = [e.name, e.code]; }
const readerPath = fileURLToPath(import.meta.resolve('attention-lab/checkpoints/reader/reader.bin'));
const reader = await lab.loadReader({ language: 'en' });
const famous = reader.attend("The animal didn't cross the street because it was too tired.");
out.reader = { path: readerPath, sha256: createHash('sha256').update(readFileSync(readerPath)).digest('hex'), tokens: famous.tokens.length, rows: famous.attention[0][0].rows, next: reader.predict('The animal', { topK: 5 }).length };
reader.dispose();
console.log(JSON.stringify(out));
`;

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('the shipped checkpoints, installed', () => {
  let app;
  beforeAll(() => {
    app = freshApp('checkpoints', { 'load.mjs': SCRIPT }, { type: 'module' });
  });
  afterAll(() => app && rmSync(app, { recursive: true, force: true }));

  it.each(['simd', 'scalar'])('lab.loadTrained loads each from the package on the %s build', (build) => {
    const r = spawnSync(process.execPath, ['load.mjs', build], { cwd: app, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.names).toEqual(['dates', 'reverse', 'grammar', 'repeat']);
    for (const name of out.names) {
      expect(out.files[name].path).toBe(join(app, 'node_modules', 'attention-lab', 'dist', 'checkpoints', `${name}.bin`));
      expect(out.files[name].sha256, name).toBe(sha256(join(root, 'checkpoints', `${name}.bin`)));
    }
    expect(out.text).toEqual({ dates: '2026-12-01', reverse: 'fedcba', grammar: 'cats.', repeat: 'pmkdaoif' });
    expect(out.sameCross).toBe(true);
    expect(out.error).toEqual(['AttentionError', 'INVALID_ARGUMENT']);
    expect(out.reader.path).toBe(join(app, 'node_modules', 'attention-lab', 'dist', 'checkpoints', 'reader', 'reader.bin'));
    expect(out.reader.sha256).toBe(sha256(join(root, 'checkpoints', 'reader', 'reader.bin')));
    expect(out.reader).toMatchObject({ tokens: out.reader.rows, next: 5 });
  });
});
