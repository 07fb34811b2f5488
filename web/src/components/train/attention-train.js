// <attention-train>: train a small Transformer in the reader's tab and watch its attention form.
// The training runs in a module Worker (worker.js: the training build, a Trainer in short chunks),
// so the page's thread only draws: the state, a progress bar toward the task's goal, the loss and
// validation curves, and every few steps the attention of a fixed example for every layer and head;
// the reader's own input is decoded by the model of the moment (try-box.js). Every number of a run is the
// library's, posted by the worker; the loss note's schedule and grammar floor are the task's constants (settings.js).
import { AttentionElement } from '../../base.js';
import { el } from '../../dom.js';
import { place } from '../../heatmap.js';
import { onFrame, onIdle } from '../../scheduler.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { runLegend, runName, syncCompare } from './compare-view.js';
import { TrainControls } from './controls.js';
import { trainExportBar } from './exports.js';
import { RunPair } from './run-pair.js';
import { TrainSession } from './session.js';
import { GRAMMAR_LOSS_FLOOR, TASK_FACTS, givenSettings, settingsKey, trainSettings } from './settings.js';
import { TRAIN_CSS } from './styles.js';
import { TryBox } from './try-box.js';
import { gridElement, warmUp, stateText, statusText, syncCurves, syncGrid, syncProgress } from './views.js';

/** The least time between two redraws (ms) of the curves ('progress') and of the attention grid. */
const EVERY_MS = { progress: 400, attention: 1000 };
/** A module worker next to this file (in the bundles: attention-train-worker.js next to them). */
const makeWorker = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

const curvesOf = (session) => ({ loss: session.losses.map((p) => ({ ...p })), accuracy: session.accuracies.map((p) => ({ ...p })) });

export class AttentionTrain extends AttentionElement {
  static tag = 'attention-train';

  #session = new TrainSession(makeWorker, (what) => this.#changed(what));
  #controls = new TrainControls(this, { train: () => this.train(), pause: () => this.pause(), reset: () => this.reset() });
  /** The compare mode's two runs (compare="scaling" | "scoring"). */
  #pair = new RunPair(makeWorker, (what) => this.#changed(what));
  /** The export bar, and the language it was made in. */
  #exports = null;
  #try = new TryBox(this.#session, () => this.#queueDraw('try'));
  #pool = new Map();
  /** The settings key of the session's model (a change of setting starts over). */
  #key = null;
  #parts = null;
  #pending = new Set();
  #frame = 0;
  /** When each kind of change was last drawn (performance.now()). */
  #drawn = {};
  #lastState = 'idle';
  /** The language warmUp ran for. */
  #warm = null;

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, TRAIN_CSS);
  }

  disconnectedCallback() {
    // Taken out of the page: the worker goes (put back, the panel starts over).
    this.reset();
    this.#session.dispose();
    this.#pair.dispose();
  }

  /** The settings as used: { task, layers, heads, dModel, scoring, seed, seq2seq, example, changed }. */
  get settings() {
    return trainSettings(givenSettings(this));
  }
  /** 'idle', 'loading', 'running', 'pausing', 'paused', 'reached', 'stopped' or 'failed'. */
  get state() {
    return this.settings.compare ? this.#pair.state : this.#session.state;
  }
  /** The last step trained (0 before the first); in compare mode the run behind's. */
  get step() {
    if (this.settings.compare) return this.#pair.runs.length ? Math.min(...this.#pair.runs.map((r) => r.session.last?.step ?? 0)) : 0;
    return this.#session.last?.step ?? 0;
  }

  /** The curves since the model's start (copies): { loss: { step, loss, gradientNorm }[], accuracy: { step, accuracy }[] }. */
  get curves() {
    return curvesOf(this.#session);
  }
  /** In compare mode, each run's scoring and curves (copies): [{ scoring, state, loss, accuracy }]; else []. */
  get compareCurves() {
    return this.#pair.runs.map((r) => ({ scoring: r.scoring, state: r.session.state, ...curvesOf(r.session) }));
  }

  /** Start or continue training the model of the current settings. */
  train() {
    const s = this.settings;
    if (s.compareAsked && !s.compare) return;
    if (this.#key !== null && this.#key !== settingsKey(s)) this.reset();
    this.#key = settingsKey(s);
    if (s.compare) this.#pair.train(s);
    else this.#session.train(s);
  }
  pause() {
    this.#session.pause();
    this.#pair.pause();
  }
  /** Drop the model and its curves (a failed worker is replaced). */
  reset() {
    this.#session.reset();
    this.#pair.reset();
    this.#try.clear();
    this.#key = null;
  }

  outOfRange() {
    return [...super.outOfRange(), ...this.settings.changed];
  }

  render() {
    const s = this.settings;
    // A setting changed under a model (trained or training): it goes, and Train starts the new one.
    if (this.#key !== null && this.#key !== settingsKey(s)) this.reset();
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const p = (this.#parts ??= this.#build());
    p.heading.textContent = this.t('train.heading');
    p.intro.textContent = this.t('train.intro');
    this.#draw(new Set(['state', 'progress', 'attention']));
    if (this.#warm !== this.language) {
      this.#warm = this.language;
      onIdle(() => warmUp(this.t, this.#warm));
    }
  }

  #build() {
    const progress = el('progress', { part: 'progress', 'data-role': 'progress' });
    const state = el('p', { 'data-role': 'state', role: 'status' });
    const numbers = el('p', { class: 'numbers', 'data-role': 'status' });
    const model = el('p', { class: 'muted', 'data-role': 'model' });
    const error = el('p', { class: 'error', 'data-role': 'error', role: 'alert', hidden: '' });
    return {
      heading: el('h2', {}), intro: el('p', { class: 'intro' }), progress, state, numbers, model, error,
      status: el('section', { class: 'status', part: 'status' }, state, error, progress, numbers, model),
      curves: el('div', { class: 'curves', part: 'curves', 'data-role': 'curves' }),
      gridNote: el('p', { class: 'note', 'data-role': 'grid-note' }),
      maps: gridElement('example'),
      grid: el('section', { class: 'grid', part: 'grid' }),
      compare: el('section', { class: 'compare', part: 'compare', 'data-role': 'compare' }),
      compareNote: el('p', { class: 'note', 'data-role': 'compare-note' }),
      metricNote: el('p', { class: 'note', 'data-role': 'metric-note' }),
      loss: el('section', { class: 'loss', part: 'loss', 'data-role': 'loss' }),
    };
  }

  /** What the loss is and how it is trained (the task's own schedule), and for grammar why it cannot reach 0. */
  #lossNotes(t, s, lang) {
    const p = this.#parts;
    const { learningRate, warmup, steps, batchSize, clipNorm } = TASK_FACTS[s.task].training;
    const rate = (x) => new Intl.NumberFormat(lang, { maximumSignificantDigits: 3 }).format(x);
    const numbers = { batch: batchSize, clip: clipNorm, lr: rate(learningRate), lrFloor: rate(learningRate / 10), warmup, steps };
    const notes = [el('p', { class: 'note', 'data-role': 'loss-explain', text: t('train.lossExplain', numbers) })];
    if (s.task === 'grammar') {
      const f = GRAMMAR_LOSS_FLOOR;
      notes.push(el('p', { class: 'note', 'data-role': 'loss-floor', text: t('train.lossFloor.grammar', { floor: rate(f.floor), nats: rate(f.nats), tokens: rate(f.tokens) }) }));
    }
    place(p.loss, notes);
    // Grammar's exact match counts only the decided words: said where the metric is shown.
    p.metricNote.textContent = s.task === 'grammar' ? t('train.metric.grammar') : '';
    return p.metricNote.textContent ? [p.loss, p.metricNote] : [p.loss];
  }

  #tryBox(s) {
    const can = ['running', 'pausing', 'paused', 'reached', 'stopped'].includes(this.#session.state) && this.#session.info !== null;
    return this.#try.sync(this.t, s.task, s.example, can);
  }

  #changed(what) {
    this.#queueDraw(what);
    const state = this.settings.compare ? this.#pair.state : this.#session.state;
    if (state !== this.#lastState) {
      this.#lastState = state;
      // In compare mode the step is the run behind's, and loss and accuracy (one run's) are null.
      const p = this.settings.compare ? null : this.#session.last;
      this.emit('attention-train', { state, step: this.step, loss: p?.loss ?? null, accuracy: p?.accuracy ?? null });
    }
  }

  /**
   * Redraw what changed in a coming frame: several reports are drawn once, the curves at most every
   * EVERY_MS.progress and the grid every EVERY_MS.attention, so drawing takes a small part of the
   * page's thread.
   */
  #queueDraw(what) {
    this.#pending.add(what);
    clearTimeout(this.#frame);
    const now = performance.now();
    const wait = Math.min(...[...this.#pending].map((kind) => (this.#drawn[kind] ?? 0) + (EVERY_MS[kind] ?? 0) - now));
    this.#frame = setTimeout(() => onFrame(() => this.#drawDue()), Math.max(0, wait));
  }

  #drawDue() {
    const now = performance.now();
    const due = new Set([...this.#pending].filter((kind) => (this.#drawn[kind] ?? 0) + (EVERY_MS[kind] ?? 0) <= now + 1));
    for (const kind of due) {
      this.#pending.delete(kind);
      this.#drawn[kind] = now;
    }
    if (this.isConnected && !this.hidden && this.#parts && due.size) this.#draw(due, true);
    if (this.#pending.size) this.#queueDraw([...this.#pending][0]);
  }

  /** Draw what is `due`; `spread`: the curves and the grid in the next frames (a redraw while training). */
  #draw(due, spread = false) {
    const t = this.t;
    const lang = this.language;
    const session = this.#session;
    const p = this.#parts;
    const s = this.settings;
    if (s.compare || s.compareAsked) return this.#drawCompare(t, s, lang);
    // A failure is said once, by the alert; the status line says every other state.
    const said = stateText(t, session, lang);
    const failed = session.state === 'failed';
    p.state.textContent = failed ? '' : said;
    p.error.hidden = !failed;
    p.error.textContent = failed ? said : '';
    syncProgress(p.progress, t, session, lang);
    p.numbers.textContent = statusText(t, session, lang);
    p.model.textContent = session.info ? t('train.model', { parameters: session.info.parameters.toLocaleString(lang), build: t(session.info.simd ? 'train.build.simd' : 'train.build.scalar') }) : '';
    if (due.has('state') || due.has('try')) {
      const [loss, ...metric] = this.#lossNotes(t, s, lang);
      place(this.root, [p.heading, p.intro, this.#controls.sync(t, s, session.state), p.status, ...metric, p.curves, loss, ...this.#exportBar(session.losses.length > 0), p.grid, this.#tryBox(s)]);
    }
    // The curves and the grid each in a frame of their own when more than the numbers changed: no
    // frame does all the work (a frame's few ms of script, stretched on a busy machine, stay short).
    const steps = [];
    if (due.has('progress') || due.has('state')) steps.push(() => syncCurves(this.#parts.curves, this.t, this.#session));
    if (due.has('attention') || due.has('state')) steps.push(() => this.#drawGrid(this.t, this.#session.attention));
    // Emptied (no model: a reset, a changed setting) they are cheap, and drawn with the state at once.
    if (!spread || !session.attention) this.#inFrames(steps, []);
    else if (due.has('state')) this.#inFrames([], steps);
    else this.#inFrames(steps.slice(0, 1), steps.slice(1));
  }

  /** The compare mode: both runs' lines and curves, or (compare="scoring" on a decoder-only task) why there are none. */
  #drawCompare(t, s, lang) {
    const p = this.#parts;
    const controls = this.#controls.sync(t, s, this.#pair.state);
    if (!s.compare) {
      p.compareNote.textContent = t('train.compareNone', { task: t(`train.task.${s.task}`) });
      return place(this.root, [p.heading, p.intro, controls, p.compareNote]);
    }
    syncCompare(p.compare, t, this.#pair, s, lang, this.#exportBar(this.#pair.runs.some((r) => r.session.losses.length)));
    place(this.root, [p.heading, p.intro, controls, p.compare, ...this.#lossNotes(t, s, lang)]);
  }

  /** [the export bar] in the page's language (made anew when the language changes), or [] with nothing to export. */
  #exportBar(any) {
    if (this.#exports?.lang !== this.language) this.#exports = { lang: this.language, bar: trainExportBar(this.t, () => this.#exportSource(), (m) => this.#exportError(m)) };
    return any ? [this.#exports.bar] : [];
  }

  #exportSource() {
    const s = this.settings;
    const t = this.t;
    const runs = s.compare ? this.#pair.runs : [{ scoring: s.scoring, session: this.#session }];
    const box = s.compare ? this.#parts.compare : this.#parts.curves;
    const chart = box.querySelector(s.compare ? '[data-chart="compare-loss"] svg' : '[data-chart="loss"] svg');
    return { settings: s, runs: runs.map((r) => ({ ...r, name: runName(t, r.scoring) })), chart, title: t(s.compare ? 'train.compareLoss' : 'train.lossChart'), legend: runLegend(t, runs) };
  }

  #exportError(message) {
    const p = this.#parts;
    p.error.hidden = false;
    p.error.textContent = message;
    if (this.settings.compare) p.compare.append(p.error);
  }

  /** Run `now` at once, then each of `next` in a frame of its own (while the panel has its parts). */
  #inFrames(now, next) {
    for (const step of now) step();
    const [first, ...rest] = next;
    if (first) onFrame(() => this.#parts && this.#inFrames([first], rest));
  }

  #drawGrid(t, a) {
    const p = this.#parts;
    if (!a) return place(p.grid, []);
    p.gridNote.textContent = t(`train.grid.${a.kind}`, { input: a.input, output: a.output, step: a.step });
    const done = syncGrid(p.maps, t, a, this.#pool, 'example');
    place(p.grid, [p.gridNote, p.maps]);
    // Maps of a new shape are made a few per frame: the rest in the next ones.
    if (!done) onFrame(() => this.#parts && this.#drawGrid(this.t, this.#session.attention));
  }
}
