// Node consumers of the packed tarball: ESM `import`, CommonJS `require` (the
// CJS entry's async init), the .wasm subpath exports, init({ wasmBinary }),
// and the exports map keeping internals private.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { COMPUTE, expectKnownAnswer, freshApp } from './helpers.js';

const ESM = `
import { init, AttentionError, AttentionRangeError } from 'attention-lab';
const compute = ${COMPUTE};
const lab = await init(process.argv[2] === 'scalar' ? { simd: false } : undefined);
let cls = 'none';
try { lab.softmax([[1, 2]], { mask: 'sideways' }); } catch (e) { cls = e instanceof AttentionError && e instanceof Error ? e.name : 'wrong class'; }
console.log(JSON.stringify({ ...compute(lab), cls, range: AttentionRangeError.prototype instanceof RangeError }));
`;

const CJS = `
'use strict';
const lab$ = require('attention-lab');
const compute = ${COMPUTE};
if (typeof lab$.init !== 'function') throw new Error('no init export');
const pending = lab$.init({ simd: process.argv[2] !== 'scalar' });
if (!(pending instanceof Promise)) throw new Error('init() must return a promise');
pending.then((lab) => console.log(JSON.stringify(compute(lab))));
`;

const SUBPATHS = `
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { init } from 'attention-lab';
const require = createRequire(import.meta.url);
const out = {};
for (const build of ['simd', 'scalar']) {
  const path = require.resolve('attention-lab/attention-lab-' + build + '.wasm');
  const bytes = await readFile(path);
  out[build] = { magic: Array.from(bytes.subarray(0, 4)), resolved: import.meta.resolve('attention-lab/attention-lab-' + build + '.wasm').endsWith('/dist/attention-lab-' + build + '.wasm') };
  const lab = await init({ simd: build === 'simd', wasmBinary: bytes });
  out[build].value = lab.matmul([[1, 2]], [[3], [4]]).data[0];
  out[build].simd = lab.simd;
}
out.version = require('attention-lab/package.json').version;
for (const deep of ['attention-lab/dist/api.js', 'attention-lab/src/core.cpp']) {
  try { await import(deep); out[deep] = 'imported'; } catch (e) { out[deep] = e.code; }
}
console.log(JSON.stringify(out));
`;

const TRAINING = `
import { init } from 'attention-lab';
import { init as initTraining, AttentionError } from 'attention-lab/training';
const compute = ${COMPUTE};
const build = process.argv[2];
const lab = await initTraining({ simd: build === 'simd' });
const plain = await init({ simd: build === 'simd' });
let unavailable = 'none';
try { plain.createTransformer({}); } catch (e) { unavailable = e instanceof AttentionError ? e.code : 'wrong class'; }
console.log(JSON.stringify({ ...compute(lab), training: lab.training, plain: plain.training, unavailable }));
`;

// 'attention-lab/min' is the browser bundle; in Node it is the Node entry (it once resolved to the
// bundle and failed in init() with "fetch failed").
const MIN = `
import { init } from 'attention-lab/min';
const compute = ${COMPUTE};
console.log(JSON.stringify(compute(await init({ simd: process.argv[2] !== 'scalar' }))));
`;
const MIN_CJS = `
require('attention-lab/min').init({ simd: process.argv[2] !== 'scalar' }).then((lab) => console.log(JSON.stringify((${COMPUTE})(lab))));
`;

// The training entry from CommonJS (a package whose "type" is "commonjs", as npm init -y writes).
const TRAINING_CJS = `
require('attention-lab/training').init({ simd: process.argv[2] !== 'scalar' }).then((lab) => console.log(JSON.stringify({ ...(${COMPUTE})(lab), training: lab.training })));
`;

function node(app, args) {
  const r = spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('Node 20 consumers of the installed tarball', () => {
  let app;
  beforeAll(() => {
    app = freshApp('node', { 'esm.mjs': ESM, 'cjs.cjs': CJS, 'subpaths.mjs': SUBPATHS, 'default-cjs.js': CJS, 'training.mjs': TRAINING, 'min.mjs': MIN, 'min.cjs': MIN_CJS, 'training.cjs': TRAINING_CJS }, {});
  });
  afterAll(() => app && rmSync(app, { recursive: true, force: true }));

  it.each(['simd', 'scalar'])("ESM: import { init } from 'attention-lab' computes the known answer on the %s build", (build) => {
    const out = node(app, ['esm.mjs', build]);
    expectKnownAnswer(expect, out, { simd: build === 'simd' });
    expect(out.cls).toBe('AttentionError');
    expect(out.range).toBe(true);
  });

  it.each(['simd', 'scalar'])("import { init } from 'attention-lab/training' loads the %s training build, a superset of the inference one", (build) => {
    const out = node(app, ['training.mjs', build]);
    expectKnownAnswer(expect, out, { simd: build === 'simd' });
    expect(out.training).toBe(true);
    expect(out.plain).toBe(false);
    expect(out.unavailable).toBe('UNAVAILABLE');
  });

  it.each(['simd', 'scalar'])("CommonJS: require('attention-lab/training').init() loads the %s training build", (build) => {
    const out = node(app, ['training.cjs', build]);
    expectKnownAnswer(expect, out, { simd: build === 'simd' });
    expect(out.training).toBe(true);
  });

  it.each(['simd', 'scalar'])("CommonJS: require('attention-lab').init() resolves to the %s build", (build) => {
    expectKnownAnswer(expect, node(app, ['cjs.cjs', build]), { simd: build === 'simd' });
    // a .js file in a package without "type": "module" is CommonJS too
    expectKnownAnswer(expect, node(app, ['default-cjs.js', build]), { simd: build === 'simd' });
  });

  it.each(['simd', 'scalar'])("'attention-lab/min' in Node (import and require) is the Node entry: the %s build computes", (build) => {
    expectKnownAnswer(expect, node(app, ['min.mjs', build]), { simd: build === 'simd' });
    expectKnownAnswer(expect, node(app, ['min.cjs', build]), { simd: build === 'simd' });
  });

  it('the .wasm files are subpath exports; init({ wasmBinary }) uses given bytes; internals stay private', () => {
    const out = node(app, ['subpaths.mjs']);
    for (const build of ['simd', 'scalar']) {
      expect(out[build].magic).toEqual([0, 97, 115, 109]); // \0asm
      expect(out[build].resolved).toBe(true);
      expect(out[build].value).toBe(11);
      expect(out[build].simd).toBe(build === 'simd');
    }
    expect(out.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(out['attention-lab/dist/api.js']).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(out['attention-lab/src/core.cpp']).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('the entry points have no top-level await (the CJS entry loads nothing until init())', () => {
    // require() of the entry alone must finish synchronously and print nothing
    const r = spawnSync(process.execPath, ['-e', "const m = require('attention-lab'); console.log(Object.keys(m).join(','))"], { cwd: app, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split(',')).toContain('init');
  });
});
