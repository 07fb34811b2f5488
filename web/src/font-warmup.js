// The first switch of a page to Chinese used to cost 70–170 ms of layout: a Chromium trace shows
// most of it is the browser finding a font for each Chinese character no font in the font stack
// has (on Linux one fontconfig query through the browser process per character, about 0.2 ms) and
// a render style per font size and weight, while the text is shaped. This module pays them while
// the page is idle: it lays out every character of the Chinese strings, in the fonts the components
// use, in an invisible box (laid out, so not display: none; aria-hidden, so screen readers skip
// it), a line at a time while an idle period has time left. Chromium forgets a font no element
// uses at its next garbage collection, and the first switch then asked the browser process for
// 6–12 of those render styles again (3.5–8 ms of its layout), so the box stays, with a few
// characters per family, size and weight, and `content-visibility: hidden` keeps a switch from
// styling it again.
import { LANGS } from './i18n.js';
import { onIdle } from './scheduler.js';

/** Characters per line of the warm-up: about 0.2 ms each per family on a cold cache. */
const SLICE = 75;
/**
 * The families the components' Chinese text is drawn in, each with its weights and font sizes (in
 * the units of styles.js and the panels' styles; each family, size and weight is its own strike).
 * The monospace family (heatmap captions and readouts, legends, tables) finds its Chinese glyphs
 * through fallback: without it a first switch to the steps panel still asked the browser process
 * for strikes and fallback fonts (a Chromium trace: 8–10 ms of its layout).
 */
const FAMILIES = [
  { family: 'var(--_font)', weights: [400, 600, 700], sizes: ['15px', '14px', '16px', '11px', '12.5px', '1.6rem', '1.2rem', '1.02rem', '0.95rem', '0.9rem', '0.88rem', '0.85rem', '0.8rem', '0.78rem', '0.75rem', '0.72rem'] },
  // 600: a heatmap's caption shape (32×32) in a bold table header.
  { family: 'var(--_mono)', weights: [400, 600], sizes: ['0.72rem', '0.78rem', '0.8rem', '0.85rem'] },
];
const BOX = 'font-family:var(--_font);position:absolute;inset-inline-start:0;top:0;width:100%;opacity:0;clip-path:inset(50%);pointer-events:none;contain:strict;height:1px;overflow:hidden;white-space:normal;';

/**
 * Symbols the panels' code writes beside the translated text (the stepper's arrows and play
 * button, shapes such as 32×32, minus signs, ellipses): in a Chinese page their fallback font is
 * looked up for Chinese too.
 */
const CODE_SYMBOLS = '×−…·→←▶⏸√ᵀ‖²–—≤≥÷ᵢ⁽⁾⁰¹²³⁴⁵⁶⁷⁸⁹';

let started = null;

/** Every character outside ASCII that the Chinese strings (and the code's symbols) use, once each, in one string. */
export function chineseCharacters() {
  const seen = new Set(CODE_SYMBOLS);
  for (const text of Object.values(LANGS['zh-CN'])) for (const ch of text) if (ch > '\x7f') seen.add(ch);
  return [...seen].join('');
}

/** The lines to lay out, in order: per family, `sample` in every size × weight, then `chars`, SLICE at a time, in every weight. */
function linesFor(chars, sample) {
  const lines = [];
  for (const { family, weights, sizes } of FAMILIES) {
    for (const size of sizes) for (const weight of weights) lines.push([family, size, weight, sample]);
    for (let at = 0; at < chars.length; at += SLICE)
      for (const weight of weights) lines.push([family, sizes[0], weight, chars.slice(at, at + SLICE)]);
  }
  return lines;
}

/** A line of the box: `text` in a family, size and weight. */
function lineOf([family, size, weight, text]) {
  const line = document.createElement('span');
  line.style.cssText = `display:block;font-family:${family};font-size:${size};font-weight:${weight};`;
  line.textContent = text;
  return line;
}

/**
 * Once per document: warm the Chinese fonts in `root` (an element's shadow root, so its own font
 * settings apply) over the next idle periods, a line at a time while a period has time left (a
 * line costs 3–15 ms on a cold cache, the very first 35: the whole warm-up in one task once took
 * 230–430 ms, and a reader's first click waited for it). Returns a promise that settles once every
 * character is laid out and the box holds only the lines that keep its fonts in use.
 */
export function warmChineseFonts(root) {
  if (started) return started;
  const chars = chineseCharacters();
  const sample = chars.slice(0, 8);
  const box = document.createElement('div');
  box.setAttribute('aria-hidden', 'true');
  box.lang = 'zh-CN'; // the fallback font is looked up per character and language
  box.dataset.fontWarmup = '';
  box.style.cssText = BOX;
  root.append(box);
  const lines = linesFor(chars, sample);
  const kept = lines.filter((line) => line[3] === sample);
  started = new Promise((done) => {
    const slice = (deadline) => {
      if (!box.isConnected) return done();
      box.replaceChildren();
      do {
        box.append(lineOf(lines.shift()));
        box.offsetWidth; // lays the line out now: its text is shaped, its fonts found
      } while (lines.length && deadline.timeRemaining() > 25);
      if (lines.length) return onIdle(slice);
      box.replaceChildren(...kept.map(lineOf));
      box.offsetWidth;
      box.style.contentVisibility = 'hidden';
      done();
    };
    onIdle(slice);
  });
  return started;
}
