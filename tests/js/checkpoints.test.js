// The shipped checkpoints (dist/checkpoints/<task>.bin, committed as checkpoints/<task>.bin): made
// again here from their recipes on the SIMD training build, byte for byte (all four: about 30 s of
// training on a 2-core machine), and reverse on the scalar build too, whenever an input of training
// changed since they were made (see scripts/make-checkpoints.mjs); each one's validation score is the one
// its recipe states and at least its task's goal; together they fit the 150 KB gzip budget; and
// lab.loadTrained loads them (from the package, from bytes, from a URL) and refuses what is not one.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { init } from '../../dist/node.js';
import { fetchCheckpoint, responseBytes } from '../../dist/train/trained.js';
import { makeCheckpoint, trainingUnchanged, trainingWasmHash, validationScore } from '../../scripts/make-checkpoints.mjs';
import { loadTrainingLab } from './helpers.js';

const NAMES = ['dates', 'reverse', 'grammar', 'repeat'];
const shipped = (name) => new Uint8Array(readFileSync(new URL(`../../dist/checkpoints/${name}.bin`, import.meta.url)));
const committed = (name) => new Uint8Array(readFileSync(new URL(`../../checkpoints/${name}.bin`, import.meta.url)));
const BUDGET = 150 * 1024;
// dates trains in about 13 s alone (user time), but took 42 s of wall time beside other work on this
// 2-core machine: room for that, not a timing assertion.
const TRAINING_TIMEOUT = 180_000;
const manifest = JSON.parse(readFileSync(new URL('../../checkpoints/manifest.json', import.meta.url), 'utf8'));

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail('expected the promise to reject');
}

// Skipped while every input of training is what made the committed checkpoints (the manifest's
// trainingInputsSha256): the same inputs give the same bytes. ATTENTION_LAB_RETRAIN=1 runs them anyway.
const unchanged = trainingUnchanged();

describe.skipIf(unchanged)('the shipped checkpoints, made again (training inputs changed since they were made)', () => {
  it.each(NAMES)('%s: its recipe, run again on the SIMD build, writes the same bytes', async (name) => {
    const lab = await loadTrainingLab(true);
    const bytes = makeCheckpoint(lab, name);
    // Different bytes after a change to the core: run node scripts/make-checkpoints.mjs and commit them.
    const wasm = trainingWasmHash();
    const why = wasm === manifest.trainingWasmSha256 ? 'the same .wasm made them' : `they were made by a training .wasm of SHA-256 ${manifest.trainingWasmSha256}, dist/ has ${wasm}`;
    expect(Buffer.compare(Buffer.from(bytes), Buffer.from(committed(name))), `${name} (${why}): re-run node scripts/make-checkpoints.mjs`).toBe(0);
    expect(manifest.files[`${name}.bin`].bytes).toBe(bytes.length);
    expect(Buffer.compare(Buffer.from(shipped(name)), Buffer.from(committed(name))), `${name}: dist/ is stale (npm run build)`).toBe(0);
  }, TRAINING_TIMEOUT);

  // The scalar back end sums in the same order as the SIMD one, so it trains to the same bits too
  // (measured: reverse and repeat, 0 bytes differ); it is 8–9× slower, so only reverse (about 19 s).
  it('reverse: the scalar build writes the same bytes too', async () => {
    const lab = await loadTrainingLab(false);
    expect(Buffer.compare(Buffer.from(makeCheckpoint(lab, 'reverse')), Buffer.from(committed('reverse')))).toBe(0);
  }, TRAINING_TIMEOUT);
});

describe('the shipped checkpoints', () => {
  it.each(NAMES)('%s: the copy in dist/ is the committed file, of the size the manifest states', (name) => {
    expect(manifest.files[`${name}.bin`].bytes).toBe(committed(name).length);
    expect(Buffer.compare(Buffer.from(shipped(name)), Buffer.from(committed(name))), `${name}: dist/ is stale (npm run build)`).toBe(0);
  });

  it.each(NAMES)('%s: the checkpoint scores what its recipe states on the validation split, at least the goal', async (name) => {
    const lab = await loadTrainingLab(true);
    const model = await lab.loadTrained(name);
    const score = validationScore(lab, name, model);
    model.dispose();
    expect(score).toBe(lab.checkpoints[name].validation);
    expect(score).toBeGreaterThanOrEqual(lab.tasks[name].goal.value);
  });

  it('all four fit in 150 KB of gzip -9, each an int8 image', async () => {
    const lab = await loadTrainingLab(true);
    const sizes = NAMES.map((name) => gzipSync(shipped(name), { level: 9 }).length);
    expect(sizes.reduce((a, b) => a + b)).toBeLessThanOrEqual(BUDGET);
    for (const name of NAMES) expect(lab.checkpoints[name].precision).toBe('int8');
    expect(Object.keys(lab.checkpoints)).toEqual(NAMES);
  });
});

describe.each([true, false])('lab.loadTrained (simd: %s)', (simd) => {
  it('gives the trained model with its task: generate returns text', async () => {
    const lab = await loadTrainingLab(simd);
    const dates = await lab.loadTrained('dates');
    expect(dates.task).toBe(lab.tasks.dates);
    expect(dates.config).toMatchObject(lab.checkpoints.dates.model);
    for (const source of lab.tasks.dates.examples) expect(lab.tasks.dates.check(source, dates.generate(lab.tasks.dates.encode(source)).text), source).toBe(true);
    const { attention } = dates.generate(lab.tasks.dates.encode('2026年12月1日'), { attention: true });
    // Its cross-attention (one layer of 4 heads, 11 output rows by 10 source characters) has rows summing to 1.
    expect(attention.cross).toHaveLength(1);
    expect(attention.cross[0]).toHaveLength(4);
    for (const row of attention.cross[0][0]) expect(row.reduce((a, b) => a + b)).toBeCloseTo(1, 5);
    dates.dispose();
    const reverse = await lab.loadTrained('reverse');
    expect(reverse.generate(lab.tasks.reverse.encode('abcdef')).text).toBe('fedcba');
    reverse.dispose();
  });

  it('takes the bytes, or a URL (a data: URL here), instead of the shipped file', async () => {
    const lab = await loadTrainingLab(simd);
    const bytes = shipped('repeat');
    const fromBytes = await lab.loadTrained('repeat', { bytes });
    const url = `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;
    const fromUrl = await lab.loadTrained('repeat', { url });
    const fromFile = await lab.loadTrained('repeat', { url: new URL('../../dist/checkpoints/repeat.bin', import.meta.url) });
    const ids = lab.tasks.repeat.encode('abcdefg|');
    const text = fromBytes.generate(ids).text;
    expect(text).toBe('abcdefg');
    expect(fromUrl.generate(ids).text).toBe(text);
    expect(fromFile.generate(ids).text).toBe(text);
    for (const m of [fromBytes, fromUrl, fromFile]) m.dispose();
  });
});

describe('lab.loadTrained refuses what is not a checkpoint of the task', () => {
  let server;
  let base;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/dates.bin') response.end(Buffer.from(shipped('dates')));
      else if (request.url === '/huge.bin') response.writeHead(200, { 'content-length': String(64 * 1024 * 1024) }).end();
      else response.writeHead(404, 'Not Found').end();
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('over HTTP: the file loads, a 404 and a response too large to be a checkpoint are refused', async () => {
    const lab = await loadTrainingLab(true);
    const model = await lab.loadTrained('dates', { url: `${base}/dates.bin` });
    expect(model.generate(lab.tasks.dates.encode('1 Dec 2026')).text).toBe('2026-12-01');
    model.dispose();
    const missing = await rejection(lab.loadTrained('dates', { url: `${base}/missing.bin` }));
    expect(missing.code).toBe('INVALID_ARGUMENT');
    expect(missing.message).toMatch(/^loadTrained\("dates"\): fetching http:\/\/127\.0\.0\.1:\d+\/missing\.bin answered 404/);
    const huge = await rejection(lab.loadTrained('dates', { url: `${base}/huge.bin` }));
    expect(huge.message).toMatch(/holds 67108864 bytes, more than a checkpoint/);
  });

  it('a server that does not answer is given up on (here after 0.3 s; 60 s by default)', async () => {
    const hang = createServer(() => {}); // never responds
    await new Promise((resolve) => hang.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://127.0.0.1:${hang.address().port}/dates.bin`);
      const error = await rejection(fetchCheckpoint('loadTrained("dates")', url, 300));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(`loadTrained("dates"): fetching ${url}: no answer within 0.3 s`);
    } finally {
      hang.closeAllConnections();
      await new Promise((resolve) => hang.close(resolve));
    }
  });

  it('a body larger than it declared is refused too', async () => {
    const response = { ok: true, headers: new Headers(), arrayBuffer: async () => new ArrayBuffer(16 * 1024 * 1024 + 1) };
    const error = await rejection(responseBytes('loadTrained("dates")', 'https://example.org/x.bin', response));
    expect(error.message).toBe('loadTrained("dates"): https://example.org/x.bin holds 16777217 bytes, more than a checkpoint (at most 16777216)');
  });

  it('hostile names, options, bytes and URLs each get an AttentionError naming them', async () => {
    const lab = await loadTrainingLab(true);
    const dates = shipped('dates');
    const flipped = dates.slice();
    flipped[500] ^= 1;
    const other = lab.createTransformer({ vocabSize: lab.tasks.dates.vocabulary.length, maxLength: 12, kind: 'lm', decoderLayers: 1, dModel: 8, heads: 2, dFF: 8 });
    const otherBytes = other.save();
    other.dispose();
    const cases = [
      [['datse'], /^loadTrained: no checkpoint named "datse" \(did you mean dates\?\); the checkpoints are dates, reverse, grammar, repeat$/],
      [[7], /^loadTrained: no checkpoint named 7;/],
      [['toString'], /^loadTrained: no checkpoint named "toString"/],
      [['dates', null], /^loadTrained\("dates"\): options must be an object, got null/],
      [['dates', { byte: dates }], /^loadTrained\("dates"\): unknown option byte \(did you mean bytes\?\)/],
      [['dates', { bytes: dates, url: 'x' }], /^loadTrained\("dates"\): give bytes or url, not both$/],
      [['dates', { bytes: [...dates] }], /^loadTrained\("dates"\): bytes must be a Uint8Array .*got Array$/],
      [['dates', { bytes: new Uint8Array(16 * 1024 * 1024 + 1) }], /^loadTrained\("dates"\): bytes holds 16777217 bytes, more than a checkpoint \(at most 16777216\)$/],
      [['dates', { bytes: dates.subarray(0, 4) }], /^loadTrained\("dates"\): loadTransformer: 4 bytes is too short/],
      [['dates', { bytes: dates.subarray(0, 30000) }], /^loadTrained\("dates"\): loadTransformer: these 30000 bytes .*do not add up/],
      [['dates', { bytes: flipped }], /^loadTrained\("dates"\): loadTransformer: these 64148 bytes .*do not add up \(truncated, corrupt, or from another version\)$/],
      [['dates', { bytes: shipped('grammar') }], /^loadTrained\("dates"\): loadTransformer: the saved model has a vocabulary of 77 but the task's has 67$/],
      [['dates', { bytes: otherBytes }], /^loadTrained\("dates"\): these bytes are a lm model of length 12, not one of the dates task \(seq2seq, length 37\)$/],
      [['dates', { url: 42 }], /^loadTrained\("dates"\): url must be a string or a URL, got number$/],
      [['dates', { url: 'ftp://example.org/dates.bin' }], /^loadTrained\("dates"\): url "ftp:\/\/example\.org\/dates\.bin" has the scheme ftp:/],
      [['dates', { url: 'not a url' }], /^loadTrained\("dates"\): url "not a url" is not a URL$/],
      [['dates', { url: 'data:,hello' }], /^loadTrained\("dates"\): loadTransformer: 5 bytes is too short/],
      [['dates', { url: 'file:///nonexistent/dates.bin' }], /^loadTrained\("dates"\): cannot read \/nonexistent\/dates\.bin: ENOENT/],
      [['dates', { url: new URL('../../dist/checkpoints/', import.meta.url) }], /^loadTrained\("dates"\): .*checkpoints\/ is not a file$/],
      [['dates', { url: 'http://127.0.0.1:9/dates.bin' }], /^loadTrained\("dates"\): fetching http:\/\/127\.0\.0\.1:9\/dates\.bin failed: /],
    ];
    for (const [args, message] of cases) {
      const error = await rejection(lab.loadTrained(...args));
      expect(error.name, String(message)).toBe('AttentionError');
      expect(error.code, String(message)).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    // The library still works after all that.
    const model = await lab.loadTrained('dates', { bytes: dates });
    expect(model.generate(lab.tasks.dates.encode('12/01/2026')).text).toBe('2026-12-01');
    model.dispose();
  });

  it('the inference build explains that checkpoints are the training build’s', async () => {
    const lab = await init();
    expect(() => lab.loadTrained('dates')).toThrow(/^loadTrained: not in this build; .*attention-lab\/training/);
  });
});
