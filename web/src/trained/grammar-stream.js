// The shipped grammar model's residual stream on a sentence, layer by layer, without DOM: what a
// panel needs to show one layer's attention with its trained weights. The model (lab.loadTrained
// ('grammar')) is a pre-norm decoder: x ← x + MHA(LN₁(x)) then x ← x + FFN(LN₂(x)), with
// x₀ = √d_model · E[token] + P. The products are the library's (lab.multiHeadAttention under a
// causal mask, lab.matmul); the layer norm, the biases and ReLU are applied here in JavaScript,
// because the training entry does not expose the core's layer norm (src/train/layer_norm.cpp).

/** The core's layer-norm ε (src/train/model_forward.cpp). */
const EPSILON = 1e-5;

/** LN(x) per row with γ and β, in float64, rounded to float32 like the core's output. */
export function layerNorm(X, gamma, beta) {
  const { rows, cols } = X;
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = X.data.subarray(i * cols, (i + 1) * cols);
    const mean = row.reduce((a, v) => a + v, 0) / cols;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / cols;
    const r = 1 / Math.sqrt(variance + EPSILON);
    for (let j = 0; j < cols; j++) data[i * cols + j] = (row[j] - mean) * r * gamma[j] + beta[j];
  }
  return { rows, cols, data };
}

/** A + B entry by entry (same shape), in float32. */
function add(A, B) {
  return { rows: A.rows, cols: A.cols, data: A.data.map((v, k) => v + B.data[k]) };
}

/** M with `bias` added to each row, then ReLU when `relu`. */
function biased(M, bias, relu) {
  const data = new Float32Array(M.data.length);
  for (let k = 0; k < data.length; k++) {
    const v = Math.fround(M.data[k] + bias[k % M.cols]);
    data[k] = relu ? Math.max(0, v) : v;
  }
  return { rows: M.rows, cols: M.cols, data };
}

/** The token ids read for `sentence`: <bos> and its tokens up to the model's length; all: every token. */
export function sentenceIds(lab, model, sentence) {
  const task = lab.tasks.grammar;
  const all = Array.from(task.encode(sentence));
  return { all, ids: [task.bos, ...all.slice(0, model.config.maxLength - 1)] };
}

/** x₀ = √d_model · E[token] + P for `ids` (rows: tokens). */
export function embedded(lab, model, ids) {
  const d = model.config.dModel;
  const E = model.parameters()['decoder.embedding'].data;
  const pe = lab.positionalEncoding(ids.length, d);
  const scale = Math.fround(Math.sqrt(d));
  const X = { rows: ids.length, cols: d, data: new Float32Array(ids.length * d) };
  ids.forEach((id, t) => {
    for (let j = 0; j < d; j++) X.data[t * d + j] = Math.fround(scale * E[id * d + j]) + pe.data[t * d + j];
  });
  return X;
}

/** Layer `layer`'s trained tensors: attention W_Q…W_O, both norms' γ, β and the FFN's W₁, b₁, W₂, b₂. */
export function layerWeights(model, layer) {
  const P = model.parameters();
  const p = (name) => P[`decoder.${layer}.${name}`];
  return {
    Wq: p('attention.w_q'), Wk: p('attention.w_k'), Wv: p('attention.w_v'), Wo: p('attention.w_o'),
    norm1: [p('attention_norm.gamma').data, p('attention_norm.beta').data],
    norm2: [p('ffn_norm.gamma').data, p('ffn_norm.beta').data],
    W1: p('ffn.w1'), b1: p('ffn.b1').data, W2: p('ffn.w2'), b2: p('ffn.b2').data,
  };
}

/** The order of layerSteps' matrices: the pre-norm layer as the model runs it. */
export const LAYER_STEPS = ['input', 'norm1', 'attention', 'residual1', 'norm2', 'hidden', 'ffn', 'output'];

/**
 * One pre-norm layer on stream x, every intermediate: input x, norm1 = LN₁(x), attention =
 * MHA(norm1) (causal), residual1 = x + attention, norm2 = LN₂(residual1), hidden = ReLU(norm2 W₁ + b₁),
 * ffn = hidden W₂ + b₂, output = residual1 + ffn.
 */
export function layerSteps(lab, model, x, layer) {
  if (model.config.activation !== 'relu') throw new Error(`grammar stream: the model's activation is ${model.config.activation}; only relu is computed here`);
  const w = layerWeights(model, layer);
  const norm1 = layerNorm(x, ...w.norm1);
  const attention = lab.multiHeadAttention(norm1, { heads: model.config.heads, Wq: w.Wq, Wk: w.Wk, Wv: w.Wv, Wo: w.Wo, mask: 'causal' }).output;
  const residual1 = add(x, attention);
  const norm2 = layerNorm(residual1, ...w.norm2);
  const hidden = biased(lab.matmul(norm2, w.W1), w.b1, true);
  const ffn = biased(lab.matmul(hidden, w.W2), w.b2, false);
  return { input: x, norm1, attention, residual1, norm2, hidden, ffn, output: add(residual1, ffn) };
}

/** The stream after one pre-norm layer: x + MHA(LN₁(x)), then + FFN(LN₂(·)). */
export const throughLayer = (lab, model, x, layer) => layerSteps(lab, model, x, layer).output;

/** Layer `layer`'s steps on `sentence` (the stream it reads computed through the layers before): { steps, ids, all }. */
export function sentenceLayerSteps(lab, model, sentence, layer) {
  checkLayer(model, layer);
  const { ids, all } = sentenceIds(lab, model, sentence);
  let x = embedded(lab, model, ids);
  for (let l = 0; l < layer; l++) x = throughLayer(lab, model, x, l);
  return { steps: layerSteps(lab, model, x, layer), ids, all };
}

function checkLayer(model, layer) {
  const layers = model.config.decoderLayers;
  if (!Number.isInteger(layer) || layer < 0 || layer >= layers) throw new RangeError(`grammar stream: layer must be an integer from 0 to ${layers - 1}, got ${layer}`);
}

/**
 * What layer `layer`'s attention reads on `sentence`: { X (LN₁ of the stream), Wq, Wk, Wv, Wo,
 * ids, all }. Layer 0 reads LN₁(x₀); layer ℓ the stream after layers 0…ℓ−1.
 */
export function layerInput(lab, model, sentence, layer) {
  checkLayer(model, layer);
  const { ids, all } = sentenceIds(lab, model, sentence);
  let x = embedded(lab, model, ids);
  for (let l = 0; l < layer; l++) x = throughLayer(lab, model, x, l);
  const w = layerWeights(model, layer);
  return { X: layerNorm(x, ...w.norm1), Wq: w.Wq, Wk: w.Wk, Wv: w.Wv, Wo: w.Wo, ids, all };
}
