// The small notation in our own names and titles ("Queries Q = XW_Q", "÷ √d_k", "d_model"):
// `_` followed by a run of letters and digits (or `_{…}`) is a subscript. Parsed once here for
// the step tabs (HTML <sub>), the exported figures' titles (SVG tspans, canvas) and LaTeX
// captions. Only for names the page writes, never for a reader's tokens ("my_var" stays as given).

/** "XW_Q" → [{ text: 'XW' }, { text: 'Q', sub: true }]; text without `_` is one run. */
export function mathRuns(text) {
  const runs = [];
  const re = /_(?:\{([^{}]*)\}|([A-Za-z0-9]+))/g;
  let at = 0;
  for (const m of String(text).matchAll(re)) {
    if (m.index > at) runs.push({ text: text.slice(at, m.index) });
    runs.push({ text: m[1] ?? m[2], sub: true });
    at = m.index + m[0].length;
  }
  if (at < text.length || !runs.length) runs.push({ text: String(text).slice(at) });
  return runs;
}

/**
 * What a screen reader says for `text`: a subscript spoken through `sub(base, sub)` (a
 * translated "W sub Q"), the rest as written. `base` is the letter before the subscript, set
 * apart from a letter before it ("XW_Q" → "X W sub Q").
 */
export function spokenMath(text, sub) {
  const runs = mathRuns(text);
  let out = '';
  for (const run of runs) {
    if (!run.sub) {
      out += run.text;
      continue;
    }
    const base = out.match(/[A-Za-z0-9]$/)?.[0] ?? '';
    const before = out.slice(0, out.length - base.length);
    out = `${before}${/[A-Za-z0-9]$/.test(before) ? ' ' : ''}${sub(base, run.text)}`;
  }
  return out;
}

/** `text` with its subscripts drawn as HTML: nodes for element.append (text, <sub>). */
export function mathNodes(text, doc = document) {
  return mathRuns(text).map((run) => {
    if (!run.sub) return run.text;
    const sub = doc.createElement('sub');
    sub.textContent = run.text;
    return sub;
  });
}
