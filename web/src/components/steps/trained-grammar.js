// <attention-steps weights="trained">: the steps of the shipped grammar model's first attention
// layer on the reader's sentence. The model (a 2-layer pre-norm decoder, lab.loadTrained('grammar'))
// is fetched with the training build only when trained weights are chosen. Its layer-0 attention
// reads LN(√d_model · E[token] + P) (the token embeddings of model.parameters(), the sinusoidal
// positions of lab.positionalEncoding, the layer norm with the layer's γ and β) and its trained
// W_Q, W_K, W_V, W_O under a causal mask: the panel's usual steps then run on these numbers.
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { getTrained } from '../../training-lab.js';

/** The sentence read when none is given, in the page's language (the task's own examples). */
export const DEFAULT_GRAMMAR = { en: 'the dog chased the cats. they ran. who ran? the', 'zh-CN': '那个男孩遇见了那个女孩。她跑了。谁跑了？' };
/** The core's layer-norm ε (src/train/model_forward.cpp). */
const EPSILON = 1e-5;

/** LN(x) per row with γ and β, in float64, rounded to float32 like the core's output. */
function layerNorm(X, gamma, beta) {
  const { rows, cols } = X;
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const row = X.data.subarray(i * cols, (i + 1) * cols);
    const mean = row.reduce((a, v) => a + v, 0) / cols;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / cols;
    const r = 1 / Math.sqrt(variance + EPSILON);
    for (let j = 0; j < cols; j++) data[i * cols + j] = (row[j] - mean) * r * gamma[j] + beta[j];
  }
  return { rows, cols, data };
}

/**
 * Layer 0's attention input and weights for `sentence`: { inputs: { X, Wq, Wk, Wv, Wo }, labels
 * (<bos> and one per token, <unk> for a word outside the vocabulary), unknown (the Latin words
 * outside it), unknownCount, cut (tokens beyond the model's length) }.
 */
export function grammarInputs({ lab, model }, sentence) {
  const task = lab.tasks.grammar;
  const all = Array.from(task.encode(sentence));
  const ids = [task.bos, ...all.slice(0, model.config.maxLength - 1)];
  const d = model.config.dModel;
  const P = model.parameters();
  const pe = lab.positionalEncoding(ids.length, d);
  const E = P['decoder.embedding'].data;
  const scale = Math.fround(Math.sqrt(d));
  const X0 = { rows: ids.length, cols: d, data: new Float32Array(ids.length * d) };
  ids.forEach((id, t) => {
    for (let j = 0; j < d; j++) X0.data[t * d + j] = Math.fround(scale * E[id * d + j]) + pe.data[t * d + j];
  });
  const X = layerNorm(X0, P['decoder.0.attention_norm.gamma'].data, P['decoder.0.attention_norm.beta'].data);
  const w = (name) => P[`decoder.0.attention.${name}`];
  const unknown = [...new Set((sentence.match(/[A-Za-z]+/g) ?? []).filter((word) => task.encode(word)[0] === task.unk))];
  return {
    inputs: { X, Wq: w('w_q'), Wk: w('w_k'), Wv: w('w_v'), Wo: w('w_o') },
    labels: ids.map((id) => task.vocabulary[id]),
    unknown,
    unknownCount: ids.filter((id) => id === task.unk).length,
    cut: all.length - (ids.length - 1),
  };
}

export class TrainedGrammar {
  #host;
  #state = null;
  #last = null;
  #select = null;

  /** `host`: the <attention-steps> whose `weights` and `sentence` this reads. */
  constructor(host) {
    this.#host = host;
  }

  get on() {
    return this.#host.getAttribute('weights') === 'trained';
  }

  #sentence() {
    const s = this.#host.getAttribute('sentence');
    return s && s.trim() ? s : DEFAULT_GRAMMAR[this.#host.language] ?? DEFAULT_GRAMMAR.en;
  }

  /** The settings and inputs to trace: the host's, or the trained model's layer 0 once it has loaded. */
  use(config, inputs) {
    if (!this.on) return { config, inputs };
    if (!this.#state || this.#state.retry) {
      this.#state = { status: 'loading' };
      getTrained('grammar').then((loaded) => (this.#state = { status: 'ready', loaded }), (error) => (this.#state = { status: 'failed', error })).then(() => this.#host.requestRender());
    }
    if (this.#state.status !== 'ready') return { config, inputs };
    const sentence = this.#sentence();
    if (this.#last?.sentence !== sentence) this.#last = { sentence, run: grammarInputs(this.#state.loaded, sentence) };
    const { run } = this.#last;
    const { dModel, heads } = this.#state.loaded.model.config;
    return { config: { ...config, sentence, dModel, heads, dK: dModel / heads, mask: 'causal', tokens: JSON.stringify(run.labels) }, inputs: run.inputs };
  }

  /** The weights choice and, with trained weights, what they are (or that they are loading, or failed). */
  nodes(t) {
    this.#select ??= this.#build();
    this.#select.value = this.on ? 'trained' : 'random';
    this.#select.options[0].textContent = t('steps.weights.random');
    this.#select.options[1].textContent = t('steps.weights.trained');
    this.#select.previousSibling.textContent = t('steps.weights');
    const out = [this.#select.parentNode];
    if (!this.on) return out;
    const note = (role, text, cls = 'note') => out.push(el('p', { class: cls, 'data-role': role, text }));
    const { status, error } = this.#state ?? { status: 'loading' };
    if (status === 'loading') note('trained-loading', t('steps.trained.loading'), 'muted');
    else if (status === 'failed') {
      this.#state.retry = true;
      out.push(el('p', { class: 'error', role: 'alert', 'data-role': 'trained-error', text: errorText(t, error, { key: 'steps.trained.error' }) }));
    } else {
      const run = this.#last.run;
      note('trained-about', t('steps.trained.about', { count: run.labels.length - 1 }));
      if (run.unknownCount) note('trained-unknown', t('steps.trained.unknown', { count: run.unknownCount, list: run.unknown.join(', ') || '—' }), 'warn');
      if (run.cut) note('trained-cut', t('steps.trained.cut', { n: run.labels.length - 1, cut: run.cut }), 'warn');
    }
    return out;
  }

  #build() {
    const select = el('select', { id: 'weights', 'data-key': 'weights' }, el('option', { value: 'random' }), el('option', { value: 'trained' }));
    select.addEventListener('change', () => this.#host.setAttribute('weights', select.value));
    el('label', { class: 'row', 'data-role': 'weights' }, el('span'), select);
    return select;
  }
}
