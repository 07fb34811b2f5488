// The two TrainSessions of <attention-train>'s compare mode, DOM-free: each in a worker of its own,
// both started, paused and reset together, on the runs compareRuns gives (the same task, sizes and
// seed). `onChange(what)` is the sessions' ('state', 'progress', 'attention').
import { compareRuns } from './compare-runs.js';
import { TrainSession } from './session.js';

/** Of two session states, the one the pair shows: busy while either is, failed if either failed. */
const ORDER = ['failed', 'loading', 'running', 'pausing', 'paused', 'stopped', 'reached', 'idle'];

export class RunPair {
  /** [{ scoring, settings, session }] once trained (the compare mode's two runs), else []. */
  runs = [];
  #sessions;

  constructor(makeWorker, onChange) {
    this.#sessions = [new TrainSession(makeWorker, onChange), new TrainSession(makeWorker, onChange)];
  }

  /** 'idle' before any run; else the state of the pair (ORDER: the first either session is in). */
  get state() {
    if (!this.runs.length) return 'idle';
    return ORDER.find((s) => this.#sessions.some((x) => x.state === s)) ?? 'idle';
  }

  /** Train (or continue) both runs of `settings` (compare set); a run at its goal or last step stays there. */
  train(settings) {
    this.runs = compareRuns(settings).map((r, i) => ({ ...r, session: this.#sessions[i] }));
    for (const r of this.runs) if (!['reached', 'stopped'].includes(r.session.state)) r.session.train(r.settings);
  }

  pause() {
    for (const s of this.#sessions) s.pause();
  }

  reset() {
    for (const s of this.#sessions) s.reset();
    this.runs = [];
  }

  dispose() {
    for (const s of this.#sessions) s.dispose();
  }
}
