// TypeScript consumers of the installed tarball, compiled with the repo's tsc
// (5.6.3) under `strict` and `--noEmit`: moduleResolution nodenext (ESM and
// CommonJS files) and bundler. Each file has @ts-expect-error lines; tsc fails
// with "Unused '@ts-expect-error' directive" if a wrong call type-checks, so a
// clean compile proves the types reject them.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freshApp, packed, root, tsc } from './helpers.js';

// The CommonJS entry needs its own declarations: TypeScript looks for index.d.cts
// next to index.cjs (the ES index.d.ts cannot be required). Until the build ships
// it, that check waits.
const shipsCjsTypes = packed().files.some((f) => f.path === 'dist/index.d.cts');

// Used as-is by the nodenext ESM and the bundler consumers.
const CONSUMER = `import { init, AttentionError, AttentionRangeError } from 'attention-lab';
import type { AttentionErrorCode, AttentionLab, AttentionResult, Matrix, MultiHeadResult, NadarayaWatsonResult, Step, VariantResult } from 'attention-lab';
import { defineAll, getLab, type AttentionSteps } from 'attention-lab/components';
import { AttentionCost } from 'attention-lab/components/cost';

export async function main(): Promise<number> {
  const lab: AttentionLab = await init({ simd: false });
  const simd: boolean = lab.simd;
  const Q = [[1, 0], [0, 1]];
  const K: Matrix = { rows: 2, cols: 2, data: new Float32Array([1, 0, 0, 1]) };
  const r: AttentionResult = lab.scaledDotProductAttention(Q, K, [[1], [3]], { mask: 'causal', scale: 1, trace: true });
  const steps: Step[] | undefined = r.steps;
  const firstId: 'Q' | 'K' | 'V' | 'scores' | 'scaled' | 'masked' | 'weights' | 'output' | 'concat' | undefined = steps?.[0]?.id;
  const fast = lab.scaledDotProductAttention(Q, K, [[1], [3]], { weights: false });
  // What is asked for is typed as present: the steps with trace: true, the cache's present with pastKey.
  const tracedIds: string[] = lab.scaledDotProductAttention(Q, K, [[1], [3]], { trace: true }).steps.map((s) => s.id);
  // @ts-expect-error untraced, the steps may be missing
  const missing: Step[] = lab.scaledDotProductAttention(Q, K, [[1], [3]]).steps;
  const cache = { shape: [1, 1, 1, 2], data: new Float32Array(2) };
  const presentShape: number[] = lab.batchedAttention(cache, cache, cache, { pastKey: cache, pastValue: cache }).presentKey.shape;
  const layerSteps: Step[] = lab.multiHeadAttention(Q, { heads: 1, Wq: Q, Wk: Q, Wv: Q, Wo: Q, trace: true }).steps;
  const block = lab.transformerBlock(Q, { heads: 1, Wq: Q, Wk: Q, Wv: Q, Wo: Q, W1: Q, W2: Q, trace: true });
  const blockIds: string[] = [...block.steps.map((s) => s.id), ...block.heads.map((h) => String(h.weights.rows))];
  const headSteps: Step[] = lab.multiHeadAttention(Q, { heads: 1, Wq: Q, Wk: Q, Wv: Q, Wo: Q, trace: true }).heads[0].steps;
  // @ts-expect-error untraced, the block's steps may be missing
  const blockMissing: unknown[] = lab.transformerBlock(Q, { heads: 1, Wq: Q, Wk: Q, Wv: Q, Wo: Q, W1: Q, W2: Q }).steps;
  const w = lab.softmax([[1, 2, 3]], { mask: { validLens: [2] } });
  const layer = lab.createMultiHeadAttention({ heads: 2, Wq: Q, Wk: Q, Wv: Q, Wo: Q });
  const untraced: { output: Matrix; concat: Matrix } = layer.forward(Q);
  const traced: MultiHeadResult = layer.forward(Q, { trace: true });
  layer.dispose();
  const local: VariantResult = lab.localAttention(Q, Q, Q, { window: 1, causal: true });
  const linear: VariantResult = lab.linearAttention(Q, Q, Q);
  const linformer: VariantResult = lab.linformerAttention(Q, Q, Q, { E: [[1, 0]], F: [[0, 1]] });
  const nw: NadarayaWatsonResult = lab.nadarayaWatson([0, 1], new Float32Array([1, 2]), [0.5], { kernel: 'epanechnikov', bandwidth: 2 });
  try {
    lab.matmul([[1, 2]], [[1, 2]]);
  } catch (e) {
    if (e instanceof AttentionError) {
      const code: AttentionErrorCode = e.code;
      if (code === AttentionError.codes.SHAPE_MISMATCH) console.log(e.message);
    } else if (e instanceof AttentionRangeError) {
      const oom: 'OUT_OF_MEMORY' = e.code;
      console.log(oom);
    }
  }

  defineAll();
  const steps$: AttentionSteps = document.createElement('attention-steps');
  steps$.step = 'weights';
  steps$.inputs = { X: Q, Wq: Q, Wk: Q, Wv: Q };
  const shared: AttentionLab = await getLab();
  // One panel's own entry point: its class, typed as the all-in-one module types it.
  const cost: AttentionCost = document.createElement('attention-cost');
  cost.inputs = { X: Q };
  // @ts-expect-error a panel's entry point exports that panel only
  import('attention-lab/components/cost').then((m) => m.AttentionSteps);
  // @ts-expect-error components take matrices, not strings
  steps$.inputs = { X: 'the cat' };

  // Wrong calls the declarations must reject:
  // @ts-expect-error unknown init option
  await init({ simdd: true });
  // @ts-expect-error a string where a matrix belongs
  lab.scaledDotProductAttention('QKV', K, K);
  // @ts-expect-error a flat number array is not a matrix
  lab.matmul([1, 2, 3], K);
  // @ts-expect-error unknown option name (mask, not masks)
  lab.softmax([[1]], { masks: 'causal' });
  // @ts-expect-error unknown mask name
  lab.softmax([[1]], { mask: 'diagonal' });
  // @ts-expect-error unknown kernel
  lab.nadarayaWatson([0], [1], [0], { kernel: 'cosine' });
  // @ts-expect-error multi-head needs heads
  lab.multiHeadAttention(Q, { Wq: Q, Wk: Q, Wv: Q, Wo: Q });
  // @ts-expect-error additive attention needs its weights
  lab.additiveAttention(Q, K, K);
  // @ts-expect-error local attention needs a window
  lab.localAttention(Q, Q, Q, { causal: true });
  // @ts-expect-error simd is read-only
  lab.simd = false;
  // @ts-expect-error not an error code
  const bad: AttentionErrorCode = 'BAD_CODE';
  // @ts-expect-error the untraced layer forward has no per-head results
  untraced.heads;
  // @ts-expect-error weights: false takes a boolean
  lab.scaledDotProductAttention(Q, K, K, { weights: 'no' });

  return simd || shared.simd ? 1 : 0 + (firstId ? 1 : 0) + w.rows + traced.heads.length + local.output.rows + linear.output.rows + linformer.output.rows + nw.predictions.length + bad.length + fast.output.rows;
}
`;

// A CommonJS TypeScript file (.cts) under nodenext: require() gives the async init.
const CJS_CONSUMER = `import lab = require('attention-lab');

export async function main(): Promise<number> {
  const l = await lab.init({ simd: false });
  // @ts-expect-error unknown init option
  await lab.init({ wasm: 'x' });
  return l.matmul([[1, 2]], [[3], [4]]).data[0];
}
`;

const BASE = { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: false, noUnusedLocals: false, exactOptionalPropertyTypes: true };

function compile(app, name, compilerOptions, files) {
  const config = `tsconfig.${name}.json`;
  writeFileSync(join(app, config), JSON.stringify({ compilerOptions: { ...BASE, ...compilerOptions }, files }));
  const r = spawnSync(process.execPath, [tsc, '-p', config], { cwd: app, encoding: 'utf8' });
  return { output: `${r.stdout}${r.stderr}`, status: r.status };
}

describe('TypeScript consumers of the installed tarball (strict, tsc --noEmit)', () => {
  let app;
  beforeAll(() => {
    app = freshApp('ts', { 'esm/consumer.mts': CONSUMER, 'bundler/consumer.ts': CONSUMER, 'cjs/consumer.cts': CJS_CONSUMER, 'broken/consumer.mts': CONSUMER.replace('// @ts-expect-error unknown mask name\n', '') }, { type: 'module' });
  });
  afterAll(() => app && rmSync(app, { recursive: true, force: true }));

  it('moduleResolution nodenext, ESM file: compiles, and the wrong calls are rejected', () => {
    const r = compile(app, 'nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }, ['esm/consumer.mts']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('moduleResolution bundler: compiles, and the wrong calls are rejected', () => {
    const r = compile(app, 'bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['bundler/consumer.ts']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!shipsCjsTypes)('moduleResolution nodenext, CommonJS file (.cts): require() types resolve (needs dist/index.d.cts)', () => {
    const r = compile(app, 'cjs', { module: 'nodenext', moduleResolution: 'nodenext' }, ['cjs/consumer.cts']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('the check can fail: without its @ts-expect-error, a wrong mask name is a compile error', () => {
    const r = compile(app, 'broken', { module: 'nodenext', moduleResolution: 'nodenext' }, ['broken/consumer.mts']);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/error TS2322: Type '"diagonal"' is not assignable/);
  });
});

/**
 * The files of docs/typescript.md: each fenced block whose first line is `// <path>` is that file; a
 * `text` block opening with "Output:" is what the last named program prints.
 */
function guide(text) {
  const files = {};
  const outputs = {};
  let last;
  for (const [, lang, body] of text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)) {
    const named = body.match(/^\/\/ (\S+)\n/);
    if (named) files[(last = named[1])] = body.slice(named[0].length);
    else if (lang === 'text' && body.startsWith('Output:\n') && last) outputs[last] = body.slice('Output:\n'.length);
  }
  return { files, outputs };
}

describe('docs/typescript.md, in a folder as `npm init -y` makes it ("type": "commonjs")', () => {
  const { files, outputs } = guide(readFileSync(join(root, 'docs', 'typescript.md'), 'utf8'));
  const projects = Object.keys(files).filter((f) => f.endsWith('/tsconfig.json'));
  let app;
  beforeAll(() => {
    app = freshApp('ts-guide', files, { type: 'commonjs' });
  });
  afterAll(() => app && rmSync(app, { recursive: true, force: true }));

  it('has the three set-ups, each with a program that prints its Output or runs in a page', () => {
    expect(projects).toEqual(['esm/tsconfig.json', 'cjs/tsconfig.json', 'bundler/tsconfig.json']);
    expect(Object.keys(outputs)).toEqual(['esm/main.mts', 'cjs/main.cts']);
  });

  it.each(projects)('%s compiles under strict', (project) => {
    const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd: app, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(Object.keys(outputs))('%s, compiled, prints its Output', (source) => {
    const project = join(source, '..', 'tsconfig.json');
    expect(spawnSync(process.execPath, [tsc, '-p', project], { cwd: app }).status).toBe(0);
    const emitted = join(source, '..', 'out', source.split('/').at(-1).replace(/\.([mc])ts$/, '.$1js'));
    const r = spawnSync(process.execPath, [emitted], { cwd: app, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(outputs[source]);
  });
});
