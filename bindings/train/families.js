// The operation families of the training build, each `(context) => functions` like the inference
// families of ../api.js. Adding one is a file in this folder (its raw calls in a .cpp beside it,
// built into the training .wasm only) and one entry below.
import { backwardOps } from './backward.js';

export const TRAINING_FAMILIES = [backwardOps];
