// How the pool starts its workers in Node.js: worker_threads running worker-node.js, and the
// .wasm bytes read once here (each worker gets a copy; none reads the file itself).
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { wasmFileName } from '../builds.js';

export const nodeWorkers = {
  cores: () => availableParallelism(),
  wasmBytes: async (build) => new Uint8Array(await readFile(new URL(`../${wasmFileName(build !== 'scalar', build)}`, import.meta.url))),
  spawn() {
    const worker = new Worker(new URL('./worker-node.js', import.meta.url), { execArgv: workerExecArgv(process.execArgv) });
    return {
      // An idle worker does not keep the process alive (a script that never calls close() still ends).
      busy: (working) => (working ? worker.ref() : worker.unref()),
      post: (message, transfer = []) => worker.postMessage(message, transfer),
      onMessage: (listen) => worker.on('message', listen),
      // An uncaught error, then always 'exit': the first one that comes names the cause.
      onFailure: (listen) => {
        worker.on('error', (error) => listen(String(error?.message ?? error)));
        worker.on('exit', (code) => listen(`it exited with code ${code}`));
      },
      terminate: () => void worker.terminate(),
    };
  },
};

/**
 * The process's Node.js flags for a worker (flags such as --experimental-wasm-relaxed-simd carry
 * over), without those that only make sense for a string of code: a worker started with
 * --input-type (from `node --input-type=module -e …`) refuses to run its file.
 */
export function workerExecArgv(execArgv) {
  const kept = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i];
    if (/^(-e|--eval|-p|--print)$/.test(flag)) i++;
    else if (!/^(--input-type|--eval|--print)(=|$)/.test(flag)) kept.push(flag);
  }
  return kept;
}
