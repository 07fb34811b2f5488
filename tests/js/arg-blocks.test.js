// The argument blocks have one definition, bindings/arg-blocks.js, and both
// sides agree on it: the compiled WASM reports every block's size and field
// offsets (offsetof, from the generated arg_blocks.h) and they match the JS
// table; every raw function has a block and every block a caller; the JS
// writer refuses a block with a missing or unknown field; and the generated
// header refuses to compile a layout the compiler would not produce.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { argBlocksHeader } from '../../bindings/arg-blocks-header.js';
import { ARG_BLOCKS, LAYOUTS, blockLayout } from '../../bindings/arg-blocks.js';
import { AttentionError } from '../../bindings/errors.js';
import { Frame } from '../../bindings/frame.js';
import { Workspace } from '../../bindings/workspace.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'dist');

async function rawModule(variant) {
  const { default: create } = await import(join(dist, `attention-lab-${variant}.js`));
  return create({ wasmBinary: readFileSync(join(dist, `attention-lab-${variant}.wasm`)), printErr: () => {} });
}

// What the build reports: per block, its name, size and { field: offset }
// (the names from _argBlockNames, the numbers from _argBlockLayouts).
function compiledLayouts(module) {
  const read = (fn, view) => {
    const length = fn(0);
    const address = module._malloc(length * view.BYTES_PER_ELEMENT);
    fn(address);
    const data = Array.from(view === Uint32Array ? module.HEAPU32.subarray(address >> 2, (address >> 2) + length) : module.HEAPU8.subarray(address, address + length));
    module._free(address);
    return data;
  };
  const words = read(module._argBlockLayouts, Uint32Array);
  const lines = String.fromCharCode(...read(module._argBlockNames, Uint8Array)).split('\n').map((line) => line.split(' '));
  expect(lines.length, 'one line of names per block').toBe(words[0]);
  let i = 1;
  return lines.map(([name, ...fields]) => {
    const [bytes, count] = [words[i], words[i + 1]];
    expect(count, `${name}: names and offsets of as many fields`).toBe(fields.length);
    const offsets = Object.fromEntries(fields.map((field, j) => [field, words[i + 2 + j]]));
    i += 2 + count;
    return { name, bytes, offsets };
  });
}

/** Where a compiled build and a JS table disagree, one line each ([] when they agree). */
function differences(compiled, layouts) {
  const found = [];
  const names = Object.keys(layouts);
  if (compiled.map((c) => c.name).join() !== names.join()) found.push(`the build has blocks ${compiled.map((c) => c.name)}, the table ${names}`);
  for (const c of compiled) {
    const js = layouts[c.name];
    if (!js) continue;
    if (c.bytes !== js.bytes) found.push(`${c.name}: ${c.bytes} bytes compiled, ${js.bytes} in the table`);
    const fields = js.fields.map((f) => f.name);
    if (Object.keys(c.offsets).join() !== fields.join()) found.push(`${c.name}: fields ${Object.keys(c.offsets)} compiled, ${fields} in the table`);
    for (const f of js.fields)
      if (f.name in c.offsets && c.offsets[f.name] !== f.offset) found.push(`${c.name}.${f.name}: byte ${c.offsets[f.name]} compiled, ${f.offset} in the table`);
  }
  return found;
}

// The blocks each family folder's raw calls name: bindings/ops/ (every build) and bindings/train/
// (the training builds only).
function blocksCalledIn(folder) {
  const dir = join(root, 'bindings', folder);
  const source = readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  // f.call('name', …), f.query('name', …), and variants.js's run(fn, 'name', …)
  return new Set([...source.matchAll(/(?:\.call|\.query|\brun)\((?:context, fn, )?'(\w+)'/g)].map((m) => m[1]));
}

describe.each(['simd', 'scalar', 'training-simd', 'training-scalar'])('the %s build and bindings/arg-blocks.js', (variant) => {
  it('agree on every block: its size and the offset of each field', async () => {
    const module = await rawModule(variant);
    const compiled = compiledLayouts(module);
    expect(compiled.length).toBe(Object.keys(ARG_BLOCKS).length);
    expect(differences(compiled, LAYOUTS)).toEqual([]);
  });

  it('a table that moved or added a field would be caught', async () => {
    const compiled = compiledLayouts(await rawModule(variant));
    const { S, n, ...rest } = ARG_BLOCKS.softmax;
    const swapped = { ...LAYOUTS, softmax: blockLayout({ n, S, ...rest }) };
    expect(differences(compiled, swapped)).toEqual([
      'softmax: fields S,n,m,maskKind,mask,weights,masked compiled, n,S,m,maskKind,mask,weights,masked in the table',
      'softmax.n: byte 4 compiled, 0 in the table',
      'softmax.S: byte 0 compiled, 4 in the table',
    ]);
    const grown = { ...LAYOUTS, matmul: blockLayout({ ...ARG_BLOCKS.matmul, extra: 'f64' }) };
    expect(differences(compiled, grown)).toEqual(['matmul: 24 bytes compiled, 32 in the table', 'matmul: fields A,B,C,n,k,m compiled, A,B,C,n,k,m,extra in the table']);
  });

  it('every raw function but the helpers takes a block, and every block of its families has its raw function', async () => {
    const module = await rawModule(variant);
    const raw = Object.keys(module).filter((key) => /^_[a-z]/.test(key) && typeof module[key] === 'function');
    const helpers = ['_malloc', '_free', '_simdEnabled', '_argBlockLayouts', '_argBlockNames'];
    const training = blocksCalledIn('train');
    const expected = Object.keys(ARG_BLOCKS).filter((name) => variant.startsWith('training') || !training.has(name));
    expect(raw.filter((key) => !helpers.includes(key)).sort()).toEqual(expected.map((name) => `_${name}`).sort());
  });
});

describe('the JS side of the argument blocks', () => {
  it('every block is called by an operation family, and every call names a block', () => {
    const called = new Set([...blocksCalledIn('ops'), ...blocksCalledIn('train')]);
    expect([...called].sort()).toEqual(Object.keys(ARG_BLOCKS).sort());
    expect(blocksCalledIn('train').size).toBeGreaterThan(0);
  });

  it('writing a block refuses a missing field, an unknown field and a slot where a number belongs', async () => {
    const module = await rawModule('scalar');
    const attempt = (values) => {
      const f = new Frame(new Workspace(module, 64 * 1024 * 1024), 'matmul');
      const slots = { A: f.input(new Float32Array([1])), B: f.input(new Float32Array([2])), C: f.output(1) };
      f.call('matmul', { ...slots, ...values });
      return f.matrix(slots.C, 1, 1).data[0];
    };
    expect(attempt({ n: 1, k: 1, m: 1 })).toBe(2);
    const internal = (message) => expect.objectContaining({ code: AttentionError.codes.INTERNAL, message: expect.stringContaining(message) });
    expect(() => attempt({ n: 1, k: 1 })).toThrow(internal('matmul: the matmul argument block needs m, which was not given'));
    expect(() => attempt({ n: 1, k: 1, m: 1, rows: 1 })).toThrow(internal('the matmul argument block has no field rows'));
    expect(() => attempt({ n: 1, k: 1, m: { offset: 0 } })).toThrow(internal('matmul.m must be a number'));
  });

  it('lays out f64 fields at multiples of 8 and rounds the block up to its widest field', () => {
    const layout = blockLayout({ a: 'u32', b: 'f64', c: 'ptr' });
    expect(layout.fields.map((f) => f.offset)).toEqual([0, 8, 16]);
    expect(layout.bytes).toBe(24);
    expect(() => blockLayout({ a: 'u16' })).toThrow(/unknown type u16/);
  });
});

describe('the generated header', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arg-blocks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const compile = (text) => {
    const file = join(dir, 'check.cpp');
    writeFileSync(join(dir, 'arg_blocks.h'), text);
    writeFileSync(file, '#include "arg_blocks.h"\nint main() { return 0; }\n');
    return spawnSync('em++', ['-std=c++20', '-fsyntax-only', '-Wall', '-Wextra', '-Wpedantic', '-Wconversion', '-Werror', file], { encoding: 'utf8' });
  };

  it('compiles as generated, and its static_asserts reject a layout the compiler would not produce', () => {
    const good = compile(argBlocksHeader());
    expect(`${good.stdout}${good.stderr}`).toBe('');
    expect(good.status).toBe(0);
    // A table whose layout rule forgot f64 alignment: the compiler puts w0 at byte 16, not 12.
    const fields = LAYOUTS.fitParametricPooling.fields.map((f) => (f.name === 'w0' ? { ...f, offset: 12 } : f));
    const bad = compile(argBlocksHeader({ ...LAYOUTS, fitParametricPooling: { ...LAYOUTS.fitParametricPooling, fields } }));
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('fitParametricPooling.w0: arg-blocks.js puts it at byte 12');
  }, 120_000);
});
