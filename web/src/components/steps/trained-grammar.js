// <attention-steps weights="trained">: the steps of the shipped grammar model's first attention
// layer on the reader's sentence. The model (a 2-layer pre-norm decoder, lab.loadTrained('grammar'))
// is fetched with the training build only when trained weights are chosen. Its layer-0 attention
// reads LN(√d_model · E[token] + P) (the token embeddings of model.parameters(), the sinusoidal
// positions of lab.positionalEncoding, the layer norm with the layer's γ and β) and its trained
// W_Q, W_K, W_V, W_O under a causal mask: the panel's usual steps then run on these numbers.
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { getTrained } from '../../training-lab.js';
import { layerInput } from '../../trained/grammar-stream.js';

/** The sentence read when none is given, in the page's language (the task's own examples). */
export const DEFAULT_GRAMMAR = { en: 'the dog chased the cats. they ran. who ran? the', 'zh-CN': '那个男孩遇见了那个女孩。她跑了。谁跑了？' };
/**
 * Layer `layer`'s attention input and weights for `sentence` (grammar-stream.js): { inputs: { X, Wq,
 * Wk, Wv, Wo }, labels (<bos> and one per token, <unk> for a word outside the vocabulary), unknown
 * (the Latin words outside it), unknownCount, cut (tokens beyond the model's length) }.
 */
export function grammarInputs({ lab, model }, sentence, layer = 0) {
  const task = lab.tasks.grammar;
  const { X, Wq, Wk, Wv, Wo, ids, all } = layerInput(lab, model, sentence, layer);
  const unknown = [...new Set((sentence.match(/[A-Za-z]+/g) ?? []).filter((word) => task.encode(word)[0] === task.unk))];
  return {
    inputs: { X, Wq, Wk, Wv, Wo },
    labels: ids.map((id) => task.vocabulary[id]),
    unknown,
    unknownCount: ids.filter((id) => id === task.unk).length,
    cut: all.length - (ids.length - 1),
  };
}

export class TrainedGrammar {
  #host;
  #panel;
  #layers;
  #state = null;
  #last = null;
  #select = null;
  #layerSelect = null;

  /**
   * `host`: the panel whose `weights`, `sentence` (and, with `layers`, `layer`) this reads; `panel`:
   * the prefix of its strings (steps.trained.about, heads.trained.about, …); `layers`: a layer picker.
   */
  constructor(host, { panel = 'steps', layers = false } = {}) {
    this.#host = host;
    this.#panel = panel;
    this.#layers = layers;
  }

  get on() {
    return this.#host.getAttribute('weights') === 'trained';
  }

  /** The layer shown: the `layer` attribute kept within the model's layers (0 before it has loaded or without a picker). */
  get layer() {
    const count = this.#state?.loaded?.model.config.decoderLayers ?? 1;
    const given = Math.round(Number(this.#host.getAttribute('layer')) || 0);
    return this.#layers ? Math.min(count - 1, Math.max(0, given)) : 0;
  }

  /** With trained weights loaded: { lab, model, sentence, layer }; else null (use() starts the load). */
  get ready() {
    if (!this.on || this.#state?.status !== 'ready') return null;
    return { ...this.#state.loaded, sentence: this.#sentence(), layer: this.layer };
  }

  #sentence() {
    const s = this.#host.getAttribute('sentence');
    return s && s.trim() ? s : DEFAULT_GRAMMAR[this.#host.language] ?? DEFAULT_GRAMMAR.en;
  }

  /** The settings and inputs to trace: the host's, or the trained model's layer once it has loaded. */
  use(config, inputs) {
    if (!this.on) return { config, inputs };
    if (!this.#state || this.#state.retry) {
      this.#state = { status: 'loading' };
      getTrained('grammar').then((loaded) => (this.#state = { status: 'ready', loaded }), (error) => (this.#state = { status: 'failed', error })).then(() => this.#host.requestRender());
    }
    if (this.#state.status !== 'ready') return { config, inputs };
    const run = this.#runFor();
    const { dModel, heads } = this.#state.loaded.model.config;
    return { config: { ...config, sentence: this.#sentence(), dModel, heads, dK: dModel / heads, mask: 'causal', tokens: JSON.stringify(run.labels) }, inputs: run.inputs };
  }

  /** The weights choice (and layer picker) and, with trained weights, what they are (or that they are loading, or failed). */
  nodes(t) {
    const key = (name) => `${this.#panel}.${name}`;
    this.#select ??= this.#build('weights', ['random', 'trained'], (v) => this.#host.setAttribute('weights', v));
    this.#select.value = this.on ? 'trained' : 'random';
    this.#select.options[0].textContent = t(key('weights.random'));
    this.#select.options[1].textContent = t(key('weights.trained'));
    this.#select.previousSibling.textContent = t(key('weights'));
    const out = [this.#select.parentNode];
    if (!this.on) return out;
    const note = (role, text, cls = 'note') => out.push(el('p', { class: cls, 'data-role': role, text }));
    const { status, error } = this.#state ?? { status: 'loading' };
    if (status === 'loading') note('trained-loading', t(key('trained.loading')), 'muted');
    else if (status === 'failed') {
      this.#state.retry = true;
      out.push(el('p', { class: 'error', role: 'alert', 'data-role': 'trained-error', text: errorText(t, error, { key: key('trained.error') }) }));
    } else {
      if (this.#layers) out.push(this.#layerPicker(t));
      const run = this.#runFor();
      note('trained-about', t(key('trained.about'), { count: run.labels.length - 1, layer: this.layer + 1 }));
      if (run.unknownCount) note('trained-unknown', t('steps.trained.unknown', { count: run.unknownCount, list: run.unknown.join(', ') || '—' }), 'warn');
      if (run.cut) note('trained-cut', t('steps.trained.cut', { n: run.labels.length - 1, cut: run.cut }), 'warn');
    }
    return out;
  }

  /** The run of the sentence and layer shown (computed here when use() was not called). */
  #runFor() {
    const sentence = this.#sentence();
    if (this.#last?.sentence !== sentence || this.#last.layer !== this.layer) this.#last = { sentence, layer: this.layer, run: grammarInputs(this.#state.loaded, sentence, this.layer) };
    return this.#last.run;
  }

  /** The layer picker, one option per layer of the loaded model. */
  #layerPicker(t) {
    const count = this.#state.loaded.model.config.decoderLayers;
    const values = Array.from({ length: count }, (_, l) => String(l));
    this.#layerSelect ??= this.#build('layer', values, (v) => this.#host.setAttribute('layer', v));
    values.forEach((v, l) => (this.#layerSelect.options[l].textContent = t(`${this.#panel}.layerOption`, { layer: l + 1 })));
    this.#layerSelect.value = String(this.layer);
    this.#layerSelect.previousSibling.textContent = t(`${this.#panel}.layer`);
    return this.#layerSelect.parentNode;
  }

  #build(id, values, set) {
    const select = el('select', { id, 'data-key': id }, ...values.map((value) => el('option', { value })));
    select.addEventListener('change', () => set(select.value));
    el('label', { class: 'row', 'data-role': id }, el('span'), select);
    return select;
  }
}
