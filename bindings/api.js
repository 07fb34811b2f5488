// The public API of one loaded module: the operation families of ops/, wired
// to one shared workspace. A family is a module ops/<family>.js exporting
// `<family>Ops(context)`, which returns its public functions; its raw calls
// live in ops/<family>.cpp and their argument blocks in arg-blocks.js.
// Adding a family is one file there and one line below.
import { AttentionError } from './errors.js';
import { Frame } from './frame.js';
import { attentionOps } from './ops/attention.js';
import { batchedOps } from './ops/batched.js';
import { kvCacheOps } from './ops/kv-cache.js';
import { multiHeadOps } from './ops/multi-head.js';
import { onlineSoftmaxOps } from './ops/online-softmax.js';
import { poolingOps } from './ops/pooling.js';
import { positionalOps } from './ops/positional.js';
import { relativePositionOps } from './ops/relative-position.js';
import { transformerOps } from './ops/transformer.js';
import { variantOps } from './ops/variants.js';
import { Workspace } from './workspace.js';

/** The most memory a module may grow to (set at link time: -sMAXIMUM_MEMORY). */
export const MEMORY_LIMIT = 1024 * 1024 * 1024;

/** What only the training build ('attention-lab/training') has; the inference build explains. */
const TRAINING_ONLY = ['attentionBackward', 'createTransformer', 'loadTransformer', 'learningRateAt', 'loadTrained', 'mlmBatch', 'loadReader'];

function unavailable(name) {
  return () => {
    throw new AttentionError(
      AttentionError.codes.UNAVAILABLE,
      `${name}: not in this build; load the training build: import { init } from 'attention-lab/training'`,
    );
  };
}

/**
 * @param {object} module  an instantiated Emscripten module
 * @param {{ simd: boolean, fma?: boolean, training?: boolean, families?: Function[] }} options  families:
 *        `(context) => functions` beyond the inference ones (the training build passes its own)
 */
export function createApi(module, { simd, fma = false, training = false, families = [] }) {
  const workspace = new Workspace(module, MEMORY_LIMIT);
  const context = { module, workspace, frame: (fn) => new Frame(workspace, fn) };
  const api = {
    training,
    ...Object.fromEntries(TRAINING_ONLY.map((name) => [name, unavailable(name)])),
    simd,
    fma,
    build: fma ? 'fma' : simd ? 'simd' : 'scalar',
    memoryLimit: MEMORY_LIMIT,
    /** Bytes of WebAssembly memory in use now (it grows on demand and never shrinks). */
    get heapBytes() {
      return module.HEAPU8.length;
    },
    ...attentionOps(context),
    ...multiHeadOps(context),
    ...transformerOps(context),
    ...variantOps(context),
    ...onlineSoftmaxOps(context),
    ...poolingOps(context),
    ...positionalOps(context),
    ...relativePositionOps(context),
    ...batchedOps(context),
    ...kvCacheOps(context),
    ...Object.assign({}, ...families.map((family) => family(context))),
    /** Frees the module's workspace; the instance stays usable and reallocates on the next call. */
    releaseMemory: () => workspace.release(),
  };
  // lab.tasks (the training tasks) explains itself too, without showing up in a spread of lab.
  if (!('tasks' in api)) Object.defineProperty(api, 'tasks', { get: unavailable('tasks'), enumerable: false });
  return api;
}
