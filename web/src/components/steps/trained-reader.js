// weights="reader": the reader trained on real text (lab.loadReader, an encoder and a decoder over
// one shared tokenizer), shared by the panels that offer it. The reader of the page's language is
// fetched with the training build only when this choice is made (getReader in training-lab.js),
// once per language. This part holds the load, the encoder/decoder switch (`reader-model`) and the
// notes every reader view shows: what the model is, the pieces the tokenizer makes of the sentence
// (reader.tokenize), and the library's note when the sentence is longer than the model reads.
import { DEFAULT_SENTENCE, panelSetting, settingValue } from '../../config.js';
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { onFrame } from '../../scheduler.js';
import { getReader } from '../../training-lab.js';
import { READER_MODELS, piecesOf } from '../../trained/reader-view.js';

/** The rules of the notes (adopted by each panel that offers the reader): the pieces in a row of boxes. */
export const READER_NOTES_CSS = `
.reader-pieces ol.pieces { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.25rem 0; padding: 0; list-style: none; }
.reader-pieces ol.pieces li { padding: 0 0.3rem; border: 1px solid var(--_border, #999); border-radius: 0.2rem; font-family: var(--_mono, monospace); white-space: pre; }
`;

/**
 * `value` in the next frame: the first render after the reader has loaded runs there, a task of its
 * own, not in the load's (on the lesson's first load in Chromium the two took 260–290 ms as one task).
 */
/** The layer and head pickers: the select's id and its label's data-role (the strings: reader.<which>, reader.<which>Option). */
const PICKERS = { layer: { id: 'layer', role: 'layer' }, head: { id: 'reader-head', role: 'reader-head' } };

const inNextFrame = (value) => new Promise((resolve) => onFrame(() => resolve(value)));

/** The layers of the reader's `model`. */
const layersOf = (reader, model) => (model === 'encoder' ? reader.models.encoder.encoderLayers : reader.models.decoder.decoderLayers);

export class TrainedReader {
  #host;
  #panel;
  /** Per language: { status: 'loading' | 'ready' | 'failed', loaded?, error?, retry? }. */
  #states = new Map();
  #switch = null;
  #strip = null;
  #pieces = null;

  #layers;
  #heads;
  #selects = {}; // the layer and head pickers' <select>s, made on first use

  /**
   * `host`: the panel whose `weights`, `reader-model` and `sentence` this reads; `panel`: its id in
   * the settings table; `layers`: a layer picker (the host's `layer`), for a panel that shows one layer;
   * `heads`: a head picker (the host's `head`), for a panel that shows one head and has none of its own.
   */
  constructor(host, { panel, layers = false, heads = false }) {
    this.#host = host;
    this.#panel = panel;
    this.#layers = layers;
    this.#heads = heads;
  }

  /** The head shown: the `head` attribute (from 0) kept within the model's heads (0 before the reader has loaded). */
  get head() {
    const given = Math.max(0, Math.floor(Number(this.#host.getAttribute('head'))) || 0);
    const reader = this.#states.get(this.#host.language)?.loaded?.reader;
    return reader ? Math.min(given, reader.models[this.model].heads - 1) : 0;
  }

  /** The layer shown (with a picker): the `layer` attribute kept within the model's layers (0 before the reader has loaded). */
  get layer() {
    const given = settingValue(panelSetting(this.#panel, 'layer'), this.#host.getAttribute('layer'));
    const reader = this.#states.get(this.#host.language)?.loaded?.reader;
    return reader ? Math.min(given, layersOf(reader, this.model) - 1) : 0;
  }

  get on() {
    return settingValue(panelSetting(this.#panel, 'weights'), this.#host.getAttribute('weights')) === 'reader';
  }

  /** 'encoder' or 'decoder' (the `reader-model` attribute, as the settings table reads it). */
  get model() {
    return settingValue(panelSetting(this.#panel, 'reader-model'), this.#host.getAttribute('reader-model'));
  }

  /** The reader's sentence: the `sentence` attribute, or the page's default one. */
  get sentence() {
    const s = this.#host.getAttribute('sentence');
    return s && s.trim() ? s : DEFAULT_SENTENCE[this.#host.language] ?? DEFAULT_SENTENCE.en;
  }

  /** The reader of the page's language once loaded ({ lab, reader }), else null: the load starts, and its end renders again. */
  use() {
    if (!this.on) return null;
    const lang = this.#host.language;
    let state = this.#states.get(lang);
    if (!state || state.retry) {
      state = { status: 'loading' };
      this.#states.set(lang, state);
      const done = (update) => {
        Object.assign(state, update);
        this.#host.requestRender();
      };
      this.#host.waitFor(getReader(lang).then(inNextFrame).then((loaded) => done({ status: 'ready', loaded }), (error) => done({ status: 'failed', error })));
    }
    return state.status === 'ready' ? state.loaded : null;
  }

  /**
   * The loading or error note; once loaded, the encoder/decoder switch, what the model is, the
   * tokenizer's pieces of the sentence and (`truncated`: the library's note of the run shown) the cut.
   */
  nodes(t, truncated) {
    const state = this.#states.get(this.#host.language) ?? { status: 'loading' };
    if (state.status === 'loading') return [el('p', { class: 'muted', 'data-role': 'reader-loading', text: t('reader.loading') })];
    if (state.status === 'failed') {
      state.retry = true;
      return [el('p', { class: 'error', role: 'alert', 'data-role': 'reader-error', text: errorText(t, state.error, { key: 'reader.error' }) })];
    }
    const { reader } = state.loaded;
    const model = this.model;
    const c = reader.models[model];
    const out = [this.#modelSwitch(t)];
    const layers = layersOf(reader, model);
    if (this.#layers) out.push(this.#picker(t, 'layer', layers));
    if (this.#heads) out.push(this.#picker(t, 'head', c.heads));
    out.push(el('p', { class: 'note', 'data-role': 'reader-about', text: t(`reader.about.${model}`, { layers, heads: c.heads, width: c.dModel, max: reader.maxLength, corpus: t('reader.corpus') }) }));
    out.push(this.#pieceStrip(t, piecesOf(reader, this.sentence)));
    if (truncated) out.push(el('p', { class: 'warn', 'data-role': 'reader-truncated', text: t('reader.truncated', { total: truncated.total, read: truncated.read, max: reader.maxLength }) }));
    return out;
  }

  /** The encoder/decoder switch (`reader-model`). */
  #modelSwitch(t) {
    if (!this.#switch) {
      const select = el('select', { id: 'reader-model', 'data-key': 'reader-model' }, ...READER_MODELS.map((value) => el('option', { value })));
      select.addEventListener('change', () => this.#host.setAttribute('reader-model', select.value));
      this.#switch = el('label', { class: 'row', 'data-role': 'reader-model' }, el('span'), select);
    }
    const select = this.#switch.lastChild;
    READER_MODELS.forEach((m, k) => (select.options[k].textContent = t(`reader.model.${m}`)));
    select.value = this.model;
    this.#switch.firstChild.textContent = t('reader.model');
    return this.#switch;
  }

  /**
   * The layer or head picker (`which`), one option per layer or head of the model shown; it sets the
   * host's attribute of that name. Made once, its options and texts kept up to date.
   */
  #picker(t, which, count) {
    const { id, role } = PICKERS[which];
    if (!this.#selects[which]) {
      const select = el('select', { id, 'data-key': which });
      select.addEventListener('change', () => this.#host.setAttribute(which, select.value));
      el('label', { class: 'row', 'data-role': role }, el('span'), select);
      this.#selects[which] = select;
    }
    const select = this.#selects[which];
    while (select.options.length > count) select.lastChild.remove();
    while (select.options.length < count) select.append(el('option', { value: String(select.options.length) }));
    [...select.options].forEach((o, k) => (o.textContent = t(`reader.${which}Option`, { [which]: k + 1 })));
    select.value = String(this[which]);
    select.previousSibling.textContent = t(`reader.${which}`);
    return select.parentNode;
  }

  /** The tokenizer's pieces of the sentence ('▁' starts a word), one item each, kept while they stay. */
  #pieceStrip(t, pieces) {
    this.#strip ??= el('div', { class: 'note reader-pieces', 'data-role': 'reader-pieces' }, el('p'), el('ol', { class: 'pieces' }));
    this.#strip.firstChild.textContent = t('reader.pieces', { count: pieces.length });
    const key = pieces.join('\u0000');
    if (this.#pieces !== key) {
      this.#pieces = key;
      this.#strip.lastChild.replaceChildren(...pieces.map((p) => el('li', { text: p })));
    }
    return this.#strip;
  }
}
