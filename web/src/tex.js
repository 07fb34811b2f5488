// Formulas typeset with KaTeX, bundled (no network). The steps panel's formulas are typeset at build
// time (scripts/prerender-tex.mjs: templates whose numbers are filled in here, tex-template.js), so a
// page showing only that panel never loads KaTeX's script; any other formula loads it on first use.
// @font-face only works at document level, so the font faces are added to the document once,
// pointing at the woff2 files shipped next to the bundle (katex-fonts/); the other KaTeX rules go
// into each shadow root.
import { fontFaces, rules } from 'virtual:katex-css';
import PRERENDERED from 'virtual:prerendered-tex';
import { texNumber } from './format.js';
import { hold } from './scheduler.js';
import { fillTemplate, texKey } from './tex-template.js';

let fontsAdded = false;
// A page without `<!doctype html>` is in quirks mode, where KaTeX refuses to render (its HTML
// layout breaks there). The MathML it also writes is laid out by the browser itself, so such a
// page gets that alone rather than an error in place of every formula.
const QUIRKS = typeof document !== 'undefined' && document.compatMode !== 'CSS1Compat';

function addFontFaces() {
  if (fontsAdded || typeof document === 'undefined') return;
  fontsAdded = true;
  // A constructed stylesheet, which style-src 'self' allows (an inline <style> it blocks).
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(fontFaces());
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch {
    const style = document.createElement('style');
    style.dataset.attentionLab = 'katex-fonts';
    style.textContent = fontFaces();
    document.head.append(style);
  }
}

/** KaTeX's element rules, for a shadow root's stylesheet. */
export const katexRules = rules;

let katex = null;
let katexLoading = null;
/** KaTeX's script, loaded once; the page's settled signal waits for it (scheduler.js hold). */
function loadKatex() {
  katexLoading ??= hold(import('katex').then((module) => (katex = module.default)));
  return katexLoading;
}

const wanted = new WeakMap(); // the TeX each element was last asked to show

/**
 * Typeset `tex` into `element` (display style). TeX comes from the library or our own templates.
 * Returns a promise when KaTeX's script had to be loaded first (settled once the formula is drawn).
 */
export function renderTex(element, tex, { display = true } = {}) {
  addFontFaces();
  wanted.set(element, tex);
  const { key, numbers } = texKey(tex);
  const html = display && !QUIRKS ? PRERENDERED[key] : undefined;
  if (html) {
    element.replaceChildren(parsed(fillTemplate(html, numbers)));
    pinDrawnMath(element, tex);
    return undefined;
  }
  if (katex) return typeset(element, tex, display);
  element.replaceChildren();
  const current = () => wanted.get(element) === tex;
  // Without KaTeX (its chunk could not be fetched) the formula is shown as its TeX, and the next one tries again.
  return loadKatex().then(() => current() && typeset(element, tex, display), () => {
    katexLoading = null;
    if (current()) element.textContent = tex;
  });
}

function typeset(element, tex, display) {
  if (QUIRKS) {
    element.replaceChildren(katex.__renderToDomTree(tex, { displayMode: display, throwOnError: false, output: 'mathml' }).toNode());
    return;
  }
  // katex.render builds DOM nodes and sets their styles through the CSSOM (renderToString's
  // style attributes would need style-src 'unsafe-inline').
  katex.render(tex, element, { displayMode: display, throwOnError: false, output: 'htmlAndMathml' });
  pinDrawnMath(element, tex);
}

/** Nodes from HTML typeset at build time, its styles (data-katex-style there) set through the CSSOM, as katex.render does. */
function parsed(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const node of template.content.querySelectorAll('[data-katex-style]')) {
    node.style.cssText = node.dataset.katexStyle;
    node.removeAttribute('data-katex-style');
  }
  return template.content;
}

// Characters of a language with its own glyph forms (CJK) in a formula's \text{…}.
const WORDS_WITH_LOCALE = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;

/**
 * The formula's drawn part (aria-hidden; the MathML beside it is what assistive technology reads)
 * gets lang="zxx", "no linguistic content", when its TeX holds no CJK words. A language switch
 * then leaves its glyphs as they are: Chromium lays out again every text whose inherited language
 * changed, and a formula is hundreds of boxes (half of the scaling panel's layout on a switch).
 */
function pinDrawnMath(element, tex) {
  if (WORDS_WITH_LOCALE.test(tex)) return;
  for (const drawn of element.querySelectorAll('.katex-html')) drawn.setAttribute('lang', 'zxx');
}

const shown = new WeakMap();

/**
 * renderTex for an element kept between renders: nothing to do when it already shows `tex`, and
 * the nodes drawn for a formula before are reused once no longer shown (`cache`: a Map the caller
 * keeps), so a re-render that keeps its formula skips KaTeX.
 */
export function renderTexCached(element, cache, tex) {
  if (shown.get(element) === tex) return;
  shown.set(element, tex);
  const nodes = cache.get(tex);
  if (nodes?.length && !nodes[0].isConnected) return element.replaceChildren(...nodes);
  const keep = () => {
    if (shown.get(element) !== tex) return;
    if (cache.size > 64) cache.clear();
    cache.set(tex, [...element.childNodes]);
  };
  const drawing = renderTex(element, tex);
  if (drawing) drawing.then(keep);
  else keep();
}

/** A matrix as a TeX bmatrix with its live numbers (masked entries as −∞). */
export function texMatrix(matrix) {
  const lines = [];
  for (let i = 0; i < matrix.rows; i++) {
    const row = [];
    for (let j = 0; j < matrix.cols; j++) row.push(texNumber(matrix.data[i * matrix.cols + j]));
    lines.push(row.join(' & '));
  }
  return `\\begin{bmatrix} ${lines.join(' \\\\ ')} \\end{bmatrix}`;
}
