// <attention-train>'s "try the model" box: the reader's input, decoded by the model the worker holds
// now (session.generate), with its output and its attention for every layer and head. Built once
// and kept (a reader may be typing); each sync writes the labels for the task.
import { el } from '../../dom.js';
import { attentionGrid } from './views.js';

export class TryBox {
  #session;
  #pool = new Map();
  #ui = null;
  #answer = null;
  #asked = 0;
  #onAnswer;

  /** `onAnswer()`: called when an answer arrived (the host lays the box out again). */
  constructor(session, onAnswer) {
    this.#session = session;
    this.#onAnswer = onAnswer;
  }

  /** The box for task `task` in `t`'s language; `canRun`: a model exists. */
  sync(t, task, example, canRun) {
    const ui = (this.#ui ??= this.#build());
    ui.heading.textContent = t('train.try');
    ui.label.textContent = t('train.tryLabel');
    ui.help.textContent = t(`train.tryHelp.${task}`);
    ui.run.textContent = t('train.tryRun');
    ui.run.disabled = !canRun;
    if (ui.task !== task) {
      ui.task = task;
      ui.input.value = example;
      this.#answer = null;
    }
    const a = this.#answer;
    const said = !canRun ? t('train.tryNoModel') : !a ? '' : a.error ? t('train.tryError', { message: a.error.message }) : t('train.tryOutput', { output: a.output });
    ui.output.textContent = said;
    ui.output.className = a?.error ? 'warn' : 'note';
    const grid = a && !a.error && canRun ? attentionGrid(t, a, this.#pool, 'try') : null;
    ui.box.replaceChildren(ui.heading, ui.form, ui.output, ...(grid ? [grid] : []));
    return ui.box;
  }

  /** Forget the answer (the model it came from is gone). */
  clear() {
    this.#answer = null;
  }

  async run() {
    const asked = ++this.#asked;
    const answer = await this.#session.generate(this.#ui.input.value);
    if (asked !== this.#asked) return;
    this.#answer = answer;
    this.#onAnswer();
  }

  #build() {
    const input = el('input', { type: 'text', id: 'try-input', 'data-key': 'try-input', spellcheck: 'false', 'aria-describedby': 'try-help', maxlength: '80' });
    const run = el('button', { type: 'submit', 'data-key': 'try-run', part: 'try-button' });
    const form = el('form', { class: 'controls', onsubmit: (e) => (e.preventDefault(), this.run()) },
      el('div', { class: 'field' }, el('label', { for: 'try-input' }), input, el('small', { class: 'muted', id: 'try-help' })), el('div', { class: 'field buttons' }, run));
    const [label, , help] = form.firstChild.children;
    const heading = el('h3', {});
    const output = el('p', { 'data-role': 'try-output', 'aria-live': 'polite' });
    const box = el('section', { class: 'try', part: 'try', 'data-role': 'try' });
    return { box, heading, form, label, input, help, run, output, task: null };
  }
}
