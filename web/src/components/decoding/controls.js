// <attention-decoding>'s form fields: a labelled slider, number box or select that sets one of the
// host's attributes. Built once and kept (a new input would drop the reader's focus or a drag);
// `sync` updates the label, bounds and value on each render.
import { el } from '../../dom.js';

/** The host's settings as the `attention-decoding` event carries them: { attribute: value }. */
export function settingsDetail(host, names) {
  return Object.fromEntries(names.map((name) => [name, host.getAttribute(name)]));
}

/**
 * A field setting `attribute` on `host` (type 'range', 'number' or 'select'), its `id` and
 * data-key the attribute's name, with an optional help line (aria-describedby).
 */
export function settingField(host, attribute, { type = 'range', step = '1', help = false } = {}) {
  const input = type === 'select' ? el('select', { id: attribute, 'data-key': attribute }) : el('input', { type, id: attribute, 'data-key': attribute, step });
  const label = el('label', { for: attribute });
  const helpLine = help ? el('small', { class: 'muted', id: `${attribute}-help` }) : null;
  if (helpLine) input.setAttribute('aria-describedby', helpLine.id);
  input.addEventListener(type === 'range' ? 'input' : 'change', () => {
    host.setAttribute(attribute, input.value);
    host.emitSettings();
  });
  const field = el('div', { class: 'field' }, label, input, ...(helpLine ? [helpLine] : []));
  return {
    field,
    input,
    /** Label text, bounds (range and number), value and help text for this render. */
    sync({ text, min, max, value, helpText }) {
      label.textContent = text;
      if (min !== undefined && input.min !== String(min)) input.min = String(min);
      if (max !== undefined && input.max !== String(max)) input.max = String(max);
      // A number box being typed in keeps what the reader typed until it is committed.
      const typing = type === 'number' && host.shadowRoot.activeElement === input;
      if (input.value !== String(value) && !typing) input.value = String(value);
      if (helpLine) helpLine.textContent = helpText ?? '';
    },
  };
}

/** A fieldset (legend and fields), kept by the caller. */
export function fieldset(legend, fields) {
  return el('fieldset', { class: 'controls', part: 'controls' }, legend, ...fields.map((f) => f.field));
}

/**
 * A button showing the explorer's panel `id`, when `host` sits in an explorer that has it (the
 * explorer's selectPanel); outside one, nothing (the sentence beside it names the component).
 */
export function panelLink(host, id, text) {
  const explorer = host.getRootNode()?.host;
  if (!explorer || typeof explorer.selectPanel !== 'function' || !explorer.panels?.[id]) return [];
  return [el('button', { type: 'button', part: 'button', 'data-key': `open-${id}`, text, onclick: () => explorer.selectPanel(id) })];
}
