// lab.loadReader on a small reader made here: an encoder and a decoder trained for 150 seeded steps
// on the fixture text (tests/fixtures/reader/{en,zh}.txt), packed with the shipped vocabulary. The
// contract: tokenize is the tokenizer's; attend's maps are the models' own (rows sum to 1, the
// encoder's rows see later pieces, the decoder's do not), its trace reproduces them; predict is a
// float64 softmax of the decoder's last logits row; the first maxLength pieces are read, with a
// note; hostile text never breaks it; every refusal names the value or field, and leaves nothing
// behind; the file's loader refuses truncated, corrupted and mismatched readers.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { packReader } from '../../dist/reader/bundle.js';
import { BOS, createTokenizer } from '../../dist/reader/tokenizer.js';
import { loadTrainingLab, thrown } from './helpers.js';

const vocabulary = JSON.parse(readFileSync(new URL('../../bindings/reader/vocabulary.json', import.meta.url), 'utf8'));
const tokenizer = createTokenizer(vocabulary);
const lines = ['en', 'zh'].flatMap((l) => readFileSync(new URL(`../fixtures/reader/${l}.txt`, import.meta.url), 'utf8').split('\n').filter((x) => x.trim()));
const MAX_LENGTH = 24;
const STEPS = 150;
const SIZES = { vocabSize: tokenizer.size, maxLength: MAX_LENGTH, dModel: 16, heads: 2, dFF: 32, positions: 'learned', seed: 1 };
const HEADS = [
  { model: 'decoder', layer: 0, head: 1, kind: 'previous', score: 0.5, label: { en: 'the previous piece', 'zh-CN': '前一个词元' } },
  { model: 'encoder', layer: 1, head: 0, kind: 'pronoun', score: 0.25, label: { en: 'pronoun → noun', 'zh-CN': '代词 → 名词' } },
];
const LANGUAGES = { en: { corpus: 'fixture en.txt', pronounHead: { model: 'encoder', layer: 1, head: 0 } }, 'zh-CN': { corpus: 'fixture zh.txt' } };

const codeOf = (f) => thrown(f)?.code;
const messageOf = (f) => thrown(f)?.message ?? '';
async function rejection(promise, label = '') {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail(`expected the promise to reject ${label}`);
}
const rowSums = (m) => Array.from({ length: m.rows }, (_, i) => m.data.subarray(i * m.cols, (i + 1) * m.cols).reduce((a, b) => a + b, 0));

/** An encoder ('mlm', pre-norm) and a decoder ('lm', post-norm) trained briefly on the fixture lines. */
function trainModels(lab) {
  const encoder = lab.createTransformer({ kind: 'mlm', encoderLayers: 2, norm: 'pre', ...SIZES });
  const decoder = lab.createTransformer({ kind: 'lm', decoderLayers: 2, norm: 'post', ...SIZES });
  const rows = lines.map((l) => Array.from(tokenizer.tokenize(l, { maxLength: MAX_LENGTH - 1 }).ids));
  const pad = (r) => [...r, ...new Array(MAX_LENGTH - r.length).fill(0)];
  for (let step = 0; step < STEPS; step++) {
    const pick = Array.from({ length: 8 }, (_, k) => rows[(step * 8 + k) % rows.length]);
    decoder.trainStep({ input: pick.map((r) => pad([BOS, ...r])), target: pick.map((r) => pad([...r, 2])) }, { learningRate: 3e-3 });
    encoder.trainStep(lab.mlmBatch(pick.map((ids) => ({ ids })), { mask: 3, vocabSize: tokenizer.size, seed: step }), { learningRate: 3e-3 });
  }
  const images = { encoder: encoder.save({ precision: 'float16' }), decoder: decoder.save({ precision: 'int8' }) };
  encoder.dispose();
  decoder.dispose();
  return images;
}

describe('lab.loadReader', () => {
  let lab;
  let images;
  let bytes;
  let reader;
  let models; // the same images loaded as plain models, the oracle of attend and predict

  beforeAll(async () => {
    lab = await loadTrainingLab(true);
    images = trainModels(lab);
    bytes = packReader({ vocabulary, ...images, heads: HEADS, languages: LANGUAGES });
    reader = await lab.loadReader({ bytes, language: 'en' });
    models = { encoder: lab.loadTransformer(images.encoder), decoder: lab.loadTransformer(images.decoder) };
  }, 60_000);

  it('tokenize gives the tokenizer’s pieces, ids and offsets, in English and Chinese', () => {
    for (const text of ['Call me Ishmael. Some years ago—never mind how long precisely', '秦川雄帝宅，函谷壮皇居。', '']) {
      const got = reader.tokenize(text);
      const want = tokenizer.tokenize(text);
      expect(got.tokens).toEqual(want.tokens);
      expect(Array.from(got.ids)).toEqual(Array.from(want.ids));
      expect(Array.from(got.offsets)).toEqual(Array.from(want.offsets));
      expect(got.truncated).toBeUndefined();
    }
    expect(reader.language).toBe('en');
    expect(reader.facts.pronounHead).toEqual({ model: 'encoder', layer: 1, head: 0 });
    expect(reader.heads).toEqual(HEADS);
    expect(reader.maxLength).toBe(MAX_LENGTH);
  });

  it('attend gives each model’s own maps: rows sum to 1, the encoder’s see later pieces, the decoder’s do not', () => {
    const text = 'It is a way I have of driving off the spleen.';
    const { ids, tokens } = tokenizer.tokenize(text);
    const enc = reader.attend(text, { model: 'encoder' });
    const dec = reader.attend(text, { model: 'decoder' });
    expect(enc.tokens).toEqual(tokens);
    expect(dec.tokens).toEqual(['<bos>', ...tokens]); // the decoder reads <bos> first
    const oracle = { encoder: models.encoder.attend(ids).attention, decoder: models.decoder.attend([BOS, ...ids]).attention };
    for (const [name, got] of [['encoder', enc], ['decoder', dec]]) {
      expect(got.model).toBe(name);
      expect(got.attention).toHaveLength(2);
      got.attention.forEach((layer, l) =>
        layer.forEach((m, h) => {
          expect(Array.from(m.data)).toEqual(Array.from(oracle[name][l][h].data));
          for (const s of rowSums(m)) expect(s).toBeCloseTo(1, 5);
          const n = m.rows;
          let later = 0;
          for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) later += m.data[i * n + j];
          if (name === 'encoder') expect(later).toBeGreaterThan(0.1);
          else expect(later).toBe(0);
        }));
    }
  });

  it('trace: each head’s steps, from the layer’s input and W_Q, W_K, W_V, give attend’s weights', () => {
    for (const [model, text] of [['decoder', 'Call me Ishmael.'], ['encoder', '鸣笳临乐馆，眺听欢芳节。']]) {
      const r = reader.attend(text, { model, trace: true });
      expect(r.steps).toHaveLength(2);
      r.steps.forEach((layer, l) => {
        expect(layer).toHaveLength(2);
        layer.forEach((steps, h) => {
          expect(steps.map((s) => s.id)).toEqual(model === 'decoder' ? ['Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights', 'output'] : ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output']);
          const w = steps.find((s) => s.id === 'weights').matrix;
          const want = r.attention[l][h];
          expect([w.rows, w.cols]).toEqual([want.rows, want.cols]);
          let worst = 0;
          for (let k = 0; k < w.data.length; k++) worst = Math.max(worst, Math.abs(w.data[k] - want.data[k]));
          expect(worst, `${model} layer ${l} head ${h}`).toBeLessThan(1e-6);
          expect(steps[0].matrix.cols).toBe(8); // d_k = dModel / heads
        });
      });
    }
    expect(reader.attend('Call me', { model: 'decoder' }).steps).toBeUndefined();
  });

  it('trace: a head\'s steps are computed when first read, once, and still after the reader is disposed', async () => {
    const own = await lab.loadReader({ bytes });
    const r = own.attend('Call me Ishmael.', { model: 'decoder', trace: true });
    own.dispose();
    const late = r.steps[1][1];
    const w = late.find((s) => s.id === 'weights').matrix.data;
    const want = r.attention[1][1].data;
    let worst = 0;
    for (let k = 0; k < w.length; k++) worst = Math.max(worst, Math.abs(w[k] - want[k]));
    expect(worst).toBeLessThan(1e-6);
    expect(r.steps[1][1]).toBe(late);
    expect(Object.keys(r.steps[0])).toEqual(['0', '1']);
  });

  it('parameters(model) copies that model\'s named parameters as the file holds them; a bad name is refused', () => {
    for (const name of ['encoder', 'decoder']) {
      const got = reader.parameters(name);
      const want = models[name].parameters();
      expect(Object.keys(got)).toEqual(Object.keys(want));
      expect(Object.keys(got).some((key) => key.startsWith(`${name}.0.attention.w_q`))).toBe(true);
      for (const key of Object.keys(want)) {
        expect([got[key].rows, got[key].cols], key).toEqual([want[key].rows, want[key].cols]);
        expect(Array.from(got[key].data), key).toEqual(Array.from(want[key].data));
      }
      got[`${name}.0.attention.w_q`].data.fill(0); // a copy: the reader's model is unchanged
      expect(Array.from(reader.parameters(name)[`${name}.0.attention.w_q`].data)).toEqual(Array.from(want[`${name}.0.attention.w_q`].data));
    }
    expect(codeOf(() => reader.parameters('both'))).toBe('INVALID_ARGUMENT');
    expect(messageOf(() => reader.parameters())).toMatch(/reader\.parameters: model is undefined; give 'encoder' or 'decoder'/);
  });

  it('predict is a float64 softmax of the decoder’s last logits row over the whole vocabulary, best first', () => {
    const text = 'Call me Ishmael. Some years';
    const got = reader.predict(text, { topK: 7 });
    const { logits } = models.decoder.attend([BOS, ...tokenizer.tokenize(text).ids]);
    const V = tokenizer.size;
    const row = Array.from(logits.data.subarray((logits.rows - 1) * V));
    const max = Math.max(...row);
    const sum = row.reduce((s, x) => s + Math.exp(x - max), 0);
    const want = row.map((x, id) => ({ id, p: Math.exp(x - max) / sum })).sort((a, b) => b.p - a.p || a.id - b.id).slice(0, 7);
    expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
    got.forEach((g, k) => {
      expect(g.probability).toBeCloseTo(want[k].p, 12);
      expect(g.token).toBe(tokenizer.pieces[g.id]);
      if (k) expect(g.probability).toBeLessThanOrEqual(got[k - 1].probability);
    });
    expect(got.reduce((s, g) => s + g.probability, 0)).toBeLessThanOrEqual(1);
    expect(reader.predict(text)).toHaveLength(5);
    const all = reader.predict(text, { topK: V });
    expect(all.reduce((s, g) => s + g.probability, 0)).toBeCloseTo(1, 10);
  });

  it('reads the first maxLength pieces and says so; predict continues the text’s last pieces', () => {
    const text = lines.reduce((a, b) => (b.length > a.length ? b : a)); // far more than 24 pieces
    const whole = tokenizer.tokenize(text);
    expect(whole.ids.length).toBeGreaterThan(MAX_LENGTH);
    const enc = reader.attend(text);
    expect(enc.tokens).toEqual(whole.tokens.slice(0, MAX_LENGTH));
    expect(enc.truncated).toEqual({ total: whole.ids.length, read: tokenizer.tokenize(text, { maxLength: MAX_LENGTH }).truncated.read });
    expect(enc.attention[0][0].rows).toBe(MAX_LENGTH);
    const dec = reader.attend(text, { model: 'decoder' });
    expect(dec.tokens).toEqual(['<bos>', ...whole.tokens.slice(0, MAX_LENGTH - 1)]);
    expect(dec.truncated.total).toBe(whole.ids.length);
    // exactly maxLength pieces: no note
    const fits = tokenizer.decode(whole.ids.subarray(0, MAX_LENGTH));
    expect(tokenizer.tokenize(fits).ids.length).toBe(MAX_LENGTH);
    expect(reader.attend(fits).truncated).toBeUndefined();
    const { logits } = models.decoder.attend([BOS, ...whole.ids.subarray(whole.ids.length - (MAX_LENGTH - 1))]);
    const V = tokenizer.size;
    const last = logits.data.subarray((logits.rows - 1) * V);
    expect(reader.predict(text, { topK: 1 })[0].id).toBe(last.indexOf(Math.max(...last)));
  });

  it('hostile text gives pieces and finite maps, never a crash or a hang; empty text is refused', () => {
    const hostile = [
      '👩‍👩‍👧‍👦🇯🇵🏳️‍🌈 emoji', 'e\u0301\u0302\u0303 combining', 'שלום עולם مرحبا بالعالم', 'zero\u200b\u200c\u200dwidth\ufeff',
      '\ud800 lone \udfff surrogates', '\u0000\u0001\u007f', ' \n\t ', 'x'.repeat(10_000), '中'.repeat(10_000), '🙂'.repeat(10_000),
    ];
    for (const text of hostile) {
      for (const model of ['encoder', 'decoder']) {
        const r = reader.attend(text, { model });
        expect(r.tokens.length).toBeGreaterThan(0);
        expect(r.tokens.length).toBeLessThanOrEqual(MAX_LENGTH);
        for (const s of rowSums(r.attention[1][1])) expect(s).toBeCloseTo(1, 5);
        if (text.length === 10_000) expect(r.truncated.total).toBeGreaterThan(MAX_LENGTH);
      }
      const p = reader.predict(text);
      expect(p.every((g) => Number.isFinite(g.probability))).toBe(true);
      expect(reader.tokenize(text).ids.length).toBeGreaterThan(0);
    }
    for (const call of [() => reader.attend(''), () => reader.attend('', { model: 'decoder' }), () => reader.predict('')]) {
      expect(codeOf(call)).toBe('INVALID_ARGUMENT');
      expect(messageOf(call)).toMatch(/text is empty; give at least one character/);
    }
  });

  it('every refusal names the value, leaves the reader working, and grows no memory', async () => {
    const before = reader.attend('Call me Ishmael.', { model: 'decoder', trace: true });
    reader.predict('Call me');
    const heap = lab.heapBytes;
    const cases = [
      [() => reader.attend(42), /reader\.attend: text must be a string, got 42/],
      [() => reader.attend(null), /reader\.attend: text must be a string, got null/],
      [() => reader.attend('a', { model: 'encoders' }), /reader\.attend: model is "encoders"; give 'encoder' or 'decoder'/],
      [() => reader.attend('a', { trace: 'yes' }), /reader\.attend: trace must be true or false, got "yes"/],
      [() => reader.attend('a', { topK: 3 }), /reader\.attend: unknown option topK/],
      [() => reader.attend('a', 'decoder'), /reader\.attend: options must be an object/],
      [() => reader.predict('a', { topK: 0 }), /reader\.predict: topK must be a whole number from 1 to 4096 \(the vocabulary\), got 0/],
      [() => reader.predict('a', { topK: 2.5 }), /got 2\.5/],
      [() => reader.predict('a', { topK: 5000 }), /got 5000/],
      [() => reader.predict(['a']), /reader\.predict: text must be a string, got an array/],
      [() => reader.tokenize(undefined), /reader\.tokenize: text must be a string, got undefined/],
    ];
    for (const [call, message] of cases) {
      const error = thrown(call);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    const refusals = [
      [() => lab.loadReader({ language: 'zh' }), /loadReader: language is "zh" \(did you mean zh-CN\?\); the reader's languages are en, zh-CN/],
      [() => lab.loadReader({ bytes, url: 'https://example.com/reader.bin' }), /loadReader: give bytes or url, not both/],
      [() => lab.loadReader({ bytes: Array.from(bytes.subarray(0, 8)) }), /loadReader: bytes must be a Uint8Array \(the contents of reader\.bin\), got an array/],
      [() => lab.loadReader({ bytes: new Uint8Array(16 * 1024 * 1024 + 1) }), /loadReader: bytes holds 16777217 bytes, more than a reader \(at most 16777216\)/],
      [() => lab.loadReader({ bytes, version: 2 }), /loadReader: unknown option version/],
      [() => lab.loadReader({ url: 'ftp://example.com/reader.bin' }), /loadReader: url "ftp:\/\/example\.com\/reader\.bin" has the scheme ftp:/],
      [() => lab.loadReader({ url: pathToFileURL('/nonexistent/reader.bin') }), /loadReader: cannot read \/nonexistent\/reader\.bin/],
      [() => lab.loadReader({ bytes: packReader({ vocabulary, ...images, languages: { en: {} } }), language: 'zh-CN' }), /loadReader: this reader has no language "zh-CN"; it has en/],
    ];
    for (const [load, message, code = 'INVALID_ARGUMENT'] of refusals) {
      const error = await rejection(load());
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    }
    expect(lab.heapBytes).toBe(heap);
    const after = reader.attend('Call me Ishmael.', { model: 'decoder', trace: true });
    expect(Array.from(after.attention[1][0].data)).toEqual(Array.from(before.attention[1][0].data));
    expect(Array.from(after.steps[1][0][6].matrix.data)).toEqual(Array.from(before.steps[1][0][6].matrix.data));
  });

  it('loads its models in tasks of their own: a timer set before the load runs before it is done', async () => {
    const order = [];
    setTimeout(() => order.push('timer'), 0);
    const own = await lab.loadReader({ bytes });
    order.push('loaded');
    own.dispose();
    expect(order).toEqual(['timer', 'loaded']);
  });

  it('loads from a url; dispose frees both models, and a call after it throws DISPOSED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reader-'));
    const file = join(dir, 'reader.bin');
    writeFileSync(file, bytes);
    const warm = await lab.loadReader({ url: pathToFileURL(file), language: 'zh-CN' });
    warm.attend('秦川雄帝宅', { model: 'decoder', trace: true });
    warm.dispose();
    const heap = lab.heapBytes;
    for (let k = 0; k < 3; k++) {
      const r = await lab.loadReader({ url: pathToFileURL(file).href, language: 'zh-CN' });
      expect(r.language).toBe('zh-CN');
      expect(r.facts).toEqual({ corpus: 'fixture zh.txt' });
      r.attend('秦川雄帝宅', { model: 'decoder', trace: true });
      r.predict('秦川');
      r.dispose();
      r.dispose(); // twice is fine
      expect(r.disposed).toBe(true);
      for (const call of [() => r.attend('a'), () => r.predict('a'), () => r.tokenize('a')]) {
        expect(codeOf(call)).toBe('DISPOSED');
        expect(messageOf(call)).toMatch(/reader\.(attend|predict|tokenize): this reader was disposed; load a new one with lab\.loadReader\(\)/);
      }
    }
    expect(lab.heapBytes).toBe(heap);
  });

  it('refuses truncated, corrupted and mismatched readers, naming the field, and keeps no model', async () => {
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const encoderStart = 12 + headerLength;
    const edit = (at, value) => {
      const b = bytes.slice();
      b[at] = value;
      return b;
    };
    const withHeader = (change) => {
      const json = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength)));
      change(json);
      const text = new TextEncoder().encode(JSON.stringify(json));
      const out = new Uint8Array(12 + text.length + bytes.length - encoderStart);
      out.set(bytes.subarray(0, 12));
      new DataView(out.buffer).setUint32(8, text.length, true);
      out.set(text, 12);
      out.set(bytes.subarray(encoderStart), 12 + text.length);
      return out;
    };
    const small = lab.createTransformer({ ...SIZES, kind: 'lm', decoderLayers: 2, vocabSize: 50 });
    const long = lab.createTransformer({ ...SIZES, kind: 'lm', decoderLayers: 2, maxLength: 32 });
    const unscaled = lab.createTransformer({ ...SIZES, kind: 'lm', decoderLayers: 2, scaled: false });
    const other = { small: small.save(), long: long.save(), unscaled: unscaled.save() };
    for (const m of [small, long, unscaled]) m.dispose();
    // a first refused load (the heap may grow to hold the bytes once), then none grows it
    await rejection(lab.loadReader({ bytes: bytes.subarray(0, bytes.length - 1) }));
    const heap = lab.heapBytes;
    const cases = [
      [bytes.subarray(0, 5), /loadReader: 5 bytes is too short for a reader/],
      [edit(0, 0x58), /loadReader: these bytes are not a reader: they start with "XTRD", not "ATRD"/],
      [edit(4, 2), /loadReader: the reader's format version is 2; this library reads version 1/],
      [bytes.subarray(0, 100), /loadReader: the header's length is \d+ bytes but only 88 follow \(a truncated file\?\)/],
      [edit(12, 0x7b + 1), /loadReader: the header is not UTF-8 JSON/],
      [bytes.subarray(0, encoderStart + 10), /loadReader: header\.models\.encoder\.bytes is \d+ but only 10 bytes are left \(a truncated file\?\)/],
      [bytes.subarray(0, bytes.length - 1), /loadReader: header\.models\.decoder\.bytes is \d+ but only \d+ bytes are left/],
      [(() => { const b = new Uint8Array(bytes.length + 1); b.set(bytes); return b; })(), /loadReader: 1 bytes follow the decoder's image; a reader ends with it/],
      [edit(encoderStart, 0), /loadReader: the encoder: loadTransformer: these \d+ bytes are not a model saved by model\.save\(\): it does not start with "ATLM"/],
      [edit(encoderStart + 200, bytes[encoderStart + 200] ^ 0xff), /loadReader: the encoder: loadTransformer: these \d+ bytes are not a model saved by model\.save\(\)/],
      [packReader({ vocabulary, encoder: images.decoder, decoder: images.encoder }), /loadReader: the encoder is a 'lm' model; a reader's encoder is 'mlm'/],
      [packReader({ vocabulary, encoder: images.encoder, decoder: other.small }), /loadReader: the decoder's vocabSize is 50 but the reader's vocabulary has 4096 pieces/],
      [packReader({ vocabulary, encoder: images.encoder, decoder: other.long }), /loadReader: the encoder's maxLength is 24 but the decoder's is 32/],
      [packReader({ vocabulary, encoder: images.encoder, decoder: other.unscaled }), /loadReader: the decoder's attention is unscaled/],
      [withHeader((h) => delete h.vocabulary.merges), /loadReader: header\.vocabulary: /],
      [withHeader((h) => (h.models.decoder.bos = 'yes')), /loadReader: header\.models\.decoder\.bos must be true or false, got "yes"/],
      [withHeader((h) => (h.models.encoder.bytes = -1)), /loadReader: header\.models\.encoder\.bytes must be a whole number of bytes, got -1/],
      [withHeader((h) => (h.heads[1].layer = 2)), /loadReader: header\.heads\[1\]\.layer is 2 but the encoder has 2 layers/],
      [withHeader((h) => (h.heads[0].head = 5)), /loadReader: header\.heads\[0\]\.head is 5 but the decoder has 2 heads/],
      [withHeader((h) => (h.heads[0].model = 'cross')), /loadReader: header\.heads\[0\]\.model must be 'encoder' or 'decoder', got "cross"/],
      [withHeader((h) => (h.heads[0].score = null)), /loadReader: header\.heads\[0\]\.score must be a finite number, got null/],
      [withHeader((h) => (h.heads[0].closest = 7)), /loadReader: header\.heads\[0\]\.closest must be a non-empty string \(the nearest kind of a head whose kind is 'none'\), got 7/],
      [withHeader((h) => delete h.heads[1].label['zh-CN']), /loadReader: header\.heads\[1\]\.label\["zh-CN"\] must be a string, got undefined/],
      [withHeader((h) => (h.languages.fr = {})), /loadReader: header\.languages\["fr"\]: the reader's languages are en, zh-CN/],
      [withHeader((h) => (h.languages.en.pronounHead.layer = 9)), /loadReader: header\.languages\["en"\]\.pronounHead\.layer is 9 but the encoder has 2 layers/],
    ];
    for (const [b, message] of cases) {
      const error = await rejection(lab.loadReader({ bytes: b }), String(message));
      expect(error, String(message)).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    expect(lab.heapBytes).toBe(heap);
    // the bytes it was given are untouched, and still load
    const again = await lab.loadReader({ bytes });
    expect(again.attend('Call me').tokens).toEqual(reader.attend('Call me').tokens);
    again.dispose();
  });
});
