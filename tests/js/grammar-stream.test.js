// web/src/trained/grammar-stream.js: the shipped grammar model's residual stream computed with the
// library's calls (multiHeadAttention, matmul) and a JavaScript layer norm. Each layer's attention,
// recomputed from what the module says that layer reads, equals the model's own (model.generate,
// all inside the core) to within float32 rounding; a layer that does not exist is a RangeError
// naming it; the layer norm gives rows of mean β and variance γ² (γ, β constant).
import { describe, expect, test } from 'vitest';
import { init } from '../../dist/training-node.js';
import { LAYER_STEPS, layerInput, layerNorm, sentenceLayerSteps } from '../../web/src/trained/grammar-stream.js';

const lab = await init();
const model = await lab.loadTrained('grammar');

function maxDifference(sentence, layer) {
  const run = layerInput(lab, model, sentence, layer);
  const result = lab.multiHeadAttention(run.X, { heads: model.config.heads, Wq: run.Wq, Wk: run.Wk, Wv: run.Wv, Wo: run.Wo, mask: 'causal', trace: true });
  const want = model.generate(run.all, { attention: true }).attention.decoder[layer];
  const n = run.ids.length;
  let most = 0;
  result.heads.forEach((head, h) => {
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) most = Math.max(most, Math.abs(head.weights.data[i * n + j] - want[h][i][j]));
  });
  return most;
}

describe('the grammar model’s stream, layer by layer', () => {
  test.each([0, 1])('layer %i: the heads’ weights equal the model’s own attention', (layer) => {
    for (const sentence of ['the dog chased the cats. they ran. who ran? the', 'the cat sat on the mat', 'the'])
      expect(maxDifference(sentence, layer), sentence).toBeLessThan(2e-6);
  });

  test('the last layer’s output, through the final norm and output layer, predicts the model’s own greedy next token', () => {
    const P = model.parameters();
    for (const sentence of ['the dog chased the cats. they ran. who ran? the', 'the boy met the girl. she ran. who ran? the', 'the']) {
      const { steps, all } = sentenceLayerSteps(lab, model, sentence, model.config.decoderLayers - 1);
      expect(Object.keys(steps)).toEqual(LAYER_STEPS);
      const z = layerNorm(steps.output, P['decoder.final_norm.gamma'].data, P['decoder.final_norm.beta'].data);
      const logits = lab.matmul(z, P['output.w']);
      const V = logits.cols;
      const last = Array.from(logits.data.subarray((z.rows - 1) * V, z.rows * V), (v, j) => v + P['output.b'].data[j]);
      expect(last.indexOf(Math.max(...last)), sentence).toBe(model.generate(all).tokens[0]);
    }
  });

  test('a sentence longer than the model reads is cut to its length', () => {
    const run = layerInput(lab, model, 'the dog ran. '.repeat(20), 1);
    expect(run.ids.length).toBe(model.config.maxLength);
    expect(run.X.rows).toBe(model.config.maxLength);
  });

  test('a layer the model does not have is a RangeError naming it', () => {
    expect(() => layerInput(lab, model, 'the dog', 2)).toThrow(/layer must be an integer from 0 to 1, got 2/);
    expect(() => layerInput(lab, model, 'the dog', 0.5)).toThrow(RangeError);
  });

  test('layer norm: each row has mean β and standard deviation |γ| (constant γ, β)', () => {
    const X = { rows: 2, cols: 4, data: new Float32Array([1, 2, 3, 4, -10, 0, 10, 20]) };
    const Y = layerNorm(X, new Float32Array(4).fill(2), new Float32Array(4).fill(0.5));
    for (let i = 0; i < 2; i++) {
      const row = Array.from(Y.data.subarray(i * 4, i * 4 + 4));
      const mean = row.reduce((a, v) => a + v, 0) / 4;
      expect(mean).toBeCloseTo(0.5, 6);
      expect(Math.sqrt(row.reduce((a, v) => a + (v - mean) ** 2, 0) / 4)).toBeCloseTo(2, 3);
    }
  });
});
