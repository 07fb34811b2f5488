// web/src/trained/pre-norm-stack.js on the reader trained on real text (web/src/trained/reader-stream.js):
// its encoder and decoder computed layer by layer from reader.parameters with the library's calls and
// a JavaScript layer norm. Every layer's output, through the next layer's LN₁ and W_Q, is that layer's
// Q in reader.attend's trace (the core's own layer inputs); the decoder's last layer, through the
// final norm and the output layer, gives reader.predict's most probable next piece; the pieces are
// reader.attend's (the decoder's <bos>, a long text cut with the same note). Nothing trained is
// written here: the shipped file may be retrained. (The grammar model's stream, the same module
// through grammar-stream.js: tests/js/grammar-stream.test.js.)
import { describe, expect, test } from 'vitest';
import { init } from '../../dist/training-node.js';
import { layerCount, layerNorm, layerWeights } from '../../web/src/trained/pre-norm-stack.js';
import { LAYER_STEPS, readerIds, readerLayerSteps, readerStack } from '../../web/src/trained/reader-stream.js';

const lab = await init();
const reader = await lab.loadReader({ language: 'en' });
const TEXTS = ["The animal didn't cross the street because it was too tired.", 'Call me Ishmael.', 'a'];

/** The largest difference, relative above 1, between LN₁(output of `layer`)·W_Q and the next layer's Q in the trace. */
function nextLayerDifference(model, text, layer) {
  const stack = readerStack(reader, model);
  const { heads, dModel } = stack.config;
  const dK = dModel / heads;
  const { steps } = readerLayerSteps(lab, reader, model, text, layer);
  const next = layerWeights(stack, layer + 1);
  const Q = lab.matmul(layerNorm(steps.output, ...next.norm1), next.Wq);
  const run = reader.attend(text, { model, trace: true });
  let most = 0;
  for (let h = 0; h < heads; h++) {
    const want = run.steps[layer + 1][h].find((s) => s.id === 'Q').matrix;
    for (let i = 0; i < want.rows; i++)
      for (let j = 0; j < dK; j++) {
        const w = want.data[i * dK + j];
        most = Math.max(most, Math.abs(Q.data[i * dModel + h * dK + j] - w) / Math.max(1, Math.abs(w)));
      }
  }
  return most;
}

describe('the reader’s stacks, layer by layer (pre-norm-stack.js)', () => {
  test.each(['encoder', 'decoder'])('%s: each layer’s output is what the core’s next layer reads', (model) => {
    const layers = layerCount(readerStack(reader, model));
    expect(layers).toBe(model === 'encoder' ? reader.models.encoder.encoderLayers : reader.models.decoder.decoderLayers);
    for (const text of TEXTS) for (let layer = 0; layer + 1 < layers; layer++) expect(nextLayerDifference(model, text, layer), `${text} layer ${layer}`).toBeLessThan(1e-5);
  });

  test('the decoder’s last layer, through the final norm and the output layer, gives reader.predict’s next piece', () => {
    const { parameters: P, config } = readerStack(reader, 'decoder');
    for (const text of TEXTS) {
      const { steps } = readerLayerSteps(lab, reader, 'decoder', text, config.decoderLayers - 1);
      expect(Object.keys(steps)).toEqual(LAYER_STEPS);
      const z = layerNorm(steps.output, P['decoder.final_norm.gamma'].data, P['decoder.final_norm.beta'].data);
      const logits = lab.matmul(z, P['output.w']);
      const V = logits.cols;
      const last = Array.from(logits.data.subarray((z.rows - 1) * V, z.rows * V), (v, j) => v + P['output.b'].data[j]);
      expect(last.indexOf(Math.max(...last)), text).toBe(reader.predict(text, { topK: 1 })[0].id);
    }
  });

  test('the pieces are reader.attend’s: <bos> first in the decoder, a long text cut with the same note', () => {
    const long = `${TEXTS[0]} `.repeat(20);
    for (const model of ['encoder', 'decoder'])
      for (const text of [TEXTS[0], long]) {
        const want = reader.attend(text, { model });
        const got = readerIds(reader, model, text);
        expect(got.tokens).toEqual(want.tokens);
        expect(got.ids.map((id) => reader.tokenizer.pieces[id])).toEqual(want.tokens);
        expect(got.truncated).toEqual(want.truncated);
      }
  });

  test('a layer the stack does not have is a RangeError naming the layers there are', () => {
    const layers = reader.models.encoder.encoderLayers;
    expect(() => readerLayerSteps(lab, reader, 'encoder', TEXTS[0], layers)).toThrow(new RegExp(`layer must be an integer from 0 to ${layers - 1}, got ${layers}`));
  });
});
