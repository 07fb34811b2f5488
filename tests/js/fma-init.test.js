// How init() chooses among the FMA (relaxed SIMD), SIMD and scalar builds: the relaxed-SIMD probe,
// the { fma } option, lab.fma and lab.build, the training entry staying deterministic, and the
// fall-back to SIMD, silent, when the FMA files are missing (a build made without clang 16).
// Node 20 validates relaxed SIMD only behind --experimental-wasm-relaxed-simd: the first block runs
// without it; the later ones switch it on for this file's process (v8.setFlagsFromString).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { init } from '../../dist/node.js';
import { relaxedSimdSupported, simdSupported } from '../../dist/load.js';
import { init as initTraining } from '../../dist/training-node.js';
import { fmaStubGlue } from '../../scripts/build.mjs';
import { FMA_BUILT, TOL, expectClose, randomMatrix, rng } from './helpers.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const wasm = (name) => readFileSync(join(dist, name));
const relaxedSimdOn = () => setFlagsFromString('--experimental-wasm-relaxed-simd');
// V8 on x86-64 fuses relaxed_madd where the CPU has FMA3 (and rounds twice where it does not).
const cpuFuses =
  process.arch === 'x64' && existsSync('/proc/cpuinfo') && /^flags\s*:.*\bfma\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));

// (1 + 2⁻²³)(1 − 2⁻²³) − 1 = −2⁻⁴⁶ exactly; float32 rounds the product to 1 first unless fused.
const A = { rows: 1, cols: 2, data: new Float32Array([1, 1 + 2 ** -23]) };
const B = { rows: 2, cols: 4, data: new Float32Array([-1, -1, -1, -1, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23, 1 - 2 ** -23]) };
const firstEntry = (lab) => lab.matmul(A, B).data[0];

describe('without relaxed SIMD (Node 20 without its flag): SIMD, and { fma: true } says why not', () => {
  it('the probes: SIMD yes, relaxed SIMD no', () => {
    expect([simdSupported(), relaxedSimdSupported()]).toEqual([true, false]);
  });

  it('init() loads the SIMD build', async () => {
    const lab = await init();
    expect([lab.build, lab.simd, lab.fma]).toEqual(['simd', true, false]);
    expect(firstEntry(lab)).toBe(0);
  });

  it('{ fma: true } rejects naming the missing engine feature and the Node flag', async () => {
    await expect(init({ fma: true })).rejects.toThrow(
      /^init: \{ fma: true \} was asked for but this engine does not support WebAssembly relaxed SIMD \(Node 20: node --experimental-wasm-relaxed-simd\)$/,
    );
  });

  it('bad fma values and contradictions are errors naming the value', async () => {
    await expect(init({ fma: 'yes' })).rejects.toThrow(/^init: \{ fma: "yes" \} must be true, false or left out$/);
    await expect(init({ fma: 1 })).rejects.toThrow(TypeError);
    await expect(init({ simd: 'no' })).rejects.toThrow(/^init: \{ simd: "no" \} must be true, false or left out$/);
    await expect(init({ simd: false, fma: true })).rejects.toThrow(/contradict each other: the FMA build is a SIMD build/);
    await expect(init({ fmaa: true })).rejects.toThrow(/unknown option "fmaa"; expected one of simd, fma, wasmUrl, wasmBinary, locateFile/);
  });
});

describe.skipIf(!FMA_BUILT)('with relaxed SIMD: init() picks the FMA build', () => {
  beforeAll(relaxedSimdOn);

  it('the probe now accepts relaxed SIMD', () => {
    expect(relaxedSimdSupported()).toBe(true);
  });

  it('init() and init({ simd: true }) load FMA; { fma: false } SIMD; { simd: false } scalar', async () => {
    for (const [options, build] of [[undefined, 'fma'], [{ simd: true }, 'fma'], [{ fma: true }, 'fma'], [{ fma: false }, 'simd'], [{ simd: false }, 'scalar']]) {
      const lab = await init(options);
      expect([lab.build, lab.simd, lab.fma], JSON.stringify(options)).toEqual([build, build !== 'scalar', build === 'fma']);
    }
  });

  it('the FMA build rounds a·b + c once where the CPU fuses; { fma: false } keeps the SIMD rounding', async () => {
    expect(firstEntry(await init())).toBe(cpuFuses ? -(2 ** -46) : 0);
    expect(firstEntry(await init({ fma: false }))).toBe(0);
  });

  it('attention differs from the SIMD build in the last bits only', async () => {
    const [fma, simd] = [await init(), await init({ fma: false })];
    const rand = rng(1616);
    const [Q, K, V] = [randomMatrix(rand, 300, 64), randomMatrix(rand, 300, 64), randomMatrix(rand, 300, 64)];
    const [a, b] = [fma.scaledDotProductAttention(Q, K, V), simd.scaledDotProductAttention(Q, K, V)];
    if (cpuFuses) expect(a.output.data).not.toEqual(b.output.data);
    const asNested = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
    expectClose(a.output, asNested(b.output), { atol: TOL.atol / 10, rtol: TOL.rtol / 10, label: 'FMA vs SIMD output' });
    expectClose(a.weights, asNested(b.weights), { atol: TOL.atol / 10, rtol: TOL.rtol / 10, label: 'FMA vs SIMD weights' });
  });

  it('a wasmBinary is the SIMD build as before unless { fma: true } says it is the FMA one', async () => {
    expect((await init({ wasmBinary: wasm('attention-lab-simd.wasm') })).build).toBe('simd');
    expect((await init({ fma: true, wasmBinary: wasm('attention-lab-fma.wasm') })).build).toBe('fma');
  });

  it('the training entry stays deterministic: SIMD, and { fma: true } rejects', async () => {
    const lab = await initTraining();
    expect([lab.build, lab.simd, lab.fma, lab.training]).toEqual(['simd', true, false, true]);
    expect((await initTraining({ fma: false })).build).toBe('simd');
    await expect(initTraining({ fma: true })).rejects.toThrow(/^init: \{ fma: true \} was asked for but this entry has no FMA build/);
  });
});

describe('where the FMA files are missing, init() falls back to SIMD without a word', () => {
  const copies = [];
  const copyOfDist = (edit) => {
    const dir = mkdtempSync(join(tmpdir(), 'attn-fma-'));
    copies.push(dir);
    cpSync(dist, dir, { recursive: true });
    edit(dir);
    return (file) => import(pathToFileURL(join(dir, file)).href);
  };
  beforeAll(relaxedSimdOn);
  afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const fallsBack = async (edit, cause) => {
    const entry = copyOfDist(edit);
    const quiet = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error'), vi.spyOn(console, 'log')];
    const { init: initCopy } = await entry('node.js');
    const lab = await initCopy();
    expect([lab.build, lab.simd, lab.fma]).toEqual(['simd', true, false]);
    expect(lab.softmax([[0, 0]]).data).toEqual(new Float32Array([0.5, 0.5]));
    for (const spy of quiet) expect(spy).not.toHaveBeenCalled();
    quiet.forEach((spy) => spy.mockRestore());
    await expect(initCopy({ fma: true })).rejects.toThrow(cause);
  };

  // A build made without clang 16 (`npm start` on a machine without it) has the stub glue, not the real one.
  it.skipIf(!FMA_BUILT)('the glue without its .wasm (needs a dist/ built with clang 16): the SIMD build, no console output; { fma: true } rejects with the cause', () =>
    fallsBack((dir) => rmSync(join(dir, 'attention-lab-fma.wasm'), { force: true }), /^init: attention-lab-fma\.wasm could not be read: ENOENT/));

  it('the stub glue scripts/build.mjs writes without clang 16: the SIMD build, no console output; { fma: true } rejects with the cause', () =>
    fallsBack(
      (dir) => {
        rmSync(join(dir, 'attention-lab-fma.wasm'), { force: true });
        writeFileSync(join(dir, 'attention-lab-fma.js'), fmaStubGlue('missing clang-16'));
      },
      /^init: attention-lab-fma\.js: the FMA build was not made here \(missing clang-16\); see docs\/fma-build\.md$/,
    ));
});
