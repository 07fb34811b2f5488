// <attention-steps weights="trained">: the steps of the shipped grammar model's first attention
// layer on the reader's sentence. The model (a 2-layer pre-norm decoder, lab.loadTrained('grammar'))
// is fetched with the training build only when trained weights are chosen. Its layer-0 attention
// reads LN(√d_model · E[token] + P) (the token embeddings of model.parameters(), the sinusoidal
// positions of lab.positionalEncoding, the layer norm with the layer's γ and β) and its trained
// W_Q, W_K, W_V, W_O under a causal mask: the panel's usual steps then run on these numbers.
// The reader's sentence is read with the model's vocabulary (words matched without regard to case,
// tokenize.js) and kept when trained weights are chosen: the model's example is offered with a button.
import { DEFAULT_SENTENCE, panelSetting, settingValue } from '../../config.js';
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { unknownPieces, vocabularyPieces } from '../../tokenize.js';
import { getTrained } from '../../training-lab.js';
import { MEASURED_ROWS, headCaption } from '../../trained/captions.js';
import { layerInput } from '../../trained/grammar-stream.js';
import { VocabularyBox } from '../../trained/vocabulary-box.js';

/** The model's example sentence in the page's language (the task's own examples), offered beside the reader's. */
export const DEFAULT_GRAMMAR = { en: 'the dog chased the cats. they ran. who ran? the', 'zh-CN': '那个男孩遇见了那个女孩。她跑了。谁跑了？' };
/** The model's words (its vocabulary without the special tokens). */
const wordsOf = (task) => task.vocabulary.slice(task.unk + 1);

/**
 * `sentence` as the grammar task's tokenizer should read it: each piece replaced by the vocabulary's
 * word (matched without regard to case), pieces outside it kept (they read as <unk>), spaces between.
 */
export const readSentence = (task, sentence, pieces = vocabularyPieces(sentence, wordsOf(task))) => pieces.map((p) => p.word ?? p.text).join(' ');

/**
 * Layer `layer`'s attention input and weights for `sentence` (grammar-stream.js): { inputs: { X, Wq,
 * Wk, Wv, Wo }, labels (<bos> and one per token, <unk> for a piece outside the vocabulary), unknown
 * (every distinct piece outside it, Latin words and Chinese characters alike), unknownCount, cut
 * (tokens beyond the model's length) }. Words are matched without regard to case: the sentence is
 * given to the task's tokenizer as the vocabulary's own words (vocabularyPieces), so "The Cat" reads
 * as "the cat".
 */
export function grammarInputs({ lab, model }, sentence, layer = 0) {
  const task = lab.tasks.grammar;
  const pieces = vocabularyPieces(sentence, wordsOf(task));
  const { X, Wq, Wk, Wv, Wo, ids, all } = layerInput(lab, model, readSentence(task, sentence, pieces), layer);
  return {
    inputs: { X, Wq, Wk, Wv, Wo },
    labels: ids.map((id) => task.vocabulary[id]),
    unknown: unknownPieces(pieces),
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
  /** The reader's sentence when the model's example was chosen (the example is read while it stays the same). */
  #exampleFor = null;
  #source = null;
  #vocabulary = new VocabularyBox();

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

  /**
   * With trained weights loaded: { lab, model, sentence, layer }; else null (use() starts the load).
   * `sentence` is as the model reads it: its vocabulary's words, matched without regard to case
   * (readSentence), so a panel that encodes it itself (transformer/trained-block.js) reads the same tokens.
   */
  get ready() {
    if (!this.on || this.#state?.status !== 'ready') return null;
    return { ...this.#state.loaded, sentence: readSentence(this.#state.loaded.lab.tasks.grammar, this.#sentence()), layer: this.layer };
  }

  /** The reader's sentence: the `sentence` attribute, or the page's default one (what random weights read too). */
  #own() {
    const s = this.#host.getAttribute('sentence');
    return s && s.trim() ? s : DEFAULT_SENTENCE[this.#host.language] ?? DEFAULT_SENTENCE.en;
  }

  /** True while the model's example is read instead (until the reader's sentence changes). */
  get #example() {
    return this.#exampleFor !== null && this.#exampleFor === this.#own();
  }

  /** The sentence the model reads: the reader's, or its example when the reader asked for it. */
  #sentence() {
    return this.#example ? DEFAULT_GRAMMAR[this.#host.language] ?? DEFAULT_GRAMMAR.en : this.#own();
  }

  /** The settings and inputs to trace: the host's, or the trained model's layer once it has loaded. */
  use(config, inputs) {
    if (!this.on) return { config, inputs };
    if (!this.#state || this.#state.retry) {
      this.#state = { status: 'loading' };
      this.#host.waitFor(getTrained('grammar').then((loaded) => (this.#state = { status: 'ready', loaded }), (error) => (this.#state = { status: 'failed', error })).then(() => this.#host.requestRender()));
    }
    if (this.#state.status !== 'ready') return { config, inputs };
    const run = this.#runFor();
    const { dModel, heads } = this.#state.loaded.model.config;
    return { config: { ...config, sentence: this.#sentence(), dModel, heads, dK: dModel / heads, mask: 'causal', tokens: JSON.stringify(run.labels) }, inputs: run.inputs };
  }

  /** The weights choice (and layer picker) and, with trained weights, what they are (or that they are loading, or failed). */
  nodes(t) {
    const key = (name) => `${this.#panel}.${name}`;
    // The choices are the settings table's (a panel that offers the reader has a third).
    const row = panelSetting(this.#panel, 'weights');
    this.#select ??= this.#build('weights', row.choices, (v) => this.#host.setAttribute('weights', v));
    this.#select.value = settingValue(row, this.#host.getAttribute('weights'));
    row.choices.forEach((choice, k) => (this.#select.options[k].textContent = t(key(`weights.${choice}`))));
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
      out.push(this.#sourceRow(t));
      if (run.unknownCount) note('trained-unknown', t('trained.unknown', { count: run.unknownCount, list: run.unknown.join(t('trained.listSeparator')) || '—' }), 'warn');
      if (run.cut) note('trained-cut', t('steps.trained.cut', { n: run.labels.length - 1, cut: run.cut }), 'warn');
      out.push(this.#vocabulary.sync(t, wordsOf(this.#state.loaded.lab.tasks.grammar)), this.#captions(t));
    }
    return out;
  }

  /** What the model reads (the reader's sentence or its example) and the button to switch. */
  #sourceRow(t) {
    const ui = (this.#source ??= (() => {
      const text = el('span', { 'data-role': 'trained-sentence' });
      const button = el('button', { type: 'button', 'data-role': 'trained-switch', onclick: () => {
        this.#exampleFor = this.#example ? null : this.#own();
        this.#host.requestRender();
      } });
      return { row: el('p', { class: 'note trained-source', 'data-role': 'trained-source' }, text, ' ', button), text, button };
    })());
    const example = this.#example;
    ui.row.dataset.reads = example ? 'example' : 'own';
    ui.text.textContent = example ? t('trained.sentence.example', { sentence: this.#sentence(), own: this.#own() }) : t('trained.sentence.own', { sentence: this.#own() });
    ui.button.textContent = t(example ? 'trained.sentence.useOwn' : 'trained.sentence.useExample');
    return ui.row;
  }

  /** The measured caption of each head of the layer shown (scripts/measure-heads.mjs). */
  #captions(t) {
    const { heads } = this.#state.loaded.model.config;
    const items = Array.from({ length: heads }, (_, h) => el('li', { 'data-head': String(h), text: headCaption(t, 'grammar', 'decoder', this.layer, h) }));
    return el('div', { class: 'note', 'data-role': 'trained-captions' }, el('p', { text: t('trained.captions', { layer: this.layer + 1, rows: MEASURED_ROWS }) }), el('ul', {}, ...items));
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
