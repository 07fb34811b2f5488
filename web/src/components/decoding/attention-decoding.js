// <attention-decoding>: attention as today's language models run it. The KV cache step by step
// (prefill, then one token at a time: the caches growing, the new query's weights, the work per
// token and the cache's memory for real model shapes), rotary position embedding (RoPE), ALiBi's
// per-head bias, soft-capping of the scores and a sliding window. Every number is the library's:
// lab.createKVCache and lab.kvCacheBytes, lab.rotaryEmbedding and lab.rotaryAngles,
// lab.alibiSlopes and lab.alibiBias, lab.batchedAttention (soft-cap, window, bias, trace).
import { AttentionElement } from '../../base.js';
import { panelAttributes } from '../../config.js';
import { el } from '../../dom.js';
import { place } from '../../heatmap.js';
import { mathNodes } from '../../math-text.js';
import { buildModel } from '../../model.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { AlibiSection } from './alibi-section.js';
import { settingsDetail } from './controls.js';
import { headProjections } from './kv-model.js';
import { KvSection } from './kv-section.js';
import { MemorySection } from './memory-section.js';
import { RopeSection } from './rope-section.js';
import { DECODING_NUMBERS, decodeChoice, numberSetting, shapeSetting, shapeText } from './settings.js';
import { SoftcapSection } from './softcap-section.js';
import { DECODING_CSS } from './styles.js';

/** The panel's own attributes (each a row of PANEL_SETTINGS in config.js). */
export const DECODING_ATTRIBUTES = panelAttributes('decoding');

export class AttentionDecoding extends AttentionElement {
  static tag = 'attention-decoding';

  #kv = new KvSection(this);
  #memory = new MemorySection(this);
  #rope = new RopeSection(this);
  #alibi = new AlibiSection(this);
  #softcap = new SoftcapSection(this);
  /** The sentence's token count in the last render (bounds prefill, decode-step and the window). */
  #n = null;

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, DECODING_CSS);
  }

  /** A number attribute as used (clamped to its bounds; see settings.js). */
  setting(name) {
    return numberSetting(name, this.getAttribute(name));
  }

  /** Prefill and generated tokens as used for a sentence of n tokens. */
  decodeChoice(n) {
    return decodeChoice(this.getAttribute('prefill'), this.getAttribute('decode-step'), n);
  }

  outOfRange() {
    const changed = super.outOfRange();
    const n = this.#n;
    const choice = n === null ? null : this.decodeChoice(n);
    for (const { attribute: name } of DECODING_NUMBERS) {
      let used = this.setting(name);
      if (choice && name === 'prefill') used = choice.prefill;
      if (choice && name === 'decode-step') used = choice.step;
      if (n !== null && name === 'sliding-window') used = Math.min(used, n);
      this.noteAttribute(changed, name, used);
    }
    const shape = this.getAttribute('kv-shape');
    if (shape !== null && shape.trim() !== '') {
      const used = shapeText(shapeSetting(shape));
      if (shape.trim().split(/[\s,;]+/).join(' ') !== used) changed.push({ name: 'kv-shape', given: shape, used });
    }
    return changed;
  }

  /** Fire `attention-decoding` with the panel's settings (after a control changed one). */
  emitSettings() {
    this.emit('attention-decoding', settingsDetail(this, DECODING_ATTRIBUTES));
  }

  /** Generate the next token (the cache grows by one); after the last, start again from the prefill. */
  nextToken() {
    if (this.#n === null) return;
    const { step, steps } = this.decodeChoice(this.#n);
    this.setAttribute('decode-step', String(step >= steps ? 0 : step + 1));
    this.emitSettings();
  }

  render(lab) {
    const t = this.t;
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const model = buildModel(this.config(), this.inputs);
    this.#n = model.n;
    const proj = headProjections(lab, model);
    const head = [el('h2', { text: t('decoding.heading') }), el('p', { class: 'intro' }, ...mathNodes(t('decoding.intro', { d: model.config.dK })))];
    place(this.root, [
      ...head,
      ...this.#kv.build(lab, t, proj, model.tokens, this.decodeChoice(model.n)),
      ...this.#memory.build(lab, t, shapeSetting(this.getAttribute('kv-shape')), this.setting('context')),
      ...this.#rope.build(lab, t, proj, this.setting('rope-base'), this.setting('rope-shift')),
      ...this.#alibi.build(lab, t, proj, model.tokens, this.setting('alibi-heads')),
      ...this.#softcap.build(lab, t, proj, model.tokens, this.setting('softcap'), this.setting('sliding-window')),
    ]);
  }
}
