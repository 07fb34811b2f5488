// onnxruntime-web, wasm backend, one thread (or numThreads: a process-wide setting of ORT, so one
// process measures one thread count), running the graphs of onnx-graph.mjs.
// Timed from Float32Array inputs to a Float32Array output: ort.Tensor wrapping,
// session.run and reading the output. The causal mask (n×n, 0 / −1e9, an input
// of the graph) is built once per shape, outside the timing.
import { readFileSync } from 'node:fs';

import { multiHeadModel, singleHeadModel } from './onnx-graph.mjs';

export async function createOnnxRuntime({ numThreads = 1 } = {}) {
  const ort = await import('onnxruntime-web');
  const version = ort.env.versions?.web ?? JSON.parse(readFileSync(new URL('../node_modules/onnxruntime-web/package.json', import.meta.url))).version;
  ort.env.wasm.numThreads = numThreads;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const sessions = new Map();
  const session = async (key, bytes) => {
    if (!sessions.has(key)) sessions.set(key, await ort.InferenceSession.create(bytes, options));
    return sessions.get(key);
  };
  const causalMask = (n) => {
    const bits = new Float32Array(n * n);
    for (let i = 0; i < n; i++) bits.fill(-1e9, i * n + i + 1, (i + 1) * n);
    return new ort.Tensor('float32', bits, [n, n]);
  };
  return {
    name: `onnxruntime-web ${version}`,
    notes: [`onnxruntime-web ${version}: wasm backend, numThreads ${ort.env.wasm.numThreads}`],
    // weights: true also returns the softmax weights (read out like the output), the work of our default call.
    async sdpa({ Q, K, V, causal, weights = false }) {
      const s = await session(`sdpa:${Q.cols}:${V.cols}:${causal}:${weights}`, singleHeadModel({ d: Q.cols, dv: V.cols, causal, weights }));
      const mask = causal ? causalMask(Q.rows) : null;
      return {
        async run() {
          const feeds = {
            Q: new ort.Tensor('float32', Q.data, [Q.rows, Q.cols]),
            K: new ort.Tensor('float32', K.data, [K.rows, K.cols]),
            V: new ort.Tensor('float32', V.data, [V.rows, V.cols]),
          };
          if (mask) feeds.mask = mask;
          const results = await s.run(feeds);
          const data = results.output.data;
          if (weights && results.weights.data.length !== Q.rows * K.rows) throw new Error('onnxruntime-web: no n×m weights');
          for (const t of Object.values(results)) t.dispose?.();
          return data;
        },
      };
    },
    async mhaOneShot({ X, weights, causal }) {
      const s = await ort.InferenceSession.create(multiHeadModel({ ...weights, causal }), options);
      const mask = causal ? causalMask(X.rows) : null;
      return {
        async run() {
          const feeds = { X: new ort.Tensor('float32', X.data, [X.rows, X.cols]) };
          if (mask) feeds.mask = mask;
          const { output } = await s.run(feeds);
          return output.data;
        },
        dispose: () => s.release(),
      };
    },
  };
}
