// The worker's side of the pool (pool.js): one lab loaded from the bytes the page sent, and the
// few tasks the pool hands out. Shared by worker-node.js (worker_threads) and worker-browser.js
// (a module Worker); each passes its init() and its way to post.
//
// In:  { type: 'init', build, wasmBinary }         load the same build as the page's lab
//      { id, type: 'attention', Q, K, V, options }  scaledDotProductAttention on some query rows
//      { id, type: 'layer', layer, heads, Wq, Wk, Wv, Wo }   pack a layer of some heads (Wo: d_out 1)
//      { id, type: 'forward', layer, X, mask }      that layer's concat for X
//      { id, type: 'mix', layer, concat }           concat · W_O (padded to whole vectors) for some rows
//      { id, type: 'drop', layer }                  dispose the layer
// Out: { type: 'ready' } or { type: 'failed', message } after init; { id, result } or { id, error }.

/** @param {(options: object) => Promise<object>} init  @param {(message: object, transfer?: ArrayBuffer[]) => void} post */
export function serveTasks(init, post) {
  let lab = null;
  const layers = new Map();
  const tasks = {
    attention: ({ Q, K, V, options }) => lab.scaledDotProductAttention(Q, K, V, options),
    layer: ({ layer, heads, Wq, Wk, Wv, Wo, WoPadded }) => {
      const part = heads ? lab.createMultiHeadAttention({ heads, Wq, Wk, Wv, Wo }) : null;
      layers.set(layer, { layer: part, WoPadded });
      return {};
    },
    forward: ({ layer, X, mask }) => ({ concat: layers.get(layer).layer.forward(X, { mask }).concat }),
    mix: ({ layer, concat }) => ({ output: lab.matmul(concat, layers.get(layer).WoPadded) }),
    drop: ({ layer }) => {
      layers.get(layer)?.layer.dispose();
      layers.delete(layer);
      return {};
    },
  };
  return async (message) => {
    if (message.type === 'init') {
      try {
        const { build, wasmBinary } = message;
        lab = await init({ wasmBinary, simd: build !== 'scalar', fma: build === 'fma' });
        post({ type: 'ready', build: lab.build });
      } catch (error) {
        post({ type: 'failed', message: String(error?.message ?? error) });
      }
      return;
    }
    try {
      const result = tasks[message.type](message);
      post({ id: message.id, result }, buffersOf(result));
    } catch (error) {
      post({ id: message.id, error: { name: error?.name ?? 'Error', code: error?.code, message: String(error?.message ?? error) } });
    }
  };
}

/** The result's matrices' buffers: transferred back, not copied (each is a fresh copy already). */
const buffersOf = (result) =>
  Object.values(result).flatMap((m) => (m?.data instanceof Float32Array ? [m.data.buffer] : []));
