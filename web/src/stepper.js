// The stepper of the step-by-step panels (<attention-steps>, <attention-transformer>):
// previous / next buttons with the position, and the steps as a tablist with a roving
// tabindex, arrow keys, Home and End, the selected tab scrolled into view and focus
// kept on it across the re-render a key press causes.
import { el } from './dom.js';
import { mathNodes, mathRuns, spokenMath } from './math-text.js';

/**
 * Where key `key` moves from step `at` of `count`: ArrowLeft/ArrowRight (and ArrowUp/ArrowDown
 * when `vertical`) one step, Home and End to the ends, clamped; null for any other key.
 */
export function stepMove(key, at, count, vertical = false) {
  const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: count - 1 };
  if (vertical) Object.assign(moves, { ArrowUp: at - 1, ArrowDown: at + 1 });
  if (!(key in moves)) return null;
  return Math.max(0, Math.min(count - 1, moves[key]));
}

export class Stepper {
  #go;
  #vertical;
  #index = 0;
  #count = 0;
  #tabs = null;
  #focusTab = false;

  /** `go(index)` shows step `index` (always in range); `vertical` adds the up and down arrows. */
  constructor({ go, vertical = false }) {
    this.#go = go;
    this.#vertical = vertical;
  }

  /** The shown step, `index` of `count`: call first in each render. */
  at(index, count) {
    this.#index = index;
    this.#count = count;
  }

  /** Show step `k`, clamped to the steps there are. */
  go(k) {
    this.#go(Math.max(0, Math.min(this.#count - 1, k)));
  }

  // On the group and on the tablist: a moving key goes there, and focus follows a tab's key.
  #keydown = (e) => {
    const to = stepMove(e.key, this.#index, this.#count, this.#vertical);
    if (to === null) return;
    e.preventDefault();
    this.#focusTab = e.target.getAttribute('role') === 'tab';
    this.go(to);
  };

  /**
   * The group of buttons: previous, `middle` (e.g. play), next, the position ("Step 3 of 8"), then
   * `after` (e.g. a head picker). `labels` = { group, prev, next, position }.
   */
  group(labels, { middle = [], after = [] } = {}) {
    const first = this.#index === 0;
    const last = this.#index === this.#count - 1;
    const nav = el('div', { class: 'stepper', part: 'stepper', role: 'group', 'aria-label': labels.group });
    nav.addEventListener('keydown', this.#keydown);
    nav.append(
      el('button', { type: 'button', 'data-key': 'prev', part: 'button', 'aria-label': labels.prev, text: `← ${labels.prev}`, onclick: () => this.go(this.#index - 1), ...(first ? { 'aria-disabled': 'true' } : {}) }),
      ...middle,
      el('button', { type: 'button', 'data-key': 'next', part: 'button', class: 'primary', 'aria-label': labels.next, text: `${labels.next} →`, onclick: () => this.go(this.#index + 1), ...(last ? { 'aria-disabled': 'true' } : {}) }),
      el('span', { class: 'position', 'aria-live': 'polite', text: labels.position }),
      ...after,
    );
    return nav;
  }

  /**
   * The steps as tabs (`tab-<key>`, controlling `#step-panel`), kept while `key` stays the same
   * (with their scroll position); `build()` gives { label, tabs: [{ key, content, className? }],
   * className?, between?(), subscript?(base, sub) } when they are (re)built. The shown step is
   * selected. A text content is typeset: "XW_Q" shows W with a subscript Q (<sub>), and the tab's
   * accessible name says it with `subscript` ("X W sub Q"), not as the raw "XW_Q".
   */
  tablist(key, build) {
    if (this.#tabs?.key !== key) this.#tabs = { key, selected: -1, ...this.#buildTabs(build()) };
    this.#select(this.#index);
    return this.#tabs.list;
  }

  #buildTabs({ label, tabs, className, between, subscript = (base, sub) => `${base} ${sub}` }) {
    const list = el('div', { role: 'tablist', ...(className ? { class: className } : {}), ...(this.#vertical ? { 'aria-orientation': 'vertical' } : {}), 'aria-label': label, part: 'tabs' });
    list.addEventListener('keydown', this.#keydown);
    const buttons = tabs.map((tab, k) => {
      const text = typeof tab.content === 'string' ? tab.content : null;
      const content = text !== null ? mathNodes(text) : Array.isArray(tab.content) ? tab.content : [tab.content];
      const spoken = text !== null && mathRuns(text).some((r) => r.sub) ? { 'aria-label': spokenMath(text, subscript) } : {};
      const props = { type: 'button', role: 'tab', part: 'tab', ...(tab.className ? { class: tab.className } : {}), id: `tab-${tab.key}`, 'data-key': `tab-${tab.key}`, 'aria-controls': 'step-panel', ...spoken, onclick: () => this.go(k) };
      return el('button', props, ...content);
    });
    buttons.forEach((b, k) => {
      list.append(b);
      if (between && k < buttons.length - 1) list.append(between());
    });
    return { list, buttons };
  }

  #select(index) {
    const tabs = this.#tabs;
    if (tabs.selected === index) return;
    tabs.buttons.forEach((b, k) => {
      b.setAttribute('aria-selected', String(k === index));
      b.tabIndex = k === index ? 0 : -1;
    });
    tabs.selected = index;
    // On narrow screens the tabs scroll sideways: bring the selected one into view. The observer
    // reports after the next layout, so nothing here forces one.
    const io = new IntersectionObserver(
      ([e]) => {
        io.disconnect();
        if (e.intersectionRatio < 1 && e.rootBounds) tabs.list.scrollLeft += e.boundingClientRect.left - e.rootBounds.left - 24;
      },
      { root: tabs.list },
    );
    io.observe(tabs.buttons[index]);
  }

  /** After the render placed the tabs: focus the selected tab if a key on a tab moved there. */
  refocus() {
    if (!this.#focusTab) return;
    this.#focusTab = false;
    this.#tabs?.buttons[this.#tabs.selected]?.focus();
  }
}
