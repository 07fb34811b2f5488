// A trained model's vocabulary as a disclosure: every word (or character) the model knows, with a
// box that filters them as the reader types (without regard to case). Built once and kept by its
// view, so what is open and what is typed survive a render; sync() writes its texts.
import { el } from '../dom.js';

/** A character as a list item: a space as ␣. */
const shown = (w) => (w === ' ' ? '␣' : w);

export class VocabularyBox {
  #ui = null;
  #words = null;

  /** The disclosure for `words` (the model's symbols, specials left out); `unit`: 'words' or 'chars'. */
  sync(t, words, unit = 'words') {
    const ui = (this.#ui ??= this.#build());
    if (this.#words !== words) {
      this.#words = words;
      ui.list.replaceChildren(...words.map((w) => el('li', { 'data-word': w, lang: 'zxx', text: shown(w) })));
      this.#filter();
    }
    ui.summary.textContent = t(`trained.vocabulary.${unit}`, { count: words.length });
    ui.label.textContent = t('trained.vocabulary.filter');
    this.#count(t);
    ui.t = t;
    return ui.box;
  }

  #filter() {
    const ui = this.#ui;
    const q = ui.input.value.trim().toLowerCase();
    for (const li of ui.list.children) li.hidden = q !== '' && !li.dataset.word.toLowerCase().includes(q);
    if (ui.t) this.#count(ui.t);
  }

  #count(t) {
    const ui = this.#ui;
    const visible = [...ui.list.children].filter((li) => !li.hidden).length;
    ui.count.textContent = t('trained.vocabulary.shown', { shown: visible, count: ui.list.children.length });
  }

  #build() {
    const input = el('input', { type: 'search', 'data-key': 'vocabulary-filter', spellcheck: 'false', autocomplete: 'off' });
    const label = el('span');
    const count = el('small', { class: 'muted', 'data-role': 'vocabulary-count', 'aria-live': 'polite' });
    // Laid out here (through the CSSOM, which a strict CSP allows): the words flow in lines, scrolled past 12 lines.
    const list = el('ul', { class: 'vocabulary', 'data-role': 'vocabulary-list', style: 'display:flex;flex-wrap:wrap;gap:0.2em 0.9em;list-style:none;padding:0;margin:0.4em 0;max-height:14em;overflow:auto' });
    const summary = el('summary');
    const box = el('details', { class: 'vocabulary-box', 'data-role': 'trained-vocabulary' }, summary, el('label', { class: 'row' }, label, input), count, list);
    input.addEventListener('input', () => this.#filter());
    return { box, summary, input, label, count, list, t: null };
  }
}
