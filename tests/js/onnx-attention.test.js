// Conformance with ONNX's Attention operator (opset 23/24): the 76 backend
// node test cases of onnx/onnx, read from ../shared/onnx-attention/cases.json
// beside the project (ATTN_ONNX_CASES overrides the path; not copied into the
// repository). Each case runs on both builds and both paths (weights kept, with
// the trace for qk_matmul_output; fused) and is compared with ONNX's expected
// outputs and with our own float64 reading of the operator (onnx-reference.js).
// A case the library cannot express is skipped with the missing feature named.
// The conformance table (cases expressible and passing, per feature) is
// printed at the end.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, loadLab, TOL } from './helpers.js';
import { onnxAttention } from './onnx-reference.js';

const CASES = process.env.ATTN_ONNX_CASES ?? fileURLToPath(new URL('../../../shared/onnx-attention/cases.json', import.meta.url));
const FLT_LOWEST = -3.4028234663852886e38;
// float16 outputs: ONNX returns float16, so within one float16 ulp of our float32 result (2⁻¹⁰·|y|,
// 2⁻²⁴ below the normal range); measured: at most half an ulp, i.e. ONNX's values are ours rounded.
const F16_TOL = { atol: 2 ** -24, rtol: 2 ** -10 };
const PATHS = ['weights kept', 'fused'];

const all = existsSync(CASES) ? JSON.parse(readFileSync(CASES, 'utf8')) : null;
const cases = all ? Object.entries(all).filter(([name]) => name !== '__meta__').map(([name, c]) => ({ name: name.replace(/^test_attention_/, ''), ...c })) : [];
const value = (x) => (typeof x === 'string' ? Number(x) : x);  // "-Infinity" etc. are strings in the JSON

// float32 value of a float16 → its bits (exact for values that are float16s, as these are).
function float16Bits(x) {
  if (x === 0) return Object.is(x, -0) ? 0x8000 : 0;
  const sign = x < 0 ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

function tensorOf(input) {
  const data = input.data.map(value);
  if (input.dtype === 'float16') return { shape: input.shape, dtype: 'float16', data: Uint16Array.from(data, float16Bits) };
  return { shape: input.shape, data: input.dtype === 'bool' ? Uint8Array.from(data) : Float32Array.from(data) };
}

/** The library call a case maps to: { Q, K, V, options }, or { missing } naming what we cannot express. */
function translate(c) {
  const a = c.attributes, inp = c.inputs;
  if (a.softmax_precision !== undefined && a.softmax_precision !== 1) return { missing: `softmax_precision ${a.softmax_precision}` };
  const options = {};
  if (a.q_num_heads !== undefined) [options.heads, options.kvHeads] = [a.q_num_heads, a.kv_num_heads];
  if (a.scale !== undefined) options.scale = a.scale;
  if (a.softcap) options.softcap = a.softcap;
  if (inp.attn_mask) options[inp.attn_mask.dtype === 'bool' ? 'mask' : 'bias'] = tensorOf(inp.attn_mask);
  if (inp.past_key) [options.pastKey, options.pastValue] = [tensorOf(inp.past_key), tensorOf(inp.past_value)];
  if (inp.nonpad_kv_seqlen) options.kvLengths = inp.nonpad_kv_seqlen.data.map(Number);
  if (a.is_causal) {
    options.causal = true;  // with pastKey the library's default offset is the past length, as ONNX's
    const n = inp.Q.shape.length === 4 ? inp.Q.shape[2] : inp.Q.shape[1];
    if (!inp.past_key && inp.nonpad_kv_seqlen) options.causalOffset = options.kvLengths.map((len) => len - n);  // ONNX's external cache
  }
  return { Q: tensorOf(inp.Q), K: tensorOf(inp.K), V: tensorOf(inp.V), options };
}

/** The features a case uses, for the table. */
function features(c) {
  const a = c.attributes, inp = c.inputs, f = [];
  f.push(inp.Q.shape.length === 3 ? '3-D inputs' : '4-D inputs');
  const heads = (t, h) => (t.shape.length === 4 ? t.shape[1] : h);
  if (heads(inp.Q, a.q_num_heads) !== heads(inp.K, a.kv_num_heads)) f.push('GQA');
  if (inp.V.shape.at(-1) !== inp.K.shape.at(-1)) f.push('d_v ≠ d');
  if (a.is_causal) f.push('is_causal');
  if (inp.attn_mask) f.push(inp.attn_mask.dtype === 'bool' ? 'bool attn_mask' : 'float attn_mask');
  if (inp.attn_mask?.shape.length === 4) f.push('4-D attn_mask');
  if (inp.past_key) f.push('past/present');
  if (inp.nonpad_kv_seqlen) f.push('nonpad_kv_seqlen');
  if (a.softcap) f.push('softcap');
  if (a.scale !== undefined) f.push('scale');
  if (c.node_outputs[3]) f.push(`qk_matmul_output mode ${a.qk_matmul_output_mode ?? 0}`);
  if (inp.Q.dtype === 'float16') f.push('float16');
  return f;
}

const QK_STEP = (c) => ['scores', c.attributes.softcap ? 'capped' : 'scores', 'biased', 'weights'][c.attributes.qk_matmul_output_mode ?? 0];
const decoded = (input) => input && { shape: input.shape, dtype: input.dtype, data: input.data.map(value) };

function check(lab, c, path) {
  const call = translate(c);
  const fused = path === 'fused';
  const result = lab.batchedAttention(call.Q, call.K, call.V, { ...call.options, ...(fused ? { weights: false } : { trace: Boolean(c.node_outputs[3]) }) });
  const ours = onnxAttention(Object.fromEntries(Object.entries(c.inputs).map(([k, v]) => [k, decoded(v)])), c.attributes);
  const onnxTol = c.outputs.Y.dtype === 'float16' ? F16_TOL : TOL;
  const compare = (actual, mine, expected, label, infinityAs) => {
    expectClose(actual, mine, { ...TOL, label: `${label} vs float64 reference`, infinityAs });
    if (expected) expectClose(actual, expected.data.map(value), { ...onnxTol, label: `${label} vs ONNX`, infinityAs });
  };
  expect(result.output.shape).toEqual(c.outputs.Y.shape);
  compare(result.output.data, ours.Y, c.outputs.Y, 'Y');
  if (c.node_outputs[1]) {
    compare(result.presentKey.data, ours.presentKey, c.outputs.present_key, 'present_key');
    compare(result.presentValue.data, ours.presentValue, c.outputs.present_value, 'present_value');
  }
  if (c.node_outputs[3] && !fused) {
    const step = result.steps.find((s) => s.id === QK_STEP(c));
    compare(step.tensor.data, ours.qk, c.outputs.qk_matmul_output, `qk_matmul_output (${step.id})`, FLT_LOWEST);
  }
}

const outcome = new Map();  // case name → { missing } or { passed: count of build × path runs passed }

if (!all) {
  console.warn(`ONNX Attention conformance skipped: ${CASES} not found (../shared/onnx-attention/cases.json beside the project, or ATTN_ONNX_CASES)`);
  it.skip(`ONNX Attention conformance: ${CASES} not found; the stage needs ../shared/onnx-attention/cases.json beside the project (or ATTN_ONNX_CASES)`, () => {});
} else {
  for (const c of cases) {
    const missing = translate(c).missing;
    outcome.set(c.name, missing ? { missing } : { passed: 0 });
  }
  describe.each(BUILDS)('ONNX Attention conformance ($name build)', ({ simd }) => {
    let lab;
    beforeAll(async () => {
      lab = await loadLab(simd);
    });
    for (const path of PATHS)
      describe(path, () => {
        for (const c of cases) {
          const { missing } = outcome.get(c.name);
          if (missing) it.skip(`${c.name} (cannot express: ${missing})`, () => {});
          else
            it(c.name, () => {
              check(lab, c, path);
              outcome.get(c.name).passed++;
            });
        }
      });
  });
  afterAll(() => {
    const runs = BUILDS.length * PATHS.length;
    const rows = new Map();
    for (const c of cases) {
      const o = outcome.get(c.name);
      for (const f of ['all cases', ...features(c)]) {
        const row = rows.get(f) ?? { cases: 0, expressible: 0, passing: 0 };
        row.cases++;
        if (!o.missing) row.expressible++;
        if (o.passed === runs) row.passing++;
        rows.set(f, row);
      }
    }
    const lines = [...rows].map(([f, r]) => `${f.padEnd(28)} ${String(r.cases).padStart(5)} ${String(r.expressible).padStart(11)} ${String(r.passing).padStart(8)}`);
    console.log(`ONNX Attention conformance (passing = on both builds and both paths)\n${'feature'.padEnd(28)} cases expressible  passing\n${lines.join('\n')}`);
  });
}
