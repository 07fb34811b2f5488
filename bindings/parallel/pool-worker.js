// One worker of the pool, seen from the page's thread: started with the build's bytes, handed
// tasks by id, and watched, so that a worker that stops rejects what it was doing (naming the
// call) instead of leaving it waiting for ever.
import { AttentionError, AttentionRangeError } from '../errors.js';

/** How long a worker may take to load its build before the pool gives up on it. */
export const START_TIMEOUT_MS = 20_000;

export class PoolWorker {
  #handle;
  #pending = new Map();
  #nextId = 0;
  #stopped = null;
  #onStop;

  constructor(handle, onStop) {
    this.#handle = handle;
    this.#onStop = onStop;
  }

  /**
   * A started worker, or a rejection saying why it could not start (no Worker, a blocked script,
   * a build that failed to load, no answer in time).
   * @param {object} adapter  node-workers.js or browser-workers.js
   * @param {(worker: PoolWorker, reason: string) => void} onStop  called once if it stops later
   */
  static start(adapter, build, bytes, onStop) {
    return new Promise((resolve, reject) => {
      const handle = adapter.spawn();
      const worker = new PoolWorker(handle, onStop);
      let started = false;
      const timer = setTimeout(() => worker.#fail(`it did not load the ${build} build within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      const settle = (error) => {
        clearTimeout(timer);
        if (error) reject(new Error(error));
        else resolve(worker);
      };
      worker.#onStop = (self, reason) => (started ? onStop(self, reason) : settle(reason));
      handle.onMessage((message) => {
        if (message.type === 'ready') {
          started = true;
          handle.busy(false);
          settle(null);
        } else if (message.type === 'failed') worker.#fail(`it could not load the ${build} build: ${message.message}`);
        else worker.#answer(message);
      });
      handle.onFailure((reason) => worker.#fail(reason));
      handle.busy(true);
      handle.post({ type: 'init', build, wasmBinary: bytes.slice() });
    });
  }

  /** Runs one task; `fn` names the public call in the error if the worker stops first. */
  run(fn, message, transfer = []) {
    if (this.#stopped) return Promise.reject(stoppedError(fn, this.#stopped));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#handle.busy(true);
      this.#pending.set(id, { fn, resolve, reject });
      this.#handle.post({ ...message, id }, transfer);
    });
  }

  /** Ends the worker; its unfinished tasks reject with `reason`. */
  terminate(reason = 'the pool was closed') {
    this.#fail(reason, false);
    this.#handle.terminate();
  }

  #answer({ id, result, error }) {
    const task = this.#pending.get(id);
    if (!task) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#handle.busy(false);
    if (error) task.reject(rebuildError(error));
    else task.resolve(result);
  }

  #fail(reason, report = true) {
    if (this.#stopped) return;
    this.#stopped = reason;
    for (const { fn, reject } of this.#pending.values()) reject(stoppedError(fn, reason));
    this.#pending.clear();
    if (report) {
      this.#handle.terminate();
      this.#onStop(this, reason);
    }
  }
}

const stoppedError = (fn, reason) => new Error(`${fn}: a worker of the pool stopped before it answered (${reason})`);

/** The worker's error as the same class the one-thread call throws. */
function rebuildError({ name, code, message }) {
  if (name === 'AttentionRangeError') return new AttentionRangeError(message);
  if (name === 'AttentionError') return new AttentionError(code, message);
  return new Error(message);
}
