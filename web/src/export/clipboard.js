// Copying an export's text to the clipboard, with a visible confirmation; where the clipboard
// is not available (no navigator.clipboard, an insecure page, permission refused) the text is
// shown selected in a box, with a line saying to copy it by hand.
import { el } from '../dom.js';

/** Write `text`; resolves true when the clipboard took it. */
export async function writeClipboard(text, clipboard = globalThis.navigator?.clipboard) {
  if (!clipboard?.writeText) return false;
  try {
    await clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copy `text` and report it in `status` (a role=status element): `words.copied` on success;
 * otherwise `words.manual` and a read-only box holding the text, selected, placed after `status`.
 */
export async function copyWithFeedback(text, status, words) {
  for (const node of status.parentNode?.querySelectorAll('.export-fallback') ?? []) node.remove();
  if (await writeClipboard(text)) {
    status.textContent = words.copied;
    clearTimeout(status.clearTimer);
    status.clearTimer = setTimeout(() => {
      if (status.textContent === words.copied) status.textContent = '';
    }, 6000);
    return true;
  }
  status.textContent = words.manual;
  const box = el('textarea', { class: 'export-fallback', readonly: '', rows: '6', 'aria-label': words.manual, spellcheck: 'false', style: 'flex: 1 1 100%; width: 100%; font: 0.75rem/1.3 monospace;' });
  box.value = text;
  const close = el('button', { type: 'button', part: 'button', class: 'export-fallback', text: words.close, onclick: () => (box.remove(), close.remove(), (status.textContent = '')) });
  status.after(box, close);
  box.focus();
  box.select();
  return false;
}
