// <attention-transformer weights="trained">: one layer of the shipped grammar model on the sentence,
// in that model's own order. It is a pre-norm decoder layer, not the post-norm encoder block the
// panel otherwise shows: x → LN₁(x) → causal multi-head attention → x + A → LN₂ → ReLU(·W₁ + b₁) →
// ·W₂ + b₂ → + residual. The numbers are trained/grammar-stream.js's (attention and products by the
// library, layer norm, biases and ReLU in JavaScript), each step one heatmap, all on one page.
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { LAYER_STEPS, sentenceLayerSteps } from '../../trained/grammar-stream.js';
import { TrainedGrammar } from '../steps/trained-grammar.js';

/** Column labels d1, d2, … (dimensions counted from 1, as heads and rows are in the page). */
const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);

export class TrainedBlock {
  #host;
  #grammar;
  #pool = new Map();
  #list = null;
  #last = null;

  /** `host`: the <attention-transformer> whose `weights`, `layer` and `sentence` this reads. */
  constructor(host) {
    this.#host = host;
    this.#grammar = new TrainedGrammar(host, { panel: 'transformer', layers: true });
  }

  get on() {
    return this.#grammar.on;
  }

  /** The weights choice, the layer picker and the notes (random weights: the choice alone). */
  nodes(t) {
    this.#grammar.use({}, undefined);
    return this.#grammar.nodes(t);
  }

  /** With trained weights loaded: every step of the layer as a heatmap; before that, nothing. */
  figures(t) {
    const ready = this.#grammar.ready;
    if (!ready) return [];
    const { lab, model, sentence, layer } = ready;
    if (this.#last?.sentence !== sentence || this.#last.layer !== layer) this.#last = { sentence, layer, run: sentenceLayerSteps(lab, model, sentence, layer) };
    const { steps, ids } = this.#last.run;
    const tokens = ids.map((id) => lab.tasks.grammar.vocabulary[id]);
    const list = (this.#list ??= el('ol', { class: 'trained-steps', 'data-role': 'trained-steps' }));
    place(list, LAYER_STEPS.map((key) => this.#step(t, key, steps[key], tokens, layer)));
    return [list];
  }

  #step(t, key, matrix, tokens, layer) {
    const name = t(`transformer.trained.step.${key}`, { layer: layer + 1 });
    const heat = createHeatmap({ base: 1, t, name, file: `trained-${key}`, matrix, rowLabels: tokens, colLabels: dims(matrix.cols), compact: true, pool: this.#pool, slot: key });
    heat.el.dataset.matrix = key;
    return el('li', { 'data-step': key }, el('h3', { class: 'step-title', text: name }), heat.el);
  }
}
