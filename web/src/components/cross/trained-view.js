// What <attention-cross> shows with weights="trained": the dates model's output for the typed date
// and its cross-attention, per head and averaged, as heatmaps labelled with the output characters
// (rows: the character each decoder step wrote) and the source characters (columns). The model is
// fetched on the first render in this mode ("Loading…" meanwhile, the error said if it fails).
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { createHeatmap, place } from '../../heatmap.js';
import { MEASURED_ROWS, headCaption } from '../../trained/captions.js';
import { VocabularyBox } from '../../trained/vocabulary-box.js';
import { CHECKPOINT, getTrainedDates, runDates } from './trained-dates.js';

/** A source character as a label: a space is shown as ␣ (an empty header reads as nothing). */
export const charLabel = (c) => (c === ' ' ? '␣' : c);

export class TrainedView {
  #host;
  /** { status: 'loading' | 'ready' | 'failed', loaded?, error? } once asked for. */
  #state = null;
  /** The last run: { text, run }. */
  #last = null;
  #pool = new Map();
  #grid = null;
  #vocabulary = new VocabularyBox();

  /** `host`: the <attention-cross> that is re-rendered when the model has loaded. */
  constructor(host) {
    this.#host = host;
  }

  #load() {
    this.#state = { status: 'loading' };
    this.#host.waitFor(
      getTrainedDates().then(
        (loaded) => (this.#state = { status: 'ready', loaded }),
        (error) => (this.#state = { status: 'failed', error }),
      ).then(() => this.#host.requestRender()),
    );
  }

  /** The nodes after the form, for `text` (the date) in `t`'s language. */
  sections(t, text) {
    if (!this.#state || (this.#state.status === 'failed' && this.#state.retry)) this.#load();
    const { status, error, loaded } = this.#state;
    if (status === 'loading') return [el('p', { class: 'muted', 'data-role': 'trained-loading', text: t('cross.trained.loading') })];
    if (status === 'failed') {
      this.#state.retry = true; // the next render (a change) tries again
      return [el('p', { class: 'error', role: 'alert', 'data-role': 'trained-error', text: errorText(t, error, { key: 'cross.trained.error' }) })];
    }
    if (this.#last?.text !== text) this.#last = { text, run: runDates(loaded, text) };
    const run = this.#last.run;
    const { config } = loaded.model;
    const out = [
      el('p', { class: 'note', 'data-role': 'trained-about', text: t('cross.trained.about', { layers: config.decoderLayers, width: config.dModel, heads: config.heads, score: (loaded.lab.checkpoints.dates.validation * 100).toFixed(1) }) }),
      el('p', { 'data-role': 'trained-output', 'data-output': run.output, text: t(run.correct ? 'cross.trained.outputRight' : 'cross.trained.output', { input: run.chars.join(''), output: run.output }) }),
    ];
    if (run.unknown.length) out.push(el('p', { class: 'warn', 'data-role': 'trained-unknown', text: t('cross.trained.unknown', { list: run.unknown.map((c) => `“${charLabel(c)}”`).join(' ') }) }));
    if (run.cut) out.push(el('p', { class: 'warn', 'data-role': 'trained-cut', text: t('cross.trained.cut', { n: run.chars.length, cut: run.cut }) }));
    const task = loaded.lab.tasks[CHECKPOINT];
    out.push(this.#vocabulary.sync(t, task.vocabulary.slice(task.unk + 1), 'chars'), this.#heatmaps(t, run), el('p', { class: 'note', text: t('cross.trained.read') }), this.#captions(t, run));
    return out;
  }

  /** The measured caption of each cross-attention head (scripts/measure-heads.mjs), numbered from 1. */
  #captions(t, run) {
    const items = run.heads.flatMap((heads, layer) => heads.map((_, h) => el('li', { 'data-layer': String(layer), 'data-head': String(h), text: headCaption(t, CHECKPOINT, 'cross', layer, h) })));
    return el('div', { class: 'note', 'data-role': 'trained-captions' }, el('p', { text: t('trained.captionsCross', { rows: MEASURED_ROWS }) }), el('ul', {}, ...items));
  }

  /** The average and each head of each decoder layer, rows labelled by output, columns by source. */
  #heatmaps(t, run) {
    const rows = run.outTokens;
    const cols = run.chars.map(charLabel);
    const figures = [];
    const layers = run.heads.length;
    run.heads.forEach((heads, layer) => {
      const prefix = layers > 1 ? t('cross.trained.layer', { layer: layer + 1 }) : '';
      const draw = (slot, name, matrix) => {
        const h = createHeatmap({ t, name: prefix + name, file: `cross-trained-${slot}`, matrix, rowLabels: rows, colLabels: cols, compact: true, pool: this.#pool, slot, defer: true });
        h.el.dataset.matrix = slot;
        return h.el;
      };
      figures.push(draw(`average-${layer}`, t('cross.trained.average', { h: heads.length }), run.average[layer]));
      heads.forEach((A, head) => figures.push(draw(`head-${layer}-${head}`, t('cross.trained.head', { head: head + 1 }), A)));
    });
    this.#grid ??= el('div', { class: 'grid', 'data-role': 'trained-maps' });
    place(this.#grid, figures);
    return this.#grid;
  }
}
