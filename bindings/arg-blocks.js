// The argument block of every raw call, defined once. Each raw embind
// function `_name` takes one argument: the heap address of its block, laid out
// as below (fields in order, each at its natural alignment). The JS layer
// writes blocks by field name (frame.js); bindings/arg-blocks-header.js turns
// this table into the C++ structs the raw functions read (the build generates
// arg_blocks.h from it), and tests/js/arg-blocks.test.js checks the compiled
// offsets against this table. A field keeps the same name on both sides, so a
// grep finds both. To add a call: add its block here, then its raw function.
//
// Types: ptr (a heap address; 0 = none), u32, i32, f32, f64.

export const ARG_BLOCKS = {
  // ---- attention.js
  matmul: { A: 'ptr', B: 'ptr', C: 'ptr', n: 'u32', k: 'u32', m: 'u32' },
  softmax: { S: 'ptr', n: 'u32', m: 'u32', maskKind: 'i32', mask: 'ptr', weights: 'ptr', masked: 'ptr' },
  scaledDotProduct: {
    Q: 'ptr', K: 'ptr', V: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', maskKind: 'i32', mask: 'ptr', scale: 'f32',
    weights: 'ptr', output: 'ptr', scores: 'ptr', scaled: 'ptr', masked: 'ptr', scratch: 'ptr',
  },
  weightsScratchFloats: { m: 'u32', d: 'u32' },
  fusedScratchFloats: { m: 'u32', d: 'u32', dv: 'u32' },
  fused: {
    Q: 'ptr', K: 'ptr', V: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', maskKind: 'i32', mask: 'ptr', scale: 'f32',
    output: 'ptr', scratch: 'ptr',
  },
  additive: {
    Q: 'ptr', K: 'ptr', V: 'ptr', Wq: 'ptr', Wk: 'ptr', wv: 'ptr', n: 'u32', dq: 'u32', m: 'u32', dk: 'u32', dv: 'u32',
    h: 'u32', maskKind: 'i32', mask: 'ptr', scratch: 'ptr', weights: 'ptr', output: 'ptr', scores: 'ptr', masked: 'ptr',
  },
  selfAttention: {
    X: 'ptr', Wq: 'ptr', Wk: 'ptr', Wv: 'ptr', n: 'u32', dModel: 'u32', dk: 'u32', dv: 'u32', maskKind: 'i32', mask: 'ptr',
    Q: 'ptr', K: 'ptr', V: 'ptr', weights: 'ptr', output: 'ptr', scores: 'ptr', scaled: 'ptr', masked: 'ptr',
  },

  // ---- multi-head.js
  multiHead: {
    X: 'ptr', Wq: 'ptr', Wk: 'ptr', Wv: 'ptr', Wo: 'ptr', n: 'u32', dModel: 'u32', heads: 'u32', dkAll: 'u32', dvAll: 'u32',
    dOut: 'u32', maskKind: 'i32', mask: 'ptr', Q: 'ptr', K: 'ptr', V: 'ptr', weights: 'ptr', concat: 'ptr', output: 'ptr',
    scores: 'ptr', scaled: 'ptr', masked: 'ptr',
  },
  // A packed layer's shape: d_k and d_v per head.
  layerFloats: { dModel: 'u32', heads: 'u32', dk: 'u32', dv: 'u32', dOut: 'u32' },
  layerForwardFloats: { dModel: 'u32', heads: 'u32', dk: 'u32', dv: 'u32', dOut: 'u32', n: 'u32' },
  packLayer: {
    Wq: 'ptr', Wk: 'ptr', Wv: 'ptr', Wo: 'ptr', dModel: 'u32', dkAll: 'u32', dvAll: 'u32', dOut: 'u32', heads: 'u32',
    storage: 'ptr',
  },
  layerForward: {
    storage: 'ptr', dModel: 'u32', heads: 'u32', dk: 'u32', dv: 'u32', dOut: 'u32', X: 'ptr', n: 'u32', maskKind: 'i32',
    mask: 'ptr', concat: 'ptr', output: 'ptr', scratch: 'ptr',
  },

  // ---- transformer.js
  transformerBlock: {
    X: 'ptr', Wq: 'ptr', Wk: 'ptr', Wv: 'ptr', Wo: 'ptr', W1: 'ptr', b1: 'ptr', W2: 'ptr', b2: 'ptr',
    gamma1: 'ptr', beta1: 'ptr', gamma2: 'ptr', beta2: 'ptr', n: 'u32', dModel: 'u32', heads: 'u32', dkAll: 'u32',
    dvAll: 'u32', dFf: 'u32', epsilon: 'f32', maskKind: 'i32', mask: 'ptr',
    Q: 'ptr', K: 'ptr', V: 'ptr', weights: 'ptr', concat: 'ptr', attention: 'ptr', sum1: 'ptr', norm1: 'ptr',
    hidden: 'ptr', ffn: 'ptr', sum2: 'ptr', output: 'ptr',
  },

  // ---- variants.js
  local: {
    Q: 'ptr', K: 'ptr', V: 'ptr', n: 'u32', d: 'u32', dv: 'u32', window: 'u32', causal: 'u32', scale: 'f32',
    output: 'ptr', weights: 'ptr',
  },
  linearScratchFloats: { d: 'u32', dv: 'u32' },
  linear: {
    Q: 'ptr', K: 'ptr', V: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', causal: 'u32', output: 'ptr', scratch: 'ptr',
    weights: 'ptr',
  },
  linformerScratchFloats: { p: 'u32', d: 'u32', dv: 'u32' },
  linformer: {
    Q: 'ptr', K: 'ptr', V: 'ptr', E: 'ptr', F: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', p: 'u32', scale: 'f32',
    output: 'ptr', scratch: 'ptr', weights: 'ptr',
  },

  // ---- online-softmax.js
  onlineSoftmax: {
    Q: 'ptr', K: 'ptr', V: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', row: 'u32', block: 'u32', maskKind: 'i32',
    mask: 'ptr', scale: 'f32', scores: 'ptr', blockMax: 'ptr', runningMax: 'ptr', rescale: 'ptr', runningSum: 'ptr',
    accumulator: 'ptr', partial: 'ptr', output: 'ptr', weights: 'ptr', totals: 'ptr',
  },

  // ---- pooling.js
  nadarayaWatson: {
    xTrain: 'ptr', yTrain: 'ptr', m: 'u32', xQuery: 'ptr', n: 'u32', kernel: 'i32', bandwidth: 'f32',
    predictions: 'ptr', weights: 'ptr',
  },
  fitParametricPooling: {
    x: 'ptr', y: 'ptr', m: 'u32', w0: 'f64', learningRate: 'f64', epochs: 'u32', losses: 'ptr', w: 'ptr',
  },

  // ---- positional.js
  positionalEncoding: { n: 'u32', d: 'u32', base: 'f64', P: 'ptr' },
  addPositionalEncoding: { X: 'ptr', n: 'u32', d: 'u32', base: 'f64', scale: 'f64', output: 'ptr' },

  // ---- relative-position.js (layout 0: [batch, heads, n, d]; 1: [batch, n, heads·d])
  rotaryEmbedding: {
    X: 'ptr', layout: 'u32', batch: 'u32', heads: 'u32', n: 'u32', d: 'u32', base: 'f64', offset: 'i32', interleaved: 'u32',
    output: 'ptr',
  },
  rotaryAngles: { n: 'u32', d: 'u32', base: 'f64', offset: 'i32', angles: 'ptr' },
  alibiSlopes: { heads: 'u32', slopes: 'ptr' },
  alibiBias: { heads: 'u32', queries: 'u32', keys: 'u32', offset: 'i32', symmetric: 'u32', bias: 'ptr' },

  // ---- batched.js (layout 0: [batch, heads, rows, width]; 1: [batch, rows, heads·width])
  batchedAttention: {
    Q: 'ptr', K: 'ptr', V: 'ptr', layout: 'u32', batch: 'u32', heads: 'u32', kvHeads: 'u32', n: 'u32', m: 'u32',
    d: 'u32', dv: 'u32', pastKey: 'ptr', pastValue: 'ptr', past: 'u32', presentKey: 'ptr', presentValue: 'ptr',
    scale: 'f32', softcap: 'f32', causal: 'u32', causalOffset: 'i32', causalOffsets: 'ptr', window: 'u32',
    kvLengths: 'ptr', keep: 'ptr', keepBatchStride: 'u32', keepHeadStride: 'u32', keepRowStride: 'u32', keepCols: 'u32',
    bias: 'ptr', biasBatchStride: 'u32', biasHeadStride: 'u32', biasRowStride: 'u32', biasCols: 'u32',
    output: 'ptr', weights: 'ptr', scratch: 'ptr', scores: 'ptr', capped: 'ptr', biased: 'ptr',
  },
  batchedScratchFloats: { dv: 'u32' },

  // ---- kv-cache.js (keys, values: the cache's own planes [batch, kvHeads, capacity, dK / dV])
  kvCacheForward: {
    keys: 'ptr', values: 'ptr', batch: 'u32', heads: 'u32', kvHeads: 'u32', dK: 'u32', dV: 'u32', capacity: 'u32',
    length: 'u32', n: 'u32', Q: 'ptr', K: 'ptr', V: 'ptr', scale: 'f32', softcap: 'f32', window: 'u32',
    output: 'ptr', weights: 'ptr', scratch: 'ptr',
  },
  // Multiply-adds of n tokens after `past` (withCache 1) or of recomputing the whole prefix (0).
  kvCacheWork: {
    batch: 'u32', heads: 'u32', dK: 'u32', dV: 'u32', window: 'u32', past: 'u32', n: 'u32', withCache: 'u32',
  },
  kvCacheBytes: {
    layers: 'f64', batch: 'f64', kvHeads: 'f64', dK: 'f64', dV: 'f64', tokens: 'f64', bytesPerValue: 'f64',
  },

  // ---- backward.js (the fused call runs the forward too: output and lse are its by-products)
  fusedBackwardScratchFloats: { n: 'u32', m: 'u32', d: 'u32', dv: 'u32' },
  fusedBackward: {
    Q: 'ptr', K: 'ptr', V: 'ptr', dO: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', maskKind: 'i32', mask: 'ptr',
    scale: 'f32', output: 'ptr', lse: 'ptr', dQ: 'ptr', dK: 'ptr', dV: 'ptr', scratch: 'ptr',
  },
  attentionBackward: {
    Q: 'ptr', K: 'ptr', V: 'ptr', dO: 'ptr', n: 'u32', d: 'u32', m: 'u32', dv: 'u32', maskKind: 'i32', mask: 'ptr',
    scale: 'f32', weights: 'ptr', output: 'ptr', dP: 'ptr', dS: 'ptr', dQ: 'ptr', dK: 'ptr', dV: 'ptr',
  },
  // ---- training.js (model: the handle of an attn::TransformerModel the core allocated; handle and
  // status: int32 result slots, so a refused config or image is reported, not taken for a bug)
  modelCreate: {
    kind: 'u32', vocabSize: 'u32', maxLength: 'u32', dModel: 'u32', heads: 'u32', dFF: 'u32', encoderLayers: 'u32',
    decoderLayers: 'u32', crossScoring: 'u32', scaled: 'u32', norm: 'u32', positions: 'u32', activation: 'u32',
    seedLow: 'u32', seedHigh: 'u32', padId: 'i32', handle: 'ptr', status: 'ptr',
  },
  modelLoad: { bytes: 'ptr', size: 'u32', handle: 'ptr', status: 'ptr' },
  modelDestroy: { model: 'ptr' },
  // what: 0 parameter count, 1 tensors, 2 bytes of their names, 3 steps, (4: was the saved bytes,
  // now modelSavedBytes), 5 address of the parameters, 6 of the gradients
  modelInfo: { model: 'ptr', what: 'u32' },
  // config: 16 float64 (ModelConfig in order); names: '\n'-separated; table: offset, rows, cols per tensor
  modelDescribe: { model: 'ptr', config: 'ptr', names: 'ptr', table: 'ptr' },
  // result: float64 loss, accuracy, exactMatch, counted. status (here and below): the core's, in an
  // int32 slot: it refuses a batch whose activations would pass its workspace limit
  modelEvaluate: {
    model: 'ptr', size: 'u32', source: 'ptr', sourceLength: 'u32', input: 'ptr', target: 'ptr', length: 'u32',
    result: 'ptr', status: 'ptr',
  },
  modelGradients: {
    model: 'ptr', size: 'u32', source: 'ptr', sourceLength: 'u32', input: 'ptr', target: 'ptr', length: 'u32',
    loss: 'ptr', status: 'ptr',
  },
  // result: float64 loss, gradientNorm, step, diverged
  modelTrainStep: {
    model: 'ptr', size: 'u32', source: 'ptr', sourceLength: 'u32', input: 'ptr', target: 'ptr', length: 'u32',
    learningRate: 'f32', beta1: 'f32', beta2: 'f32', epsilon: 'f32', weightDecay: 'f32', clipNorm: 'f64',
    result: 'ptr', status: 'ptr',
  },
  modelGenerate: {
    model: 'ptr', source: 'ptr', sourceLength: 'u32', prefix: 'ptr', prefixLength: 'u32', eos: 'i32', maxNew: 'u32',
    tokens: 'ptr', outLength: 'ptr', encoder: 'ptr', decoder: 'ptr', cross: 'ptr', status: 'ptr',
  },
  // one forward pass of batch 1 (decoder-only or encoder-only): maps layers × heads × length × length
  // logits length × vocabSize and inputs layers × length × dModel (each layer's self-attention
  // input), each optional (0: not wanted)
  modelAttend: { model: 'ptr', ids: 'ptr', length: 'u32', maps: 'ptr', logits: 'ptr', inputs: 'ptr', status: 'ptr' },
  // precision: attn::SavePrecision (0 float32, 1 float16, 2 int8); modelSavedBytes returns the image's bytes
  modelSavedBytes: { model: 'ptr', precision: 'u32' },
  modelSave: { model: 'ptr', precision: 'u32', bytes: 'ptr', capacity: 'u32' },
};

/** Bytes of each field type (wasm32: an address is 4 bytes). */
export const TYPE_BYTES = { ptr: 4, u32: 4, i32: 4, f32: 4, f64: 8 };

/**
 * Where each field of a block sits: { bytes, fields: [{ name, type, offset }] }.
 * The C rule for a struct of these types: each field at the next multiple of
 * its size, the whole rounded up to its widest field.
 */
export function blockLayout(block) {
  let offset = 0;
  let widest = 4;
  const fields = Object.entries(block).map(([name, type]) => {
    const size = TYPE_BYTES[type];
    if (!size) throw new Error(`arg-blocks: field ${name} has unknown type ${type}`);
    offset = Math.ceil(offset / size) * size;
    const field = { name, type, offset };
    offset += size;
    widest = Math.max(widest, size);
    return field;
  });
  return { bytes: Math.ceil(offset / widest) * widest, fields };
}

/** The layout of every block, by raw function name. */
export const LAYOUTS = Object.fromEntries(Object.entries(ARG_BLOCKS).map(([name, block]) => [name, blockLayout(block)]));
