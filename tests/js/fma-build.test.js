// The FMA build (dist/attention-lab-fma.wasm, relaxed-SIMD f32x4.relaxed_madd; scripts/fma-toolchain.mjs):
// it is what it claims, loads only where relaxed SIMD is on, rounds once where the CPU fuses, and
// matches the float64 reference within the usual tolerance. Node 20 validates relaxed SIMD only
// behind --experimental-wasm-relaxed-simd, switched on below for this file's process.
// Made only where its toolchain is installed: skipped (saying why) elsewhere, required where it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';

import { fmaMissing } from '../../scripts/fma-toolchain.mjs';
import { TOL, expectClose, rng, randomMatrix } from './helpers.js';
import * as R from './reference.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = new URL('../../dist/', import.meta.url);
const wasmFile = fileURLToPath(new URL('attention-lab-fma.wasm', dist));
const missing = fmaMissing(root);
if (missing) console.log(`FMA build tests skipped: ${missing}`);

// npm binaryen's wasm-dis (Debian's 108 cannot read relaxed SIMD).
const disassemble = (file) => {
  const wasmDis = `${root}/node_modules/binaryen/bin/wasm-dis`;
  const r = spawnSync(process.execPath, [wasmDis, file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`wasm-dis ${file}: ${r.stderr}`);
  return r.stdout;
};
const count = (text, op) => text.split(op).length - 1;
// Whether a fresh Node, with or without the flag, accepts the bytes.
const validates = (flags) => {
  const probe = `process.exit(WebAssembly.validate(require('node:fs').readFileSync(${JSON.stringify(wasmFile)})) ? 0 : 3)`;
  return spawnSync(process.execPath, [...flags, '-e', probe]).status === 0;
};
// V8 on x86-64 fuses relaxed_madd where the CPU has FMA3 (and rounds twice where it does not).
const cpuFuses =
  process.arch === 'x64' && existsSync('/proc/cpuinfo') && /^flags\s*:.*\bfma\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));

async function loadBuild(name) {
  const { load } = await import(new URL('load.js', dist).href);
  const wasmBinary = readFileSync(fileURLToPath(new URL(`attention-lab-${name}.wasm`, dist)));
  const glue = () => import(new URL(`attention-lab-${name}.js`, dist).href);
  // wasmFileName: the name load() puts in its error when the bytes do not instantiate
  return load({ wasmBinary }, null, { builds: { simd: glue }, wasmFileName: () => `attention-lab-${name}.wasm` });
}

describe.skipIf(Boolean(missing))('the FMA build', () => {
  let fma, simd;
  beforeAll(async () => {
    setFlagsFromString('--experimental-wasm-relaxed-simd');
    [fma, simd] = [await loadBuild('fma'), await loadBuild('simd')];
  });

  it('was built (its toolchain is installed here)', () => {
    expect(existsSync(wasmFile)).toBe(true);
  });

  it('multiplies and adds with f32x4.relaxed_madd; the SIMD build never does', () => {
    const text = disassemble(wasmFile);
    expect(count(text, 'f32x4.relaxed_madd')).toBeGreaterThan(20);
    expect(count(disassemble(fileURLToPath(new URL('attention-lab-simd.wasm', dist))), 'relaxed')).toBe(0);
  });

  it('validates only where relaxed SIMD is on', () => {
    expect(validates([])).toBe(false);
    expect(validates(['--experimental-wasm-relaxed-simd'])).toBe(true);
  });

  it('rounds a·b + c once where the CPU fuses, as the SIMD build rounds it twice', () => {
    // (1 + 2⁻²³)(1 − 2⁻²³) = 1 − 2⁻⁴⁶, which float32 rounds to 1: minus 1 it is 0, unless fused.
    const A = { rows: 1, cols: 2, data: new Float32Array([1, 1 + 2 ** -23]) };
    const B = { rows: 2, cols: 4, data: new Float32Array([-1, -1, -1, -1, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23]) };
    expect(Array.from(simd.matmul(A, B).data)).toEqual([0, 0, 0, 0]);
    const fused = -(2 ** -46);
    expect(Array.from(fma.matmul(A, B).data)).toEqual(Array(4).fill(cpuFuses ? fused : 0));
  });

  it.each([
    [1, 1, 1],
    [5, 17, 3],
    [64, 64, 64],
    [65, 8, 17],
    [300, 64, 64],
  ])('scaled dot-product attention, n = %i, d = %i, d_v = %i, fused and not, matches the reference', (n, d, dv) => {
    const rand = rng(7000 + n * 100 + d);
    const [Q, K, V] = [randomMatrix(rand, n, d), randomMatrix(rand, n, d), randomMatrix(rand, n, dv)];
    for (const mask of [undefined, 'causal']) {
      const want = R.scaledDotProduct(R.fromMatrix(Q), R.fromMatrix(K), R.fromMatrix(V), { mask });
      const options = mask ? { mask } : {};
      const full = fma.scaledDotProductAttention(Q, K, V, options);
      expectClose(full.weights, want.weights, { ...TOL, label: `weights (${mask ?? 'no mask'})` });
      expectClose(full.output, want.output, { ...TOL, label: `output (${mask ?? 'no mask'})` });
      const fused = fma.scaledDotProductAttention(Q, K, V, { ...options, weights: false });
      expectClose(fused.output, want.output, { ...TOL, label: `fused output (${mask ?? 'no mask'})` });
    }
  });
});
