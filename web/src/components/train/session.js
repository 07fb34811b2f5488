// The page's side of one <attention-train>'s worker, DOM-free: it starts the worker, sends the
// reader's commands, keeps the curves (so a pause and a resume continue the same one) and the
// latest attention, and notices a worker that fails: an error event, an error it posts, or
// silence while training (a worker terminated mid-run posts nothing, and no event says so).
// `makeWorker()` returns a Worker (attention-train.js: the module worker next to it).

/** A running worker posts at least every chunk (tens of ms) and every check; this much silence is a failure. */
export const STALL_MS = 6000;
/** Loading the training .wasm in a fresh worker may take longer than a chunk. */
export const LOAD_MS = 60000;

export class TrainSession {
  #makeWorker;
  #onChange;
  #worker = null;
  #timer = null;
  #requests = 0;
  /** The model's number: a reset makes a new one, and messages about an older model are dropped. */
  #run = 0;
  #pending = new Map();
  /** 'idle' (no model), 'loading', 'running', 'pausing', 'paused', 'reached' (the goal), 'stopped' (its last step), 'failed' */
  state = 'idle';
  info = null;
  last = null;
  /** { step, loss, gradientNorm }[] and { step, accuracy }[]: the curves of this model since its start. */
  losses = [];
  accuracies = [];
  attention = null;
  error = null;

  /** `onChange(what)`: 'state', 'progress' or 'attention'; called after the session's fields changed. */
  constructor(makeWorker, onChange) {
    this.#makeWorker = makeWorker;
    this.#onChange = onChange;
  }

  /** Train the model of `settings` (a new one when there is none; the same one after a pause). */
  train(settings) {
    if (this.state === 'failed') this.reset();
    this.#ensureWorker().postMessage({ type: 'train', settings, run: this.#run });
    this.#set(this.state === 'idle' ? 'loading' : 'running', LOAD_MS);
  }

  /** Stop after the chunk of steps in hand: 'pausing' until the worker says it stopped, then 'paused'. */
  pause() {
    if (this.state !== 'running' && this.state !== 'loading') return;
    this.#worker?.postMessage({ type: 'pause' });
    this.#set('pausing', this.state === 'loading' ? LOAD_MS : STALL_MS);
  }

  /** Start over: the model and the curves go; a failed worker is replaced by a fresh one. */
  reset() {
    if (this.state === 'failed') this.#dropWorker();
    else this.#worker?.postMessage({ type: 'reset' });
    this.#run++;
    Object.assign(this, { info: null, last: null, losses: [], accuracies: [], attention: null, error: null });
    this.#set('idle');
  }

  /** The reader's input decoded by the model now: resolves to the attention, or { error }. */
  generate(text) {
    if (!this.#worker || this.state === 'idle' || this.state === 'failed') return Promise.resolve(null);
    const id = ++this.#requests;
    this.#worker.postMessage({ type: 'generate', text, id });
    return new Promise((resolve) => this.#pending.set(id, resolve));
  }

  /** The model's parameters now: resolves to { parameters: { [name]: { rows, cols, data } }, step }, { error }, or null (no model). */
  weights() {
    if (!this.#worker || this.state === 'idle' || this.state === 'failed') return Promise.resolve(null);
    const id = ++this.#requests;
    this.#worker.postMessage({ type: 'weights', id });
    return new Promise((resolve) => this.#pending.set(id, resolve));
  }

  dispose() {
    this.#dropWorker();
  }

  #ensureWorker() {
    if (this.#worker) return this.#worker;
    const worker = this.#makeWorker();
    worker.addEventListener('message', ({ data }) => this.#message(data));
    worker.addEventListener('error', (e) => {
      e.preventDefault?.();
      this.#fail({ name: 'Error', code: 'WORKER', message: e.message || 'the training worker failed' });
    });
    worker.addEventListener('messageerror', () => this.#fail({ name: 'Error', code: 'WORKER', message: 'a message from the training worker could not be read' }));
    this.#worker = worker;
    return worker;
  }

  #dropWorker() {
    clearTimeout(this.#timer);
    this.#worker?.terminate();
    this.#worker = null;
    for (const resolve of this.#pending.values()) resolve(null);
    this.#pending.clear();
  }

  #message(m) {
    if (m.type === 'generated' || m.type === 'weights') return this.#answer(m);
    if (this.state === 'failed' || m.run !== this.#run) return;
    if (m.type === 'started') this.info = m;
    else if (m.type === 'progress') return this.#progress(m);
    else if (m.type === 'attention') this.attention = m;
    else if (m.type === 'paused') return this.#loopEnded();
    else if (m.type === 'error') return this.#fail(m.error);
    if (m.type === 'started' && this.state === 'loading') return this.#set('running', STALL_MS);
    this.#onChange(m.type === 'attention' ? 'attention' : 'state');
  }

  #progress(m) {
    this.last = m;
    this.losses.push({ step: m.step, loss: m.loss, gradientNorm: m.gradientNorm });
    if (m.validated) this.accuracies.push({ step: m.step, accuracy: m.accuracy });
    if (this.state === 'running' || this.state === 'pausing') this.#watch(STALL_MS);
    if (m.diverged) return this.#fail({ name: 'Error', code: 'DIVERGED', message: `diverged at step ${m.step}`, step: m.step });
    this.#onChange('progress');
  }

  // The worker's loop ended: at the goal, at its last step, or for a pause. A pause followed by a
  // Train before the loop saw it leaves the loop on: then the state is 'running' and stays.
  #loopEnded() {
    if (this.last?.reached) this.#set('reached');
    else if (this.last?.stopped) this.#set('stopped');
    else if (this.state === 'pausing') this.#set('paused');
  }

  #answer(m) {
    const resolve = this.#pending.get(m.id);
    this.#pending.delete(m.id);
    resolve?.(m);
  }

  #fail(error) {
    this.error = error;
    this.#dropWorker();
    this.#set('failed');
  }

  #set(state, watchMs) {
    this.state = state;
    if (watchMs) this.#watch(watchMs);
    else clearTimeout(this.#timer);
    this.#onChange('state');
  }

  #watch(ms) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#fail({ name: 'Error', code: 'STALLED', message: `the training worker sent nothing for ${ms / 1000} s`, seconds: ms / 1000 }), ms);
  }
}
