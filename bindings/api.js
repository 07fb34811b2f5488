// The public API of one loaded module: the operation families of ops/, wired
// to one shared workspace. A family is a module ops/<family>.js exporting
// `<family>Ops(context)`, which returns its public functions; its raw calls
// live in ops/<family>.cpp and their argument blocks in arg-blocks.js.
// Adding a family is one file there and one line below.
import { Frame } from './frame.js';
import { attentionOps } from './ops/attention.js';
import { batchedOps } from './ops/batched.js';
import { kvCacheOps } from './ops/kv-cache.js';
import { multiHeadOps } from './ops/multi-head.js';
import { onlineSoftmaxOps } from './ops/online-softmax.js';
import { poolingOps } from './ops/pooling.js';
import { positionalOps } from './ops/positional.js';
import { relativePositionOps } from './ops/relative-position.js';
import { trainingOps } from './ops/training.js';
import { transformerOps } from './ops/transformer.js';
import { variantOps } from './ops/variants.js';
import { TASKS } from './tasks/index.js';
import { Workspace } from './workspace.js';

/** The most memory a module may grow to (set at link time: -sMAXIMUM_MEMORY). */
export const MEMORY_LIMIT = 1024 * 1024 * 1024;

export function createApi(module, { simd }) {
  const workspace = new Workspace(module, MEMORY_LIMIT);
  const context = { module, workspace, frame: (fn) => new Frame(workspace, fn) };
  return {
    simd,
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
    ...trainingOps(context),
    /** The training tasks (pure JS, shared by every instance): dates, reverse, grammar, repeat. */
    tasks: TASKS,
    /** Frees the module's workspace; the instance stays usable and reallocates on the next call. */
    releaseMemory: () => workspace.release(),
  };
}
