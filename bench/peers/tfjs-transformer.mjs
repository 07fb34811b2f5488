// The dates model written with tfjs-core ops (the same shape as attn::TransformerModel): an
// encoder–decoder Transformer, post-norm or pre-norm (with a final norm per stack), sinusoidal positions added to √d-scaled embeddings,
// multi-head attention without projection biases, ReLU FFN, masked softmax cross-entropy, Adam
// with clipping by global norm. The embedding lookup is a one-hot product (the wasm backend has no
// UnsortedSegmentSum, which tf.gather's gradient needs). One training step = forward, tf.variableGrads, clip, update.
// Used by bench/training.mjs to time steps per second against model.trainStep.
export function tfjsTransformer(tf, { vocabSize, maxLength, dModel: d, heads, dFF, encoderLayers, decoderLayers, norm: placement = 'post', seed = 1 }) {
  const vars = [];
  let k = 0;
  const xavier = (rows, cols) => {
    const v = tf.variable(tf.randomUniform([rows, cols], -Math.sqrt(6 / (rows + cols)), Math.sqrt(6 / (rows + cols)), 'float32', seed + k++));
    vars.push(v);
    return v;
  };
  const constant = (shape, value) => {
    const v = tf.variable(tf.fill(shape, value));
    vars.push(v);
    return v;
  };
  const attention = () => ({ wq: xavier(d, d), wk: xavier(d, d), wv: xavier(d, d), wo: xavier(d, d) });
  const norm = () => ({ gamma: constant([d], 1), beta: constant([d], 0) });
  const ffn = () => ({ w1: xavier(d, dFF), b1: constant([dFF], 0), w2: xavier(dFF, d), b2: constant([d], 0) });
  const params = {
    encEmbed: xavier(vocabSize, d), decEmbed: xavier(vocabSize, d),
    encoder: Array.from({ length: encoderLayers }, () => ({ att: attention(), n1: norm(), ffn: ffn(), n2: norm() })),
    decoder: Array.from({ length: decoderLayers }, () => ({ att: attention(), n1: norm(), cross: attention(), n2: norm(), ffn: ffn(), n3: norm() })),
    outW: xavier(d, vocabSize), outB: constant([vocabSize], 0),
  };
  const pre = placement === 'pre';
  if (pre) Object.assign(params, { encFinal: norm(), decFinal: norm() });
  const positions = tf.tensor2d(sinusoid(maxLength, d), [maxLength, d]);
  const causal = tf.tensor2d(Float32Array.from({ length: maxLength * maxLength }, (_, i) => (i % maxLength > Math.floor(i / maxLength) ? -1e9 : 0)), [maxLength, maxLength]);
  const dk = d / heads;
  const split = (x, B, n) => tf.transpose(tf.reshape(x, [B, n, heads, dk]), [0, 2, 1, 3]);
  function mha(p, xq, xkv, B, n, m, bias) {
    const q = split(tf.matMul(xq, p.wq), B, n), kk = split(tf.matMul(xkv, p.wk), B, m), v = split(tf.matMul(xkv, p.wv), B, m);
    const scores = tf.add(tf.mul(tf.matMul(q, tf.transpose(kk, [0, 1, 3, 2])), 1 / Math.sqrt(dk)), bias);
    const out = tf.matMul(tf.softmax(scores), v);
    return tf.matMul(tf.reshape(tf.transpose(out, [0, 2, 1, 3]), [B * n, d]), p.wo);
  }
  function layerNorm(p, x) {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), p.gamma), p.beta);
  }
  const feedForward = (p, x) => tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(x, p.w1), p.b1)), p.w2), p.b2);
  const embed = (table, ids, B, n) => tf.reshape(tf.add(tf.reshape(tf.mul(tf.matMul(tf.oneHot(ids, vocabSize, 1, 0, 'float32'), table), Math.sqrt(d)), [B, n, d]), tf.slice(positions, [0, 0], [n, d])), [B * n, d]);
  function loss({ size: B, length: T, sourceLength: S, source, input, target }) {
    const src = tf.tensor1d(source, 'int32'), inp = tf.tensor1d(input, 'int32'), tgt = tf.tensor1d(target, 'int32');
    const keyBias = tf.reshape(tf.mul(tf.cast(tf.equal(tf.reshape(src, [B, S]), 0), 'float32'), -1e9), [B, 1, 1, S]);
    // post-norm: x = LN(x + f(x)); pre-norm: x = x + f(LN(x)), then a final LN.
    const sublayer = (n, x, f) => (pre ? tf.add(x, f(layerNorm(n, x))) : layerNorm(n, tf.add(x, f(x))));
    let x = embed(params.encEmbed, src, B, S);
    for (const l of params.encoder) {
      x = sublayer(l.n1, x, (h) => mha(l.att, h, h, B, S, S, keyBias));
      x = sublayer(l.n2, x, (h) => feedForward(l.ffn, h));
    }
    if (pre) x = layerNorm(params.encFinal, x);
    let y = embed(params.decEmbed, inp, B, T);
    const selfBias = tf.slice(causal, [0, 0], [T, T]);
    for (const l of params.decoder) {
      y = sublayer(l.n1, y, (h) => mha(l.att, h, h, B, T, T, selfBias));
      y = sublayer(l.n2, y, (h) => mha(l.cross, h, x, B, T, S, keyBias));
      y = sublayer(l.n3, y, (h) => feedForward(l.ffn, h));
    }
    if (pre) y = layerNorm(params.decFinal, y);
    const logits = tf.add(tf.matMul(y, params.outW), params.outB);
    const counted = tf.cast(tf.notEqual(tgt, 0), 'float32');
    const nll = tf.neg(tf.sum(tf.mul(tf.oneHot(tgt, vocabSize), tf.logSoftmax(logits)), -1));
    return tf.div(tf.sum(tf.mul(nll, counted)), tf.maximum(tf.sum(counted), 1));
  }
  const optimizer = tf.train.adam(1e-3, 0.9, 0.98, 1e-9);
  return {
    parameterCount: vars.reduce((n, v) => n + v.size, 0),
    /** One step: loss, gradients, clip to global norm 1, Adam. Returns the loss. */
    trainStep(batch) {
      const value = tf.tidy(() => {
        const { value: l, grads } = tf.variableGrads(() => loss(batch), vars);
        const names = Object.keys(grads);
        const norm = tf.sqrt(tf.addN(names.map((n) => tf.sum(tf.square(grads[n])))));
        const factor = tf.minimum(tf.div(1, tf.add(norm, 1e-6)), 1);
        optimizer.applyGradients(Object.fromEntries(names.map((n) => [n, tf.mul(grads[n], factor)])));
        return l;
      });
      const out = value.dataSync()[0];
      value.dispose();
      return out;
    },
    dispose() {
      for (const v of vars) v.dispose();
      positions.dispose();
      causal.dispose();
      optimizer.dispose();
    },
  };
}

function sinusoid(n, d) {
  const p = new Float32Array(n * d);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < d; j += 2) {
      const angle = i / 10000 ** (j / d);
      p[i * d + j] = Math.sin(angle);
      if (j + 1 < d) p[i * d + j + 1] = Math.cos(angle);
    }
  return p;
}
