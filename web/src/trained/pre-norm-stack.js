// A trained pre-norm stack's residual stream, layer by layer, without DOM: what a panel needs to
// show one layer's steps with a model's own weights. A stack is { config, parameters, prefix }: a
// TransformerModel's config, its named parameters (model.parameters(), reader.parameters(model))
// and the name of its stack ('decoder' for a decoder-only model, 'encoder' for an encoder-only
// one). Each layer is x ← x + MHA(LN₁(x)), then x ← x + FFN(LN₂(x)), with x₀ = √d_model · E[token] + P
// (P learned, `<prefix>.positions`, or sinusoidal). The products are the library's
// (lab.multiHeadAttention, causal in a decoder; lab.matmul); the layer norm, the biases and ReLU are
// applied here in JavaScript, because the training entry does not expose the core's layer norm
// (src/train/layer_norm.cpp).

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

/** The number of layers of the stack. */
export const layerCount = ({ config, prefix }) => (prefix === 'encoder' ? config.encoderLayers : config.decoderLayers);

/** x₀ = √d_model · E[token] + P for `ids` (rows: tokens); P is the stack's learned positions or the sinusoid. */
export function embedded(lab, { config, parameters, prefix }, ids) {
  const d = config.dModel;
  const E = parameters[`${prefix}.embedding`].data;
  const P = config.positions === 'learned' ? parameters[`${prefix}.positions`].data : lab.positionalEncoding(ids.length, d).data;
  const scale = Math.fround(Math.sqrt(d));
  const X = { rows: ids.length, cols: d, data: new Float32Array(ids.length * d) };
  ids.forEach((id, t) => {
    for (let j = 0; j < d; j++) X.data[t * d + j] = Math.fround(scale * E[id * d + j]) + P[t * d + j];
  });
  return X;
}

/** Layer `layer`'s trained tensors: attention W_Q…W_O, both norms' γ, β and the FFN's W₁, b₁, W₂, b₂. */
export function layerWeights({ parameters, prefix }, layer) {
  const p = (name) => parameters[`${prefix}.${layer}.${name}`];
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
 * MHA(norm1) (causal in a decoder), residual1 = x + attention, norm2 = LN₂(residual1), hidden =
 * ReLU(norm2 W₁ + b₁), ffn = hidden W₂ + b₂, output = residual1 + ffn.
 */
export function layerSteps(lab, stack, x, layer) {
  const { config, prefix } = stack;
  if (config.norm !== 'pre') throw new Error(`pre-norm stack: the model's norm is ${config.norm}; only a pre-norm stack is computed here`);
  if (config.activation !== 'relu') throw new Error(`pre-norm stack: the model's activation is ${config.activation}; only relu is computed here`);
  const w = layerWeights(stack, layer);
  const norm1 = layerNorm(x, ...w.norm1);
  const mask = prefix === 'decoder' ? { mask: 'causal' } : {};
  const attention = lab.multiHeadAttention(norm1, { heads: config.heads, Wq: w.Wq, Wk: w.Wk, Wv: w.Wv, Wo: w.Wo, ...mask }).output;
  const residual1 = add(x, attention);
  const norm2 = layerNorm(residual1, ...w.norm2);
  const hidden = biased(lab.matmul(norm2, w.W1), w.b1, true);
  const ffn = biased(lab.matmul(hidden, w.W2), w.b2, false);
  return { input: x, norm1, attention, residual1, norm2, hidden, ffn, output: add(residual1, ffn) };
}

/** Throws unless `layer` is one of the stack's layers. */
export function checkLayer(stack, layer) {
  const layers = layerCount(stack);
  if (!Number.isInteger(layer) || layer < 0 || layer >= layers) throw new RangeError(`pre-norm stack: layer must be an integer from 0 to ${layers - 1}, got ${layer}`);
}

/** The stream layer `layer` reads for `ids`: x₀ through layers 0…layer−1. */
export function streamBefore(lab, stack, ids, layer) {
  checkLayer(stack, layer);
  let x = embedded(lab, stack, ids);
  for (let l = 0; l < layer; l++) x = layerSteps(lab, stack, x, l).output;
  return x;
}
