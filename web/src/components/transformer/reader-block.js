// <attention-transformer weights="reader">: one layer of the reader trained on real text (its encoder
// or decoder, `reader-model`) on the pieces of the sentence, in its own pre-norm order: x → LN₁(x) →
// multi-head attention (causal in the decoder) → x + A → LN₂ → ReLU(·W₁ + b₁) → ·W₂ + b₂ → + residual.
// The numbers are trained/reader-stream.js's (attention and products by the library, layer norm,
// biases and ReLU in JavaScript, from reader.parameters), each step one heatmap, all on one page.
// The load, the model switch, the layer picker and the reader's notes are trained-reader.js's.
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { LAYER_STEPS, readerLayerSteps } from '../../trained/reader-stream.js';
import { TrainedReader } from '../steps/trained-reader.js';

/** Column labels d1, d2, … (dimensions counted from 1, as heads and rows are in the page). */
const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);

export class ReaderBlock {
  #reader;
  #pool = new Map();
  #list = null;
  /** The last layer computed: { key, run } (a change of language, model, layer or sentence computes again). */
  #last = null;

  /** `host`: the <attention-transformer> whose `weights`, `reader-model`, `layer` and `sentence` this reads. */
  constructor(host) {
    this.#reader = new TrainedReader(host, { panel: 'transformer', layers: true });
  }

  get on() {
    return this.#reader.on;
  }

  /** The reader's notes and pickers (or that it is loading, or failed), then what the layer is and each of its steps. */
  nodes(t) {
    const loaded = this.#reader.use();
    const run = loaded ? this.#run(loaded) : null;
    const out = this.#reader.nodes(t, run?.truncated);
    if (!run) return out;
    const { model, layer, tokens } = run;
    const count = model === 'decoder' ? tokens.length - 1 : tokens.length;
    out.push(el('p', { class: 'note', 'data-role': 'reader-layer', text: t(`transformer.reader.about.${model}`, { layer: layer + 1, count }) }));
    const list = (this.#list ??= el('ol', { class: 'trained-steps', 'data-role': 'reader-layer-steps' }));
    place(list, LAYER_STEPS.map((key) => this.#step(t, key, run)));
    out.push(list);
    return out;
  }

  /** The layer shown, computed once per reader, model, layer and sentence: { model, layer, steps, tokens, truncated? }. */
  #run({ lab, reader }) {
    const model = this.#reader.model;
    const layer = this.#reader.layer;
    const sentence = this.#reader.sentence;
    const kept = this.#last;
    if (kept?.reader === reader && kept.model === model && kept.layer === layer && kept.sentence === sentence) return kept.run;
    const run = { model, layer, ...readerLayerSteps(lab, reader, model, sentence, layer) };
    this.#last = { reader, model, layer, sentence, run };
    return run;
  }

  #step(t, key, { model, layer, steps, tokens }) {
    const name = key === 'attention' && model === 'encoder' ? t('transformer.reader.step.attention') : t(`transformer.trained.step.${key}`, { layer: layer + 1 });
    const matrix = steps[key];
    const heat = createHeatmap({ base: 1, t, name, file: `reader-${key}`, matrix, rowLabels: tokens, colLabels: dims(matrix.cols), compact: true, pool: this.#pool, slot: key });
    heat.el.dataset.matrix = key;
    return el('li', { 'data-step': key }, el('h3', { class: 'step-title', text: name }), heat.el);
  }
}
