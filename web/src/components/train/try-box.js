// <attention-train>'s "try the model" box: the reader's input, decoded by the model the worker holds
// now (session.generate), with its output and its attention for every layer and head. Built once
// and kept (a reader may be typing); each sync writes the labels for the task.
import { el } from '../../dom.js';
import { errorText } from '../../error-text.js';
import { place } from '../../heatmap.js';
import { onFrame } from '../../scheduler.js';
import { headView } from './head-view.js';
import { gridElement, syncGrid } from './views.js';

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
    ui.output.textContent = !canRun || !a ? (canRun ? '' : t('train.tryNoModel')) : this.#said(t, a);
    ui.output.className = a?.error || a?.refused ? 'warn' : 'note';
    // The pieces outside the task's vocabulary, in the reader's language (the answer is then a guess).
    const unknown = canRun && a && !a.error && a.unknown?.length ? a.unknown : null;
    ui.unknown.textContent = unknown ? t('train.tryUnknown', { list: unknown.map((c) => `“${c === ' ' ? '␣' : c}”`).join(' ') }) : '';
    const shown = a && !a.error && !a.refused && canRun;
    // Maps of a new shape are made a few per frame: the host lays the box out again in the next one.
    if (shown && !syncGrid(ui.grid, t, a, this.#pool, 'try')) onFrame(() => this.#onAnswer());
    place(ui.box, [ui.heading, ui.form, ui.output, ...(unknown ? [ui.unknown] : []), ...(shown ? [ui.grid, this.#headView(t, a)] : [])]);
    return ui.box;
  }

  /** The answer in words: the output, or why there is none (never the library's raw message). */
  #said(t, a) {
    if (a.refused) return a.refused.problem === 'empty' ? t('train.tryEmpty') : t(`train.tryLong.${a.refused.unit}`, a.refused);
    if (a.error) return t('train.tryError', { message: errorText(t, a.error, { detail: false }) });
    return t('train.tryOutput', { output: a.output });
  }

  /** The head view of the chosen layer and head (the last layer's first head at first), with its picker. */
  #headView(t, a) {
    const ui = this.#ui;
    const keys = a.maps.flatMap((layer, l) => layer.map((m, h) => [`${l}-${h}`, t('train.mapName', { layer: l + 1, head: h + 1 })]));
    if (!keys.some(([key]) => key === ui.head.value) || ui.head.options.length !== keys.length) {
      const chosen = keys.some(([key]) => key === ui.head.value) ? ui.head.value : `${a.maps.length - 1}-0`;
      ui.head.replaceChildren(...keys.map(([value, text]) => el('option', { value, text })));
      ui.head.value = chosen;
    } else keys.forEach(([, text], k) => (ui.head.options[k].textContent = text));
    ui.headLabel.textContent = t('train.headPick');
    ui.headNote.textContent = t(`train.headView.${a.kind}`);
    const [l, h] = ui.head.value.split('-').map(Number);
    const name = t('train.mapName', { layer: l + 1, head: h + 1 });
    const view = headView(a.maps[l][h], a.rowLabels, a.colLabels, t('train.headViewOf', { name }));
    return el('div', { class: 'head-view-box', 'data-role': 'head-view' }, el('div', { class: 'field' }, ui.headLabel, ui.head), ui.headNote, view);
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
    const unknown = el('p', { class: 'warn', 'data-role': 'try-unknown' });
    const box = el('section', { class: 'try', part: 'try', 'data-role': 'try' });
    const head = el('select', { id: 'head-view', 'data-key': 'head-view', onchange: () => this.#onAnswer() });
    const headLabel = el('label', { for: 'head-view' });
    const headNote = el('p', { class: 'muted' });
    return { box, heading, form, label, input, help, run, output, unknown, head, headLabel, headNote, grid: gridElement('try'), task: null };
  }
}
