// <attention-explorer>: the input model's controls and every panel, sharing
// one configuration. Emits `attention-change` with the whole state whenever
// anything changes, so a page can keep it in the URL; that state includes the
// panels' own settings (read from their attributes, watched by a MutationObserver),
// and `panelSettings = state` gives them back to the panels when a link is opened.
import { AttentionElement, CONFIG_ATTRIBUTES } from '../base.js';
import { el } from '../dom.js';
import { LIMITS, parseMatrixText } from '../model.js';
import { decodeMatrixText, encodeMatrixText } from '../state.js';

const PANELS = [
  ['steps', 'attention-steps'],
  ['heads', 'attention-heads'],
  ['compare', 'attention-compare'],
  ['scaling', 'attention-scaling'],
  ['pooling', 'attention-pooling'],
  ['cross', 'attention-cross'],
  ['positions', 'attention-positions'],
  ['cost', 'attention-cost'],
  ['transformer', 'attention-transformer'],
];
const PASS_THROUGH = [...CONFIG_ATTRIBUTES, 'lang'];
// The matrices a reader may type: [inputs key, URL/state key, name, shape for a configuration].
// X takes 1 to 32 rows (rows null); the weights take exactly their shape. W_O only with h > 1.
const TYPED = [
  ['X', 'x', 'X', (c) => [null, c.dModel]],
  ['Wq', 'wq', 'W_Q', (c) => [c.dModel, c.heads * c.dK]],
  ['Wk', 'wk', 'W_K', (c) => [c.dModel, c.heads * c.dK]],
  ['Wv', 'wv', 'W_V', (c) => [c.dModel, c.heads * c.dK]],
  ['Wo', 'wo', 'W_O', (c) => [c.heads * c.dK, c.dModel]],
];
// A typed matrix goes into the link only when its text is at most this long.
const URL_TEXT = 400;
// The panels' own settings, kept in the state (and so in the URL) from the panels' attributes:
// [state field, panel, attribute, longest value written, longest value applied]. The panels
// check what they are given (a visible note for a value they cannot use, as for any attribute);
// the explorer only bounds the lengths. The source sentence has the sentence's limit: written
// cut to 400 characters, applied up to 4000 so the panel can say it was cut.
const PANEL_SETTINGS = [
  ['hiddenSize', 'compare', 'hidden-size', 16, 16],
  ['query', 'pooling', 'query', 16, 16],
  ['source', 'cross', 'source', 400, 4000],
  ['scoring', 'cross', 'scoring', 16, 16],
  ['validLens', 'cross', 'valid-lens', 200, 200],
  ['swap', 'positions', 'swap', 16, 16],
  ['window', 'cost', 'window', 16, 16],
  ['linformerK', 'cost', 'linformer-k', 16, 16],
  ['maxN', 'cost', 'max-n', 16, 16],
  ['positional', 'transformer', 'positional', 16, 16],
  ['transformerStep', 'transformer', 'step', 16, 16],
];

export class AttentionExplorer extends AttentionElement {
  static tag = 'attention-explorer';

  static get observedAttributes() {
    return [...super.observedAttributes, 'panel'];
  }

  get panel() {
    const p = this.getAttribute('panel');
    return PANELS.some(([id]) => id === p) ? p : 'steps';
  }

  /** The whole state, as written to the URL by the page. */
  get state() {
    const c = this.config();
    return {
      ...c,
      step: this.getAttribute('step') || undefined,
      head: this.getAttribute('head') || undefined,
      kernel: this.getAttribute('kernel') || undefined,
      bandwidth: this.getAttribute('bandwidth') || undefined,
      panel: this.panel,
      lang: this.language,
      ...this.panelSettings,
      ...this.typedState(),
    };
  }

  /**
   * The panels' own settings that are set ({ source, scoring, validLens, swap, window, linformerK,
   * maxN, positional, transformerStep, hiddenSize, query }; see PANEL_SETTINGS), as strings
   * bounded in length. `positional` is '1' for the attribute present without a value (and back).
   * Setting it applies the given fields to the panels as attributes (before the panels exist,
   * once they do): a string sets the attribute, null removes it, a missing field is left as is.
   * The panels' controls set these attributes, and every change of them fires `attention-change`.
   */
  get panelSettings() {
    const out = {};
    for (const [field, id, attr, max] of PANEL_SETTINGS) {
      let v = this.panels ? this.panels[id].getAttribute(attr) : this._pendingSettings?.[field];
      if (v === null || v === undefined) continue;
      if (attr === 'positional' && v === '') v = '1';
      out[field] = String(v).slice(0, max);
    }
    return out;
  }
  set panelSettings(settings) {
    const given = {};
    for (const [field, , , , max] of PANEL_SETTINGS) {
      const v = settings?.[field];
      if (v === undefined) continue;
      given[field] = v === null ? null : String(v).slice(0, max);
    }
    if (!this.panels) {
      this._pendingSettings = { ...this._pendingSettings, ...given };
      return;
    }
    for (const [field, id, attr] of PANEL_SETTINGS) {
      if (!(field in given)) continue;
      const panel = this.panels[id];
      // positional=1 is the attribute present without a value, as the panel's checkbox sets it.
      const v = attr === 'positional' && given[field] === '1' ? '' : given[field];
      if (v === null) panel.removeAttribute(attr);
      else if (panel.getAttribute(attr) !== v) panel.setAttribute(attr, v);
    }
  }

  /** The typed matrices in use, as short text for the URL ({ x, wq, … }; long ones are left out). */
  typedState() {
    const out = {};
    for (const [key, field] of TYPED) {
      const text = this._used?.[key] ? encodeMatrixText(this._typedText?.[field] ?? '') : null;
      if (text && text.length <= URL_TEXT) out[field] = text;
    }
    return out;
  }

  /** Texts of the typed matrices ({ x, wq, wk, wv, wo }, in the URL's short form or as typed). */
  get typed() {
    return { ...this._typedText };
  }
  set typed(texts) {
    this._typedText = {};
    for (const [, field] of TYPED) if (typeof texts?.[field] === 'string') this._typedText[field] = decodeMatrixText(texts[field]);
    if (this.built) {
      for (const [, field] of TYPED) this.typedAreas[field].value = this._typedText[field] ?? '';
      this.applyCustom();
    }
  }

  changed() {
    this.emit('attention-change', this.state);
  }

  build() {
    const t = this.t;
    const root = this.root;
    root.replaceChildren();
    const form = el('form', { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() });
    const field = (key, label, control, help) => {
      const id = `in-${key}`;
      control.id = id;
      control.dataset.key = key;
      const wrap = el('div', { class: 'field' }, el('label', { for: id, 'data-i18n': label, text: t(label) }), control);
      if (help) {
        const h = el('small', { class: 'muted', id: `${id}-help`, 'data-i18n': help, text: t(help) });
        control.setAttribute('aria-describedby', h.id);
        wrap.append(h);
      }
      form.append(wrap);
      return control;
    };
    const number = (min, max) => el('input', { type: 'number', min: String(min), max: String(max), step: '1', inputmode: 'numeric', style: 'width: 6.5rem' });
    this.inputsEl = {
      sentence: field('sentence', 'input.sentence', el('input', { type: 'text', maxlength: '400', style: 'width: min(26rem, 80vw)', spellcheck: 'false' }), 'input.sentenceHelp'),
      seed: field('seed', 'input.seed', number(0, 2 ** 31 - 1)),
      'd-model': field('d-model', 'input.dModel', number(1, LIMITS.maxDModel)),
      'd-k': field('d-k', 'input.dK', number(1, LIMITS.maxDk)),
      heads: field('heads', 'input.heads', number(1, LIMITS.maxHeads)),
      mask: field('mask', 'input.mask', el('select', {}, ...['none', 'causal', 'padding'].map((m) => el('option', { value: m, 'data-i18n': `mask.${m}`, text: t(`mask.${m}`) })))),
      'valid-len': field('valid-len', 'input.validLen', number(0, LIMITS.maxTokens)),
    };
    for (const [name, input] of Object.entries(this.inputsEl)) {
      input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => {
        if (input.type === 'number' && (input.value === '' || !input.checkValidity())) return;
        this.setAttribute(name, input.value);
        this.changed();
      });
    }
    root.append(form);

    // Matrices typed by hand: X, and the weights of the current sizes. Statuses are text.
    const custom = el('details', { part: 'custom-x' });
    custom.append(el('summary', { 'data-i18n': 'input.custom', text: t('input.custom') }));
    this.typedAreas = {};
    this.typedStatus = {};
    this.typedLabels = {};
    this.typedBoxes = {};
    this._typedText ??= {};
    const weights = el('div', { class: 'typed-grid' });
    for (const [, field, name] of TYPED) {
      const id = `in-${field}`;
      const area = el('textarea', { id, 'data-key': field === 'x' ? 'custom-x' : `custom-${field}`, rows: field === 'x' ? '4' : '3', spellcheck: 'false', 'aria-describedby': `${field === 'x' ? 'in-x-help' : 'in-w-help'} ${id}-status` });
      area.value = this._typedText[field] ?? '';
      const label = el('label', { for: id, class: 'matrix-label' });
      const status = el('p', { id: `${id}-status`, class: 'note', 'aria-live': 'polite' });
      const box = el('div', { class: 'typed', 'data-matrix': name }, label, area);
      if (field === 'x') box.append(el('small', { id: 'in-x-help', class: 'muted', 'data-i18n': 'input.customXHelp', text: t('input.customXHelp') }));
      box.append(status);
      if (field === 'x') custom.append(box, el('small', { id: 'in-w-help', class: 'muted', 'data-i18n': 'input.customWHelp', text: t('input.customWHelp') }), weights);
      else weights.append(box);
      area.addEventListener('input', () => {
        this._typedText[field] = area.value;
        this.applyCustom();
        this.changed();
      });
      this.typedAreas[field] = area;
      this.typedStatus[field] = status;
      this.typedLabels[field] = label;
      this.typedBoxes[field] = box;
    }
    this.customArea = this.typedAreas.x;
    this.customStatus = this.typedStatus.x;
    root.append(custom);

    const tabs = el('div', { role: 'tablist', part: 'panel-tabs', 'aria-label': t('app.panels') });
    this.panelTabs = tabs;
    this.panels = {};
    this.tabs = {};
    for (const [id, tag] of PANELS) {
      const tab = el('button', { type: 'button', role: 'tab', id: `ptab-${id}`, 'data-key': `ptab-${id}`, 'aria-controls': `panel-${id}`, 'data-i18n': `tab.${id}`, text: t(`tab.${id}`) });
      tab.addEventListener('click', () => this.selectPanel(id));
      tab.addEventListener('keydown', (e) => {
        const ids = PANELS.map(([p]) => p);
        const at = ids.indexOf(id);
        const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: ids.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        const next = ids[(to + ids.length) % ids.length];
        this.selectPanel(next);
        this.tabs[next].focus();
      });
      tabs.append(tab);
      this.tabs[id] = tab;
      const panel = document.createElement(tag);
      panel.id = `panel-${id}`;
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', `ptab-${id}`);
      panel.setAttribute('part', `panel panel-${id}`);
      this.panels[id] = panel;
    }
    root.append(tabs, ...Object.values(this.panels));
    this.shadowRoot.addEventListener('attention-step', (e) => {
      if (e.target === this) return;
      this.setAttribute('step', e.detail.step);
      if (e.detail.head !== undefined) this.setAttribute('head', String(e.detail.head));
      this.changed();
    });
    this.shadowRoot.addEventListener('attention-pooling', (e) => {
      this.setAttribute('kernel', e.detail.kernel);
      this.setAttribute('bandwidth', String(e.detail.bandwidth));
      this.changed();
    });
    // The panels' own settings: whatever sets them (their controls, a script), the state follows.
    const watched = new MutationObserver((records) => {
      if (records.some((r) => r.oldValue !== r.target.getAttribute(r.attributeName))) this.changed();
    });
    for (const [id] of PANELS) {
      const attributeFilter = PANEL_SETTINGS.filter(([, panel]) => panel === id).map(([, , attr]) => attr);
      if (attributeFilter.length) watched.observe(this.panels[id], { attributes: true, attributeFilter, attributeOldValue: true });
    }
    const pending = this._pendingSettings;
    this._pendingSettings = null;
    if (pending) this.panelSettings = pending;
    this.built = true;
  }

  selectPanel(id) {
    this.setAttribute('panel', id);
    this.changed();
  }

  /**
   * Checks each typed matrix against the current sizes, says in its status whether it is used
   * (or what it should be), and gives the used ones to every panel (with the `inputs` property's).
   */
  applyCustom() {
    const t = this.t;
    const c = this.config();
    const used = {};
    const key = [];
    for (const [name, field, label, shape] of TYPED) {
      const [rows, cols] = shape(c);
      const text = this._typedText[field] ?? '';
      const active = name !== 'Wo' || c.heads > 1;
      this.typedBoxes[field].hidden = !active;
      this.typedLabels[field].textContent = `${label} (${rows ?? 'n'}×${cols})`;
      const status = this.typedStatus[field];
      const m = active && text.trim() ? parseMatrixText(text) : null;
      if (!active || !text.trim()) status.textContent = '';
      else if (name === 'X' && m && m.cols === cols && m.rows <= LIMITS.maxTokens) {
        used.X = m;
        status.textContent = t('input.customXUsed', { rows: m.rows, cols: m.cols });
      } else if (name === 'X') status.textContent = t('input.customXBad', { rows: 1, cols });
      else if (m && m.rows === rows && m.cols === cols) {
        used[name] = m;
        status.textContent = t('input.customWUsed', { name: label, rows, cols });
      } else status.textContent = t('input.customWBad', { rows, cols });
      if (used[name]) key.push(`${name}:${encodeMatrixText(text)}`);
    }
    this._used = used;
    this.custom = used.X ?? null;
    // The panels get new inputs (and recompute) only when what is used changed.
    const signature = key.join('|');
    if (signature === this._usedKey && this._passed === this._inputs) return;
    this._usedKey = signature;
    this._passed = this._inputs;
    for (const panel of Object.values(this.panels)) panel.inputs = { ...this.inputs, ...used };
  }

  render() {
    if (!this.built) this.build();
    // Typed data given to the explorer (its `inputs` property) goes to every panel; typed
    // matrices are checked again when the sizes (or the language of their statuses) change.
    const sizes = this.config();
    const typedKey = `${sizes.dModel}|${sizes.dK}|${sizes.heads}|${this.language}`;
    if (this._passed !== this._inputs || this._typedKey !== typedKey) {
      this._typedKey = typedKey;
      this.applyCustom();
    }
    const t = this.t;
    const lang = this.language;
    // Labels are rewritten only when the language changes (rewriting a text relays it out).
    if (this._lang !== lang) {
      this._lang = lang;
      this.root.setAttribute('lang', lang);
      for (const node of this.root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
      this.panelTabs.setAttribute('aria-label', t('app.panels'));
    }
    const c = this.config();
    const values = { sentence: c.sentence, seed: c.seed, 'd-model': c.dModel, 'd-k': c.dK, heads: c.heads, mask: c.mask, 'valid-len': c.validLen };
    for (const [name, input] of Object.entries(this.inputsEl)) if (this.shadowRoot.activeElement !== input && input.value !== String(values[name])) input.value = String(values[name]);
    if (this.inputsEl['valid-len'].disabled !== (c.mask !== 'padding')) this.inputsEl['valid-len'].disabled = c.mask !== 'padding';
    const active = this.panel;
    for (const [id, panel] of Object.entries(this.panels)) {
      for (const name of PASS_THROUGH) {
        const v = name === 'lang' ? lang : this.getAttribute(name);
        if (v === null) panel.removeAttribute(name);
        else if (panel.getAttribute(name) !== v) panel.setAttribute(name, v);
      }
      panel.hidden = id !== active;
      this.tabs[id].setAttribute('aria-selected', String(id === active));
      this.tabs[id].tabIndex = id === active ? 0 : -1;
    }
    for (const name of ['step', 'head']) {
      const v = this.getAttribute(name);
      if (v !== null && this.panels.steps.getAttribute(name) !== v) this.panels.steps.setAttribute(name, v);
    }
    for (const name of ['kernel', 'bandwidth']) {
      const v = this.getAttribute(name);
      if (v !== null && this.panels.pooling.getAttribute(name) !== v) this.panels.pooling.setAttribute(name, v);
    }
  }
}
