// The first switch of a page to Chinese used to cost 70–170 ms of layout: a Chromium trace shows
// most of it is the browser finding a font for each Chinese character no font in the font stack
// has (on Linux one fontconfig query through the browser process per character, about 0.2 ms) and
// a render style per font size and weight, while the text is shaped. Both are cached for the life
// of the renderer, so this module pays them while the page is idle: it lays out every character of
// the Chinese strings, in the fonts the components use, in an invisible box (laid out, so not
// display: none; aria-hidden, so screen readers skip it), a slice per idle period, then removes it.
import { LANGS } from './i18n.js';
import { onIdle } from './idle.js';

/** Characters per idle slice: about 0.2 ms each on a cold cache, so a slice stays near 20 ms. */
const SLICE = 100;
/** The weights the components' Chinese text is drawn in (text, labels and th, headings). */
const WEIGHTS = [400, 600, 700];
/** Their font sizes, in the units of styles.js and the panels' styles (each size is its own strike). */
const SIZES = ['15px', '14px', '16px', '11px', '1.6rem', '1.2rem', '1.02rem', '0.9rem', '0.85rem', '0.8rem', '0.78rem', '0.75rem', '0.72rem'];
const BOX = 'font-family:var(--_font);position:absolute;inset-inline-start:0;top:0;width:100%;opacity:0;clip-path:inset(50%);pointer-events:none;contain:strict;height:1px;overflow:hidden;white-space:normal;';

let started = null;

/** Every character outside ASCII that the Chinese strings use, once each, in one string. */
export function chineseCharacters() {
  const seen = new Set();
  for (const text of Object.values(LANGS['zh-CN'])) for (const ch of text) if (ch > '\x7f') seen.add(ch);
  return [...seen].join('');
}

/** The box's lines: the sample in every size × weight, then `chars` in every weight. */
function fillBox(box, chars, sample) {
  const lines = [];
  if (sample) for (const size of SIZES) for (const weight of WEIGHTS) lines.push([size, weight, sample]);
  for (const weight of WEIGHTS) lines.push(['15px', weight, chars]);
  box.replaceChildren(
    ...lines.map(([size, weight, text]) => {
      const line = document.createElement('span');
      line.style.cssText = `display:block;font-size:${size};font-weight:${weight};`;
      line.textContent = text;
      return line;
    }),
  );
  return box.offsetWidth; // lays the box out now: its text is shaped, its fonts found
}

/**
 * Once per document: warm the Chinese fonts in `root` (an element's shadow root, so its own font
 * settings apply) over the next idle periods. Returns a promise that settles once the box is gone.
 */
export function warmChineseFonts(root) {
  if (started) return started;
  const chars = chineseCharacters();
  const box = document.createElement('div');
  box.setAttribute('aria-hidden', 'true');
  box.lang = 'zh-CN'; // the fallback font is looked up per character and language
  box.dataset.fontWarmup = '';
  box.style.cssText = BOX;
  root.append(box);
  let next = 0;
  started = new Promise((done) => {
    const slice = (deadline) => {
      if (!box.isConnected) return done();
      do {
        fillBox(box, chars.slice(next, next + SLICE), next === 0 ? chars.slice(0, 8) : '');
        next += SLICE;
      } while (next < chars.length && deadline.timeRemaining() > 25);
      if (next < chars.length) return onIdle(slice);
      box.remove();
      done();
    };
    onIdle(slice);
  });
  return started;
}
