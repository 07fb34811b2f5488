// What every attention-lab element shares: a shadow root with the styles,
// configuration from attributes (or the `inputs` property), the language,
// batched re-rendering once the WASM library is loaded, and composed events.
import { usedScheme } from './colors.js';
import { errorText } from './error-text.js';
import { fillsPending, whenFilled } from './heatmap.js';
import { drawAll, recheckThemes } from './heatmap/frame.js';
import { onIdle } from './scheduler.js';
import { getLab } from './lab.js';
import { markScrollRegions } from './scroll-regions.js';
import { pickLang, translator } from './i18n.js';
import { CONFIG_ATTRIBUTES, LOOK_FIELDS, givenConfig, normalise, outOfRange, panelAttributes } from './config.js';
import { PANELS } from './panels.js';
import { parseTokens } from './own-numbers.js';
import { adoptStyles } from './styles.js';

const THEME = LOOK_FIELDS.find((f) => f.attribute === 'theme');

export class AttentionElement extends HTMLElement {
  static tag = '';
  #inputs = {};
  #queued = false;
  #waiting = 0; // promises waitFor() keeps updateComplete pending on
  #renders = 0;
  #kept = new Map();
  #regionsQueued = false;
  #outOfRangeNote = null;
  #width = 0;
  #failed = false;
  #settledWaiters = [];
  #upgraded = false;
  // A new width may make a formula or table overflow (or stop overflowing).
  #resized = typeof ResizeObserver === 'function' ? new ResizeObserver(([entry]) => this.#widthChanged(entry)) : null;

  /**
   * Resolves (to true) once nothing is pending: the library loaded (or its failure shown), no render
   * queued, every heatmap's cells and tables written (data-ready), the same for every attention-lab
   * element shown inside this one, and no keyed idle work left in the page (scheduler.js). Like Lit's `updateComplete`: a page or a test awaits
   * it after a change instead of polling `data-ready`. An element hidden or out of the document has
   * nothing pending.
   */
  get updateComplete() {
    return this.#ownWorkDone()
      .then(() => this.#nestedWorkDone())
      .then(() => new Promise((resolve) => whenFilled(resolve))) // idle work queued outside a render too (nodes a reset took out)
      .then(() => true);
  }

  /** Nothing of this element's own waits (see updateComplete). */
  get #settled() {
    return !this.isConnected || this.hidden || this.#failed || (!this.#queued && !this.#waiting && 'ready' in this.dataset);
  }

  #ownWorkDone() {
    return new Promise((resolve) => {
      this.#settledWaiters.push(resolve);
      this.#resolveIfSettled();
    });
  }

  #resolveIfSettled() {
    if (this.#settled) for (const resolve of this.#settledWaiters.splice(0)) resolve();
  }

  /** The attention-lab elements shown in this one's shadow root, each settled (again, if one rendered meanwhile). */
  async #nestedWorkDone() {
    for (;;) {
      const pending = [...this.shadowRoot.querySelectorAll('*')].filter((el) => el instanceof AttentionElement && !el.closest('[hidden]') && !el.#settled);
      if (!pending.length) return;
      await Promise.all(pending.map((el) => el.updateComplete));
    }
  }

  /** Register the element (once) under `tag`. */
  static define(tag = this.tag) {
    if (!customElements.get(tag)) customElements.define(tag, this);
    return this;
  }

  /** The shared attributes, and a panel's own from the settings table (its row in panels.js names it by tag). */
  static get observedAttributes() {
    const own = PANELS.find((p) => p.tag === this.tag);
    return [...new Set([...CONFIG_ATTRIBUTES, ...LOOK_FIELDS.map((f) => f.attribute), 'lang', 'step', 'head', 'kernel', 'bandwidth', 'hidden', ...(own ? panelAttributes(own.id) : [])])];
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    adoptStyles(this.shadowRoot);
    this.root = document.createElement('div');
    this.root.className = 'root';
    this.root.setAttribute('part', 'base');
    this.shadowRoot.append(this.root);
    // A box in a <details> is measured for scroll regions once the details opens.
    this.root.addEventListener('toggle', (event) => event.target.open && this.#markRegions(), { capture: true });
  }

  connectedCallback() {
    if (!this.#upgraded) this.#takeEarlyProperties();
    this.#resized?.observe(this);
    this.requestRender();
  }

  /**
   * Properties set before the element was defined (by a page, or by the explorer before a panel's
   * code arrived) are the element's own and hide the class's setters: hand each to its setter.
   */
  #takeEarlyProperties() {
    this.#upgraded = true;
    for (const name of Object.keys(this)) {
      if (name === 'root') continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
  }

  /** Taken out of the document: nothing of it is pending any more (updateComplete resolves). */
  disconnectedCallback() {
    this.#resolveIfSettled();
  }

  #widthChanged(entry) {
    // Taken out of the page (a 0×0 entry): no longer watched (subclasses own disconnectedCallback).
    if (!this.isConnected) return this.#resized.unobserve(this);
    const width = Math.round(entry.contentRect.width);
    if (width === this.#width) return;
    this.#width = width;
    this.#markRegions();
  }

  /** When the page is next idle: the boxes that scroll sideways become named, focusable regions. */
  #markRegions() {
    if (this.#regionsQueued) return;
    this.#regionsQueued = true;
    onIdle(() => {
      this.#regionsQueued = false;
      if (this.isConnected && !this.hidden) markScrollRegions(this.root, this.t);
    });
  }

  attributeChangedCallback(name, before, after) {
    if (before === after) return;
    // CSS gives the new colours; the canvases (here and in nested panels) are drawn again.
    if (name === 'theme') recheckThemes();
    this.requestRender();
  }

  /** `theme`: 'auto' (the page's colour scheme, the default), 'light' or 'dark'. */
  get theme() {
    const given = (this.getAttribute('theme') ?? '').toLowerCase();
    return THEME.choices.includes(given) ? given : THEME.default;
  }
  set theme(value) {
    this.setAttribute('theme', String(value));
  }

  /** The colours the element is drawn in now: 'light' or 'dark' (its theme, or the page's scheme). */
  get colorScheme() {
    return usedScheme(getComputedStyle(this).colorScheme, matchMedia('(prefers-color-scheme: dark)').matches);
  }

  /** Draw now every heatmap of the page that waits (off screen, or for the next frame): before a capture. */
  drawAll() {
    drawAll();
  }

  /** The author's numbers: { X, Wq, Wk, Wv, Wo }, { Q, K, V } or { weights }, with `tokens` (own-numbers.js). */
  get inputs() {
    return this.#inputs;
  }
  set inputs(value) {
    this.#inputs = value ?? {};
    this.requestRender();
  }

  /** The author's tokens, one per row (the `tokens` attribute, kept as JSON); null when not set. */
  get tokens() {
    const text = this.getAttribute('tokens');
    return text ? parseTokens(text) : null;
  }
  set tokens(list) {
    if (list === null || list === undefined) this.removeAttribute('tokens');
    else this.setAttribute('tokens', JSON.stringify(Array.from(list, String)));
  }

  /** 'en' or 'zh-CN', from the lang attribute, the nearest ancestor's, or the browser. */
  get language() {
    const own = this.getAttribute('lang') || this.closest?.('[lang]')?.getAttribute('lang');
    const host = this.getRootNode()?.host;
    return pickLang(own || host?.language || navigator.language);
  }

  get t() {
    return translator(this.language);
  }

  /** The input model's settings from the attributes, defaults filled in (the sentence in the element's language). */
  config() {
    return normalise(givenConfig(this), this.language);
  }

  /**
   * Attributes used other than as given ({ name, given, used }): the input model's, plus a
   * subclass's own (override and add to super's). An element inside another attention-lab
   * element leaves the input model's to its host, which shows them once.
   */
  outOfRange() {
    const model = this.getRootNode()?.host instanceof AttentionElement ? [] : outOfRange(givenConfig(this));
    const theme = this.getAttribute('theme');
    return theme && theme.toLowerCase() !== this.theme ? [...model, { name: 'theme', given: theme, used: this.theme }] : model;
  }

  /** Add { name, given, used } to `changed` when attribute `name` is set and `used` differs from it. */
  noteAttribute(changed, name, used) {
    const given = this.getAttribute(name);
    if (given !== null && given !== '' && given !== String(used) && Number(given) !== used) changed.push({ name, given, used: String(used) });
    return changed;
  }

  /** A visible note (role=status) at the top listing what was clamped or refused. */
  showOutOfRange() {
    // The last render's note, by reference: a query of the root's children scanned the whole
    // shadow tree (0.2–0.5 ms per render with a few heatmaps' tables).
    this.#outOfRangeNote?.remove();
    this.#outOfRangeNote = null;
    const changed = this.outOfRange();
    if (!changed.length) return;
    const t = this.t;
    const cut = (v) => (v.length > 24 ? `${v.slice(0, 23)}…` : v);
    const items = changed.map((c) => `${c.name}: ${c.unit ? t(c.unit === 'tokens' ? 'input.outOfRangeTokens' : 'input.outOfRangeCharacters', c) : `${cut(c.given)} → ${c.used}`}`);
    const p = document.createElement('p');
    p.className = 'warn';
    p.dataset.role = 'out-of-range';
    p.setAttribute('role', 'status');
    p.setAttribute('part', 'out-of-range');
    p.textContent = t('input.outOfRange', { list: items.join('; ') });
    this.root.prepend(p);
    this.#outOfRangeNote = p;
  }

  /**
   * Keep `updateComplete` pending until `work` (a promise a render started, such as a trained
   * checkpoint loading, whose end asks for the next render) has settled. Returns `work`.
   */
  waitFor(work) {
    this.#waiting++;
    const done = () => {
      this.#waiting--;
      this.#resolveIfSettled();
    };
    work.then(done, done);
    return work;
  }

  requestRender() {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => this.#renderWhenLoaded());
  }

  async #renderWhenLoaded() {
    if (!this.lab && !(await this.#load())) return;
    this.#queued = false;
    // A hidden element (an explorer panel not shown) renders when it is shown.
    if (!this.isConnected || this.hidden) return this.#resolveIfSettled();
    const focused = this.shadowRoot.activeElement?.closest?.('[data-key]')?.dataset.key;
    try {
      this.render(this.lab);
    } catch (error) {
      this.showError(error);
    }
    this.showOutOfRange();
    if (focused && !this.shadowRoot.activeElement) this.shadowRoot.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    this.#markReady();
    this.#markRegions();
    this.emit('attention-render', {});
  }

  /** Load the library once ("Loading…" meanwhile); false, with the error shown, when it cannot load. */
  async #load() {
    if (!this.root.childElementCount) {
      const p = document.createElement('p');
      p.className = 'muted';
      p.textContent = this.t('app.loading');
      this.root.append(p);
    }
    try {
      this.lab = await this.loadLibrary();
      return true;
    } catch (error) {
      // E.g. a Content-Security-Policy without 'wasm-unsafe-eval': say so instead of "Loading…" forever.
      this.#queued = false;
      this.#failed = true;
      this.showError(error, 'error.load');
      this.#resolveIfSettled();
      return false;
    }
  }

  /** The library build this element renders with: the shared inference one (a subclass may load another). */
  loadLibrary() {
    return getLab();
  }

  /**
   * `data-ready` once every heatmap's cells show this render (labels, data-value and off-screen
   * heatmaps are filled when the page is next idle, see heatmap.js); a later render takes over.
   */
  #markReady() {
    const render = ++this.#renders;
    if (!fillsPending()) {
      this.dataset.ready = '';
      this.#resolveIfSettled();
      return;
    }
    delete this.dataset.ready;
    whenFilled(() => {
      if (this.#renders !== render) return;
      this.dataset.ready = '';
      this.#resolveIfSettled();
    });
  }

  showError(error, key = 'error.generic') {
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = errorText(this.t, error, { key });
    this.root.replaceChildren(p);
  }

  /**
   * The node `make()` returns, kept between renders while `key` stays the same (e.g. a heading in
   * one language): a kept node is neither rebuilt nor laid out again.
   */
  keep(name, key, make) {
    const hit = this.#kept.get(name);
    if (hit?.key === key) return hit.node;
    const node = make();
    this.#kept.set(name, { key, node });
    return node;
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /** Subclasses draw into this.root here. */
  render() {}
}
