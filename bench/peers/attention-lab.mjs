// attention-lab itself, loaded from ../dist/node.js (build it first:
// `flock /tmp/build.lock node scripts/build.mjs --if-missing`).
// Uses the fast paths when the library has them and says so when it does not.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// The inference build, or with { training: true } the training build ('attention-lab/training').
const DIST = new URL('../../dist/node.js', import.meta.url);
const TRAINING_DIST = new URL('../../dist/training-node.js', import.meta.url);

// WebAssembly memories created while `fn` runs (the library keeps its heap
// private; the benchmark reads its size to report memory use).
export async function captureMemories(fn) {
  const memories = [];
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = async function (...args) {
    const result = await original.apply(this, args);
    const instance = result.instance ?? result;
    for (const value of Object.values(instance.exports ?? {})) if (value instanceof WebAssembly.Memory) memories.push(value);
    return result;
  };
  try {
    return { value: await fn(), memories };
  } finally {
    WebAssembly.instantiate = original;
  }
}

// In a shared checkout dist/ is rebuilt under `flock /tmp/build.lock`: wait
// for a build in progress to finish before reading dist/ (no-op elsewhere).
function waitForBuild() {
  if (existsSync('/tmp/build.lock')) spawnSync('flock', ['-s', '/tmp/build.lock', 'true'], { stdio: 'ignore', timeout: 600_000 });
}

// Loads one build. Returns the implementation object the runner uses.
export async function createAttentionLab({ simd, training = false }) {
  waitForBuild();
  const { init } = await import(training ? TRAINING_DIST : DIST);
  const { value: lab, memories } = await captureMemories(() => init({ simd }));
  if (lab.simd !== simd) throw new Error(`init({ simd: ${simd} }) loaded lab.simd = ${lab.simd}`);
  // lab.heapBytes where the library has it; else the memories seen at instantiation.
  const heapBytes = () => (typeof lab.heapBytes === 'number' ? lab.heapBytes : memories.reduce((s, m) => s + m.buffer.byteLength, 0));
  const has = (name) => typeof lab[name] === 'function';

  // Does scaledDotProductAttention accept { weights: false } and return no weights?
  let fused = false;
  try {
    const I = { rows: 2, cols: 2, data: new Float32Array([1, 0, 0, 1]) };
    fused = !lab.scaledDotProductAttention(I, I, I, { weights: false }).weights;
  } catch {
    fused = false;
  }
  const notes = [];
  if (!fused) notes.push('scaledDotProductAttention has no { weights: false } fast path: timed with the weights materialised');
  if (!has('createMultiHeadAttention')) notes.push('no createMultiHeadAttention: only the one-shot multiHeadAttention is timed');
  for (const v of ['localAttention', 'linearAttention', 'linformerAttention']) if (!has(v)) notes.push(`no ${v}: its rows are skipped`);

  const sdpaOptions = (causal) => ({ ...(causal ? { mask: 'causal' } : {}), ...(fused ? { weights: false } : {}) });

  return {
    name: simd ? 'attention-lab SIMD' : 'attention-lab scalar',
    lab,
    notes,
    fused,
    heapBytes,
    sdpa({ Q, K, V, causal }) {
      const options = sdpaOptions(causal);
      return { run: () => lab.scaledDotProductAttention(Q, K, V, options).output.data, label: fused ? 'fused' : 'weights' };
    },
    // The default call: the n×m weights computed and returned (the step-by-step path).
    sdpaWeights({ Q, K, V, causal }) {
      const options = causal ? { mask: 'causal' } : {};
      return { run: () => lab.scaledDotProductAttention(Q, K, V, options).output.data };
    },
    // trace: true, every intermediate recorded and copied out.
    sdpaTraced({ Q, K, V, causal }) {
      const options = { trace: true, ...(causal ? { mask: 'causal' } : {}) };
      return { run: () => lab.scaledDotProductAttention(Q, K, V, options).output.data };
    },
    mhaOneShot({ X, weights, causal }) {
      const options = { heads: weights.heads, Wq: weights.Wq, Wk: weights.Wk, Wv: weights.Wv, Wo: weights.Wo, ...(causal ? { mask: 'causal' } : {}) };
      return { run: () => lab.multiHeadAttention(X, options).output.data };
    },
    mhaLayer({ X, weights, causal }) {
      if (!has('createMultiHeadAttention')) return { skip: 'createMultiHeadAttention not in the library yet' };
      const layer = lab.createMultiHeadAttention({ heads: weights.heads, Wq: weights.Wq, Wk: weights.Wk, Wv: weights.Wv, Wo: weights.Wo });
      const options = causal ? { mask: 'causal' } : {};
      return { run: () => layer.forward(X, options).output.data, dispose: () => layer.dispose?.() };
    },
    local({ Q, K, V, window, causal }) {
      if (!has('localAttention')) return { skip: 'localAttention not in the library yet' };
      return { run: () => lab.localAttention(Q, K, V, { window, causal }).output.data };
    },
    linear({ Q, K, V, causal }) {
      if (!has('linearAttention')) return { skip: 'linearAttention not in the library yet' };
      return { run: () => lab.linearAttention(Q, K, V, { causal }).output.data };
    },
    linformer({ Q, K, V, E, F }) {
      if (!has('linformerAttention')) return { skip: 'linformerAttention not in the library yet' };
      return { run: () => lab.linformerAttention(Q, K, V, { E, F }).output.data };
    },
  };
}
