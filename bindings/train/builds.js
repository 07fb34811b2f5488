// The training builds (the inference core plus backward passes and the trainable Transformer) and
// the operation families only they have. Shared by the training entries, ../training.js (browsers,
// bundlers) and ../training-node.js.
import { TRAINING_FAMILIES } from './families.js';

export const TRAINING_BUILDS = {
  simd: () => import('../attention-lab-training-simd.js'),
  scalar: () => import('../attention-lab-training-scalar.js'),
};

export const trainingWasmFileName = (simd) => (simd ? 'attention-lab-training-simd.wasm' : 'attention-lab-training-scalar.wasm');

export const TRAINING = { builds: TRAINING_BUILDS, wasmFileName: trainingWasmFileName, training: true, families: TRAINING_FAMILIES };
