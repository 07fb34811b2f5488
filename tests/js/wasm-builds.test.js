// The two shipped builds are what they claim: the SIMD .wasm uses f32x4
// operations, the scalar .wasm has no SIMD opcode at all (so it validates on
// engines without SIMD). Read with binaryen's wasm-dis, installed by .ci/run.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = new URL('../../dist/', import.meta.url);
const disassemble = (file) => execFileSync('wasm-dis', [new URL(file, dist).pathname], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const count = (text, pattern) => (text.match(pattern) ?? []).length;

describe('the shipped WebAssembly builds', () => {
  it('the SIMD build computes with f32x4 multiply-adds and vector loads', () => {
    const text = disassemble('attention-lab-simd.wasm');
    expect(count(text, /f32x4\.mul/g)).toBeGreaterThan(20);
    expect(count(text, /f32x4\.add/g)).toBeGreaterThan(20);
    expect(count(text, /v128\.load32_splat/g)).toBeGreaterThan(0);
  });

  it('the scalar build contains no SIMD instruction', () => {
    const text = disassemble('attention-lab-scalar.wasm');
    expect(count(text, /\b(v128|f32x4|i32x4|i8x16|i16x8|i64x2|f64x2)\./g)).toBe(0);
    expect(count(text, /f32\.mul/g)).toBeGreaterThan(20);
  });

  it('only the SIMD build needs SIMD support to validate', () => {
    const simd = readFileSync(new URL('attention-lab-simd.wasm', dist));
    const scalar = readFileSync(new URL('attention-lab-scalar.wasm', dist));
    expect(WebAssembly.validate(simd)).toBe(true); // Node 20 supports SIMD
    expect(WebAssembly.validate(scalar)).toBe(true);
  });
});
