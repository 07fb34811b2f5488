// The demo page's landing view: a lesson in the order tutorials teach attention (web/index.html).
// Its figures are the embeddable components, each given its step and weights by attributes, as a
// tutorial would embed them; this module only hands them the reader's sentence and the page's
// language, and writes the links that open the same view in the full lab.
import { writeState } from './state.js';

/** The sentence the lesson starts on, one per language: the famous one, read by the reader trained on real text. */
export const LESSON_SENTENCE = { en: "The animal didn't cross the street because it was too tired.", 'zh-CN': '动物没有过马路，因为它太累了。' };

/**
 * The grammar model's own example, one per language: what the figures marked `data-example` read (the
 * steps the reader's trace does not list, X and Q's operands, are shown on the grammar model).
 */
export const GRAMMAR_EXAMPLE = { en: 'the cats that the dog chased', 'zh-CN': '那只狗追的那些猫' };

/**
 * The lab's link for a lesson figure: its panel and step (`lab`, a query string) with the
 * reader's sentence and language, so the explorer opens at the same sentence and step.
 */
export function labLink(lab, { sentence, lang }) {
  const params = new URLSearchParams(lab);
  for (const [key, value] of new URLSearchParams(writeState({ sentence, lang }))) params.set(key, value);
  return `?${params}`;
}

/**
 * Start the lesson in `article`: the sentence box and the page's language drive every figure
 * within a screen of the viewport, and the others when they come near (typing at the top, with
 * every figure seen once, took 72 / 144 ms from a key to the next paint, median / p95, instead of
 * 24 / 32, the figures below all computed again). A figure marked `data-sentence` (the reader's
 * views) reads the box, one marked `data-example` the grammar model's example; every `a[data-lab]`
 * follows its figure's sentence and the language. Returns
 * { setLanguage(lang) }: the figures' language, and the lesson's sentence in that language while
 * the reader has not typed a sentence of their own.
 */
export function startLesson(article, lang) {
  const input = article.querySelector('#sentence');
  const components = [...article.querySelectorAll('*')].filter((node) => node.localName.startsWith('attention-'));
  let typed = false;

  const example = () => GRAMMAR_EXAMPLE[lang] ?? GRAMMAR_EXAMPLE.en;
  const links = () => {
    for (const a of document.querySelectorAll('a[data-lab]')) {
      const sentence = a.hasAttribute('data-example') ? example() : input.value;
      a.setAttribute('href', labLink(a.dataset.lab, { sentence, lang }));
    }
  };
  // The sections within a screen of the viewport (the first figure, above them all, always follows).
  const nearby = new Set();
  const follows = (component) => {
    const section = component.closest('.lesson-section');
    return !section || nearby.has(section);
  };
  /** The page's language and the figure's sentence given to `component`. */
  const sync = (component) => {
    component.setAttribute('lang', lang);
    if (component.hasAttribute('data-sentence')) component.setAttribute('sentence', input.value);
    else if (component.hasAttribute('data-example')) component.setAttribute('sentence', example());
  };
  const follow = () => {
    for (const component of components) if (follows(component)) sync(component);
    links();
  };
  const setLanguage = (next) => {
    lang = next;
    if (!typed) input.value = LESSON_SENTENCE[lang] ?? LESSON_SENTENCE.en;
    follow();
  };

  // A figure far below the screen renders when the reader comes near it: the page's first figure
  // does not wait for the ten below it (a hidden element renders once shown, base.js). Near again
  // after the sentence or the language changed, it reads the new ones.
  const near = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) {
          nearby.delete(entry.target);
          continue;
        }
        nearby.add(entry.target);
        for (const component of entry.target.querySelectorAll('[data-later]')) {
          if (!component.hidden) continue;
          component.previousElementSibling?.remove(); // its room
          component.hidden = false;
        }
        for (const component of components) if (entry.target.contains(component)) sync(component);
      }
    },
    { rootMargin: '100% 0px' },
  );
  for (const section of article.querySelectorAll('.lesson-section')) {
    for (const component of components) {
      if (!section.contains(component)) continue;
      component.hidden = true;
      component.setAttribute('data-later', '');
      // About a screen of room meanwhile, so the sections below do not all come near at once; a
      // sibling, not the section's own height, so a link to a section keeps it in place while the
      // figures above it arrive (the browser's scroll anchoring).
      component.before(Object.assign(document.createElement('div'), { className: 'figure-room' }));
    }
    near.observe(section);
  }

  input.addEventListener('input', () => {
    typed = input.value.trim() !== '';
    follow();
  });
  setLanguage(lang);
  return { setLanguage };
}
