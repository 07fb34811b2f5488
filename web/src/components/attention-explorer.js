// <attention-explorer>: the input model's controls and every panel, sharing
// one configuration. Emits `attention-change` with the whole state whenever
// anything changes, so a page can keep it in the URL; that state includes the
// panels' own settings (read from their attributes, watched by a MutationObserver),
// and `panelSettings = state` gives them back to the panels when a link is opened.
// With the `sync-url` attribute the explorer keeps that state in the page's URL itself.
// The settings and their URL keys are the tables of config.js; the controls are built
// in explorer-controls.js.
import { AttentionElement } from '../base.js';
import { CONFIG_ATTRIBUTES, CONFIG_FIELDS, PANEL_SETTINGS, TYPED_MATRICES, VIEW_FIELDS, panelSetting, readerOutOfRange, settingValue } from '../config.js';
import { decodeMatrixText, encodeMatrixText } from '../state.js';
import { loadPanel } from '../panel-loader.js';
import { EXPLORER_TAG, PANELS, panelById } from '../panels.js';
import { applyUrlState, followInUrl } from '../url-sync.js';
import { checkTyped, panelTabs, settingsForm, settingsShown, typedBoxes } from './explorer-controls.js';

// Given to every panel as they are on the explorer.
const PASS_THROUGH = [...CONFIG_ATTRIBUTES, 'lang'];
// The explorer's own attributes kept in its state, and those a panel takes from it.
const VIEW_ATTRIBUTES = VIEW_FIELDS.filter((f) => f.attribute && f.attribute !== 'panel');
const FOR_PANELS = VIEW_FIELDS.filter((f) => f.panel);
// A typed matrix goes into the link only when its text is at most this long.
const URL_TEXT = 400;

/** Set `name` on `node` to `value` (null removes it), writing only when it differs. */
function setAttr(node, name, value) {
  if (value === null) node.removeAttribute(name);
  else if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export class AttentionExplorer extends AttentionElement {
  static tag = EXPLORER_TAG;
  /** The controls, typed boxes and panels, once built (see #build). */
  #ui = null;
  /** Panel settings given before the panels exist. */
  #pending = null;
  /** The typed matrices' texts ({ x, wq, … }) and those in use ({ X, Wq, … }). */
  #typedText = {};
  #used = {};
  /** What the panels were last given: the used matrices' signature and the `inputs` object. */
  #usedKey = '';
  #passed = null;
  /** The sizes and language the typed matrices were last checked for, and the labels' language. */
  #typedKey = '';
  #lang = '';
  /** With `sync-url`: the URL writer (see url-sync.js) while connected. */
  #url = null;
  /** The panels whose code is loading, by id: each defines its element, or shows why it could not. */
  #loading = new Map();

  static get observedAttributes() {
    return [...super.observedAttributes, 'panel'];
  }

  /**
   * `sync-url`: read the state from the page's URL when connected, and write it back on every
   * change (other query parameters and the fragment are kept). One such explorer per page.
   */
  connectedCallback() {
    if (this.hasAttribute('sync-url') && !this.#url) {
      applyUrlState(this, location.search, { lang: true });
      this.#url = followInUrl(this);
    }
    super.connectedCallback();
  }

  disconnectedCallback() {
    this.#url?.stop();
    this.#url = null;
    super.disconnectedCallback();
  }

  attributeChangedCallback(name, before, after) {
    super.attributeChangedCallback(name, before, after);
    // A language set by the host page is part of the link too.
    if (name === 'lang' && before !== after) this.#url?.follow(this.state);
  }

  /** The notes of what was changed; the shown panel's reader (weights="reader") leaves the sentence's token cut out, as the panel does. */
  outOfRange() {
    const changed = super.outOfRange();
    const weights = panelSetting(this.panel, 'weights');
    const shown = this.#ui?.panels[this.panel];
    return weights && shown && settingValue(weights, shown.getAttribute('weights')) === 'reader' ? readerOutOfRange(changed) : changed;
  }

  get panel() {
    const p = this.getAttribute('panel');
    return panelById(p) ? p : PANELS[0].id;
  }

  /** As every element's (base.js), once the shown panels' code has arrived and their elements are defined. */
  get updateComplete() {
    const settled = async () => {
      for (;;) {
        await super.updateComplete;
        if (!this.#loading.size) return true;
        await Promise.all(this.#loading.values());
      }
    };
    return settled();
  }

  /**
   * Define panel `id`'s element when its code is not loaded yet: with the all-in-one module every
   * panel is defined already; with the explorer's own entry point each arrives on its first show.
   */
  #defineShown(id) {
    if (customElements.get(panelById(id).tag) || this.#loading.has(id)) return;
    const loading = loadPanel(id)
      .then((element) => element.define())
      .catch((error) => {
        this.#ui.panels[id].textContent = this.t('explorer.panelLoadFailed', { msg: error?.message ?? String(error) });
      })
      .finally(() => this.#loading.delete(id));
    this.#loading.set(id, loading);
  }

  /** The whole state, as written to the URL by the page. */
  get state() {
    const view = Object.fromEntries(VIEW_ATTRIBUTES.map((f) => [f.property, this.getAttribute(f.attribute) || undefined]));
    return { ...this.config(), ...view, panel: this.panel, lang: this.language, ...this.panelSettings, ...this.typedState() };
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
    for (const { property, panel, attribute, written } of PANEL_SETTINGS) {
      let v = this.#ui ? this.#ui.panels[panel].getAttribute(attribute) : this.#pending?.[property];
      if (v === null || v === undefined) continue;
      if (attribute === 'positional' && v === '') v = '1';
      out[property] = String(v).slice(0, written);
    }
    return out;
  }
  set panelSettings(settings) {
    const given = {};
    for (const { property, applied } of PANEL_SETTINGS) {
      const v = settings?.[property];
      if (v !== undefined) given[property] = v === null ? null : String(v).slice(0, applied);
    }
    if (!this.#ui) {
      this.#pending = { ...this.#pending, ...given };
      return;
    }
    for (const { property, panel, attribute } of PANEL_SETTINGS) {
      if (!(property in given)) continue;
      // positional=1 is the attribute present without a value, as the panel's checkbox sets it.
      setAttr(this.#ui.panels[panel], attribute, attribute === 'positional' && given[property] === '1' ? '' : given[property]);
    }
  }

  /** The typed matrices in use, as short text for the URL ({ x, wq, … }; long ones are left out). */
  typedState() {
    const out = {};
    for (const { input, key } of TYPED_MATRICES) {
      const text = this.#used[input] ? encodeMatrixText(this.#typedText[key] ?? '') : null;
      if (text && text.length <= URL_TEXT) out[key] = text;
    }
    return out;
  }

  /** Texts of the typed matrices ({ x, wq, wk, wv, wo }, in the URL's short form or as typed). */
  get typed() {
    return { ...this.#typedText };
  }
  set typed(texts) {
    this.#typedText = {};
    for (const { key } of TYPED_MATRICES) if (typeof texts?.[key] === 'string') this.#typedText[key] = decodeMatrixText(texts[key]);
    if (!this.#ui) return;
    for (const { key } of TYPED_MATRICES) this.#ui.typed[key].area.value = this.#typedText[key] ?? '';
    if (Object.values(this.#typedText).some((text) => text)) this.#ui.showTyped();
    this.#applyTyped();
  }

  #changed() {
    this.emit('attention-change', this.state);
  }

  /** The panel elements by id ({ steps, heads, …, cross, … }), once built; a panel links to another through them. */
  get panels() {
    return this.#ui ? { ...this.#ui.panels } : undefined;
  }

  /** Show panel `id` (and fire `attention-change`). */
  selectPanel(id) {
    this.setAttribute('panel', id);
    this.#changed();
  }

  #build() {
    const t = this.t;
    const { form, fold, summary, fields, controls } = settingsForm(t, (attribute, value) => {
      this.setAttribute(attribute, value);
      this.#changed();
    });
    const { details, boxes, show } = typedBoxes(
      t,
      this.#typedText,
      (key, text) => {
        this.#typedText[key] = text;
        this.#applyTyped();
        this.#changed();
      },
      () => this.t,
    );
    const { tablist, tabs, elements } = panelTabs(t, PANELS, (id, focus) => {
      this.selectPanel(id);
      if (focus) tabs[id].focus();
    });
    fold.append(details);
    this.root.replaceChildren(form, tablist, ...Object.values(elements));
    this.#ui = { controls, fields, fold, summary, typedDetails: details, typed: boxes, showTyped: show, tablist, tabs, panels: elements };
    this.#listen(elements);
    const pending = this.#pending;
    this.#pending = null;
    if (pending) this.panelSettings = pending;
  }

  /** The panels' events and own settings: whatever sets them (their controls, a script), the state follows. */
  #listen(panels) {
    this.shadowRoot.addEventListener('attention-step', (e) => {
      if (e.target === this) return;
      this.setAttribute('step', e.detail.step);
      if (e.detail.head !== undefined) this.setAttribute('head', String(e.detail.head));
      this.#changed();
    });
    this.shadowRoot.addEventListener('attention-pooling', (e) => {
      this.setAttribute('kernel', e.detail.kernel);
      this.setAttribute('bandwidth', String(e.detail.bandwidth));
      this.#changed();
    });
    const watched = new MutationObserver((records) => {
      if (!records.some((r) => r.oldValue !== r.target.getAttribute(r.attributeName))) return;
      this.#showFields(this.config()); // trained weights chosen in a panel, or put back
      this.showOutOfRange(); // the reader shown or not: the page's cut of the sentence applies or not
      this.#changed();
    });
    for (const { id } of PANELS) {
      const attributeFilter = PANEL_SETTINGS.filter((s) => s.panel === id).map((s) => s.attribute);
      if (attributeFilter.length) watched.observe(panels[id], { attributes: true, attributeFilter, attributeOldValue: true });
    }
    // The head picked in the backward panel (the reader's head picker) is the head both panels follow,
    // as the steps panel's is (its attention-step event above).
    const picked = new MutationObserver(() => {
      const head = panels.backward.getAttribute('head');
      if (head === null || head === this.getAttribute('head')) return;
      this.setAttribute('head', head);
      this.#changed();
    });
    picked.observe(panels.backward, { attributes: true, attributeFilter: ['head'] });
  }

  /** Checks the typed matrices and gives the used ones to every panel (with the `inputs` property's). */
  #applyTyped() {
    const { used, signature } = checkTyped(this.t, this.config(), this.#typedText, this.#ui.typed);
    this.#used = used;
    // The panels get new inputs (and recompute) only when what is used changed.
    if (signature === this.#usedKey && this.#passed === this.inputs) return;
    this.#usedKey = signature;
    this.#passed = this.inputs;
    for (const panel of Object.values(this.#ui.panels)) panel.inputs = { ...this.inputs, ...used };
  }

  render() {
    if (!this.#ui) this.#build();
    const c = this.config();
    const lang = this.language;
    // Typed data given to the explorer (its `inputs` property) goes to every panel; typed
    // matrices are checked again when the sizes (or the language of their statuses) change.
    const typedKey = `${c.dModel}|${c.dK}|${c.heads}|${lang}`;
    if (this.#passed !== this.inputs || this.#typedKey !== typedKey) {
      this.#typedKey = typedKey;
      this.#applyTyped();
    }
    // Labels are rewritten only when the language changes (rewriting a text relays it out).
    if (this.#lang !== lang) {
      this.#lang = lang;
      const t = this.t;
      this.root.setAttribute('lang', lang);
      for (const node of this.root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
      this.#ui.tablist.setAttribute('aria-label', t('app.panels'));
    }
    this.#showSettings(c);
    this.#showPanels(lang);
  }

  /** The controls show the settings as used (not the one being edited). */
  #showSettings(c) {
    const { controls } = this.#ui;
    for (const { attribute, property } of CONFIG_FIELDS) {
      const input = controls[attribute];
      if (this.shadowRoot.activeElement !== input && input.value !== String(c[property])) input.value = String(c[property]);
    }
    const validLen = controls['valid-len'];
    if (validLen.disabled !== (c.mask !== 'padding')) validLen.disabled = c.mask !== 'padding';
    this.#showFields(c);
  }

  /**
   * Only the settings that change the shown panel's numbers (settingsShown: the table's `usedBy`;
   * with trained weights, the sentence alone), the folded ones' values in the fold's summary.
   */
  #showFields(c) {
    const { fields, fold, summary, typedDetails, panels } = this.#ui;
    const t = this.t;
    const active = this.panel;
    // Trained weights of either kind (the grammar model, or the reader trained on real text) read the sentence alone.
    const weights = panelSetting(active, 'weights');
    const trained = Boolean(weights) && settingValue(weights, panels[active]?.getAttribute('weights')) !== weights.default;
    const shown = new Set(settingsShown(active, trained));
    const values = [];
    for (const { attribute, property } of CONFIG_FIELDS) {
      const hide = !shown.has(attribute);
      if (fields[attribute].hidden !== hide) fields[attribute].hidden = hide;
      if (hide || attribute === 'sentence' || attribute === 'tokens' || (attribute === 'valid-len' && c.mask !== 'padding')) continue;
      values.push(`${t(`input.${property}`)} ${attribute === 'mask' ? t(`mask.${c.mask}`) : c[property]}`);
    }
    const typedHidden = !shown.has('d-model');
    if (typedDetails.hidden !== typedHidden) typedDetails.hidden = typedHidden;
    const foldHidden = values.length === 0 && typedHidden;
    if (fold.hidden !== foldHidden) fold.hidden = foldHidden;
    const text = values.join(' · ');
    if (summary.textContent !== text) summary.textContent = text;
  }

  /** Every panel gets the shared attributes; the shown one its tab selected; step, head, kernel, bandwidth their panel. */
  #showPanels(lang) {
    const { panels, tabs } = this.#ui;
    const active = this.panel;
    this.#defineShown(active);
    for (const [id, panel] of Object.entries(panels)) {
      for (const name of PASS_THROUGH) setAttr(panel, name, name === 'lang' ? lang : this.getAttribute(name));
      panel.hidden = id !== active;
      tabs[id].setAttribute('aria-selected', String(id === active));
      tabs[id].tabIndex = id === active ? 0 : -1;
    }
    for (const { attribute, panel, alsoPanels = [] } of FOR_PANELS) {
      const v = this.getAttribute(attribute);
      if (v !== null) for (const id of [panel, ...alsoPanels]) setAttr(panels[id], attribute, v);
    }
  }
}
