// model.save({ precision }) on both builds: the bytes of each precision (float32
// unchanged, float16 about half, int8 about a quarter plus a scale per row),
// read here by a reference parser written from the format in
// src/train/model_image.h (its own FNV-1a, float16 decoding and int8
// dequantization); loading a compact image gives a model bit for bit equal to
// one given the parser's values with setParameters (parameters, evaluate and
// generate with its attention maps); bad options and hostile compact images
// are refused with INVALID_ARGUMENT and the module keeps working.
import { beforeAll, describe, expect, it } from 'vitest';

import { DETERMINISTIC_BUILDS, loadTrainingLab, thrown } from './helpers.js';

const SEQ2SEQ = { vocabSize: 12, maxLength: 7, dModel: 16, heads: 2, dFF: 24, encoderLayers: 1, decoderLayers: 1, crossScoring: 'additive', positions: 'learned', seed: 5 };
const LM = { kind: 'lm', vocabSize: 9, maxLength: 6, dModel: 8, heads: 2, dFF: 65, decoderLayers: 2, norm: 'pre', seed: 7 };
const HEADER = 120;
const HASH = 8;

const codeOf = (f) => thrown(f)?.code;
const messageOf = (f) => thrown(f)?.message ?? '';

function fnv1a(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h;
}

function rehash(bytes) {
  new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(bytes.length - HASH, fnv1a(bytes.subarray(0, bytes.length - HASH)), true);
  return bytes;
}

// IEEE binary16, by the definition.
function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 31;
  const mantissa = h & 1023;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return exponent === 0 ? sign * mantissa * 2 ** -24 : sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** Every tensor's values as the image holds them (dequantized), with the version and precision. */
function parseImage(bytes, tensors) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('ATLM');
  expect(view.getBigUint64(bytes.length - HASH, true)).toBe(fnv1a(bytes.subarray(0, bytes.length - HASH)));
  const version = view.getUint32(4, true);
  const precision = ['float32', 'float16', 'int8'][view.getUint32(100, true)];
  let at = HEADER;
  const values = {};
  for (const { name, rows, cols } of tensors) {
    const data = new Float32Array(rows * cols);
    if (precision === 'float32' || rows === 1) {
      for (let i = 0; i < data.length; i++, at += 4) data[i] = view.getFloat32(at, true);
    } else if (precision === 'float16') {
      for (let i = 0; i < data.length; i++, at += 2) data[i] = halfValue(view.getUint16(at, true));
    } else {
      const scales = Array.from({ length: rows }, (_, r) => view.getFloat32(at + 4 * r, true));
      at += 4 * rows;
      for (let i = 0; i < data.length; i++, at++) data[i] = Math.fround(view.getInt8(at) * scales[Math.floor(i / cols)]);
    }
    values[name] = { rows, cols, data };
  }
  expect(at).toBe(bytes.length - HASH);
  return { version, precision, values };
}

const bitsOf = (data) => Array.from(new Uint32Array(data.buffer, data.byteOffset, data.length));

function expectSameParameters(a, b) {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const name of Object.keys(a)) expect(bitsOf(a[name].data), name).toEqual(bitsOf(b[name].data));
}

// The model's floats in 1-row tensors, in bigger ones, and the bigger ones' rows.
function counts(model) {
  const c = { vector: 0, matrix: 0, rows: 0 };
  for (const { rows, cols } of model.tensors) {
    if (rows === 1) c.vector += cols;
    else {
      c.matrix += rows * cols;
      c.rows += rows;
    }
  }
  return c;
}

// A few steps of training on a fixed batch (so the weights are not the seeded ones).
function trained(lab, options) {
  const model = lab.createTransformer(options);
  const lm = options.kind === 'lm';
  const target = [[3, 4, 5, 2], [6, 7, 8, 2], [5, 3, 2, 0]];
  const input = target.map((t) => [1, ...t.slice(0, -1)]);
  const batch = lm ? { input, target } : { source: [[5, 4, 3], [8, 7, 6], [3, 5]], input, target };
  for (let i = 0; i < 15; i++) model.trainStep(batch, { learningRate: 1e-2 });
  return { model, batch };
}

describe.each(DETERMINISTIC_BUILDS)('model images ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadTrainingLab(simd);
  });

  it('each precision has its size: float32 4 bytes a value, float16 2, int8 1 plus a float32 scale per row', () => {
    for (const options of [SEQ2SEQ, LM]) {
      const model = lab.createTransformer(options);
      const { vector, matrix, rows } = counts(model);
      expect(vector + matrix).toBe(model.parameterCount);
      const sizes = Object.fromEntries(['float32', 'float16', 'int8'].map((p) => [p, model.save({ precision: p }).length]));
      expect(sizes.float32).toBe(HEADER + 4 * model.parameterCount + HASH);
      expect(sizes.float16).toBe(HEADER + 4 * vector + 2 * matrix + HASH);
      expect(sizes.int8).toBe(HEADER + 4 * vector + matrix + 4 * rows + HASH);
      expect(sizes.int8 / sizes.float32).toBeGreaterThan(0.25);
      expect(sizes.int8 / sizes.float32).toBeLessThan(0.4);
      model.dispose();
    }
    const dates = lab.createTransformer({ task: lab.tasks.dates, ...lab.tasks.dates.defaults.model });
    const ratio = dates.save({ precision: 'int8' }).length / dates.save().length;
    expect(ratio).toBeGreaterThan(0.25);
    expect(ratio).toBeLessThan(0.3); // rows of 32: a quarter, plus a scale per 32 values and the float32 vectors
    dates.dispose();
  });

  it('float32 is the default and the same image as before; save → load is bit-identical', () => {
    const { model, batch } = trained(lab, SEQ2SEQ);
    const bytes = model.save();
    expect(model.save({})).toEqual(bytes);
    expect(model.save({ precision: 'float32' })).toEqual(bytes);
    const { version, precision, values } = parseImage(bytes, model.tensors);
    expect([version, precision]).toEqual([1, 'float32']);
    expectSameParameters(values, model.parameters());
    const copy = lab.loadTransformer(bytes);
    expect(copy.save()).toEqual(bytes);
    expect(copy.evaluate(batch)).toEqual(model.evaluate(batch));
    model.dispose();
    copy.dispose();
  });

  it.each(['float16', 'int8'])('a %s image loads as exactly its dequantized values: parameters, evaluate and generate as setParameters gives', (p) => {
    for (const options of [SEQ2SEQ, LM]) {
      const { model, batch } = trained(lab, options);
      const bytes = model.save({ precision: p });
      const { version, precision, values } = parseImage(bytes, model.tensors);
      expect([version, precision]).toEqual([2, p]);
      const loaded = lab.loadTransformer(bytes);
      expect(loaded.steps).toBe(15);
      expect(loaded.config).toEqual(model.config);
      expectSameParameters(loaded.parameters(), values);
      // The same values set on a float32 copy of the model.
      const reference = lab.loadTransformer(model.save());
      reference.setParameters(values);
      expectSameParameters(reference.parameters(), loaded.parameters());
      const ids = options.kind === 'lm' ? [3] : [5, 4, 3];
      expect(loaded.generate(ids, { attention: true })).toEqual(reference.generate(ids, { attention: true }));
      expect(loaded.evaluate(batch)).toEqual(reference.evaluate(batch));
      // Rounded, not replaced: every value within its precision's step of the original.
      const original = model.parameters();
      for (const { name, rows, cols } of model.tensors) {
        const a = original[name].data;
        const b = values[name].data;
        for (let r = 0; r < rows; r++) {
          const row = a.subarray(r * cols, (r + 1) * cols);
          const step = rows === 1 ? 0 : p === 'float16' ? 2 ** -11 * Math.max(...row.map(Math.abs)) : Math.max(...row.map(Math.abs)) / 127 / 2;
          for (let c = 0; c < cols; c++) expect(Math.abs(b[r * cols + c] - row[c])).toBeLessThanOrEqual(step * 1.0001 + 2 ** -25);
        }
      }
      if (p === 'float16') expect(loaded.save({ precision: p })).toEqual(bytes);
      for (const m of [model, loaded, reference]) m.dispose();
    }
  });

  it('bad options are refused, naming the choices; a value beyond float16 names its tensor', () => {
    const model = lab.createTransformer(SEQ2SEQ);
    expect(messageOf(() => model.save({ precision: 'int4' }))).toMatch(/precision must be 'float32', 'float16' or 'int8', got "int4"/);
    for (const bad of [{ precision: 8 }, { precision: null }, { precision: 'Float16' }, { precison: 'int8' }, 'int8', null, []])
      expect(codeOf(() => model.save(bad)), JSON.stringify(bad)).toBe('INVALID_ARGUMENT');
    expect(messageOf(() => model.save({ precison: 'int8' }))).toMatch(/unknown option precison.*precision/);
    // A weight beyond float16's largest (65,504) is refused where it comes in, so every model saves
    // as float16; at the largest, int8 keeps it within a step of its row's scale.
    const w2 = new Float32Array(24 * 16).fill(0.5).fill(-65504, 17, 18);
    model.setParameters({ 'decoder.0.ffn.w2': { rows: 24, cols: 16, data: w2 } });
    const half = lab.loadTransformer(model.save({ precision: 'float16' }));
    expect(half.parameters()['decoder.0.ffn.w2'].data[17]).toBe(-65504);
    half.dispose();
    const int8 = lab.loadTransformer(model.save({ precision: 'int8' }));
    expect(Math.abs(int8.parameters()['decoder.0.ffn.w2'].data[17] + 65504)).toBeLessThan(0.01); // q = -127
    int8.dispose();
    model.dispose();
  });

  it('weights no training makes are refused, by setParameters and in a well-formed image, naming the tensor and index', () => {
    const model = lab.createTransformer(SEQ2SEQ);
    const before = model.parameters();
    for (const [value, shown] of [[3e38, '3.0000000054977558e+38'], [-1e30, '-1.0000000150474662e+30'], [65505, '65505']]) {
      const data = new Float32Array(12).fill(0.5);
      data[4] = value;
      const error = thrown(() => model.setParameters({ 'output.b': { rows: 1, cols: 12, data } }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(`TransformerModel.setParameters: output.b[0][4] is ${shown}; a weight must be finite and at most 65504 in magnitude (float16's largest)`);
    }
    expect(model.parameters()).toEqual(before); // a refused call writes nothing
    // The same model saved, one weight (a sentinel) replaced by 3e38 and the hash recomputed.
    const data = new Float32Array(12).fill(0.5);
    data[4] = 1234.5;
    model.setParameters({ 'output.b': { rows: 1, cols: 12, data } });
    const bytes = model.save();
    const view = new DataView(bytes.buffer);
    let at = HEADER;
    while (view.getFloat32(at, true) !== 1234.5) at += 4;
    view.setFloat32(at, 3e38, true);
    const error = thrown(() => lab.loadTransformer(rehash(bytes)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/^loadTransformer: output\.b\[0\]\[4\] is 3\.0000000054977558e\+38; a weight must be finite/);
    const other = trained(lab, SEQ2SEQ); // the module keeps working
    expect(other.model.loss(other.batch)).toBeGreaterThan(0);
    other.model.dispose();
    model.dispose();
  });

  it('a well-formed image whose settings createTransformer refuses is refused, naming the setting', () => {
    const model = lab.createTransformer(LM); // sinusoidal positions: the parameters do not depend on maxLength
    const bytes = model.save();
    model.dispose();
    const edited = (offset, write) => {
      const b = bytes.slice();
      write(new DataView(b.buffer), offset);
      return rehash(b);
    };
    // The header: six uint32 choices from byte 8 (kind, crossScoring, …), then uint64 sizes from 32 (vocabSize, maxLength, …).
    const cases = [
      [edited(40, (v, o) => v.setBigUint64(o, 65536n, true)), /maxLength 65536 is above 4096 positions/],
      [edited(12, (v, o) => v.setUint32(o, 1, true)), /a decoder-only \('lm'\) model has no cross-attention/],
    ];
    for (const [image, message] of cases) {
      const error = thrown(() => lab.loadTransformer(image));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/^loadTransformer: the saved model's settings are not ones createTransformer accepts: /);
      expect(error.message).toMatch(message);
    }
    const again = lab.loadTransformer(bytes); // the unedited image loads, and the module keeps working
    expect(again.config.maxLength).toBe(LM.maxLength);
    again.dispose();
  });

  it('hostile compact images are INVALID_ARGUMENT and the module keeps working', () => {
    const { model, batch } = trained(lab, SEQ2SEQ);
    const loss = model.loss(batch);
    for (const p of ['float16', 'int8']) {
      const bytes = model.save({ precision: p });
      for (const n of [8, 100, 127, 128, HEADER + 1, bytes.length >> 1, bytes.length - 1]) {
        expect(codeOf(() => lab.loadTransformer(bytes.slice(0, n))), `truncated to ${n}`).toBe('INVALID_ARGUMENT');
        if (n >= HEADER + HASH) expect(codeOf(() => lab.loadTransformer(rehash(bytes.slice(0, n)))), `truncated to ${n}, rehashed`).toBe('INVALID_ARGUMENT');
      }
      const edit = (offset, write) => {
        const b = bytes.slice();
        write(new DataView(b.buffer), offset);
        return rehash(b);
      };
      const first = HEADER; // encoder.embedding, 12 × 16: int8 scales first
      const cases = {
        'unknown precision': edit(100, (v, o) => v.setUint32(o, 7, true)),
        'float32 code in a version-2 image': edit(100, (v, o) => v.setUint32(o, 0, true)),
        'version 1 with a compact precision': edit(4, (v, o) => v.setUint32(o, 1, true)),
        'wrong count': edit(112, (v, o) => v.setBigUint64(o, BigInt(model.parameterCount - 1), true)),
        ...(p === 'int8'
          ? {
              'NaN scale': edit(first, (v, o) => v.setFloat32(o, NaN, true)),
              'infinite scale': edit(first, (v, o) => v.setFloat32(o, Infinity, true)),
              'negative scale': edit(first, (v, o) => v.setFloat32(o, -0.01, true)),
              'scale whose 127 multiple overflows': edit(first, (v, o) => v.setFloat32(o, 3e38, true)),
              '-128': edit(first + 4 * 12, (v, o) => v.setInt8(o, -128)),
            }
          : { 'float16 infinity': edit(first, (v, o) => v.setUint16(o, 0x7c00, true)), 'float16 NaN': edit(first, (v, o) => v.setUint16(o, 0xffff, true)) }),
      };
      for (const [what, b] of Object.entries(cases)) expect(codeOf(() => lab.loadTransformer(b)), what).toBe('INVALID_ARGUMENT');
      const flipped = bytes.slice();
      flipped[HEADER + 3] ^= 4; // no rehash: the hash catches it
      expect(messageOf(() => lab.loadTransformer(flipped))).toMatch(/not a model saved by model\.save\(\)/);
      lab.loadTransformer(bytes).dispose();
    }
    expect(model.loss(batch)).toBe(loss);
    model.dispose();
  });
});
