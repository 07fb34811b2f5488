// The demo page: the lesson (its landing view) or, when the link names any setting of the
// explorer (?panel=…, ?s=…, every link the explorer has written), the full lab; a language
// switch, and the lab's state in the URL.
import { defineAll } from './components/index.js';
import { addStrings, pickLang, translator } from './i18n.js';
import { getLab } from './lab.js';
import { startLesson } from './lesson.js';
import { later } from './scheduler.js';
import { readState } from './state.js';
import lesson from './strings/lesson.js';
import { applyUrlState, followInUrl } from './url-sync.js';

addStrings({ lesson });
const linked = readState(location.search);
const inLab = Object.keys(linked).some((field) => field !== 'lang');
const article = document.getElementById('lesson');
const viewSwitch = document.getElementById('switch-view');
let explorer = null;
if (inLab) {
  // The lesson's figures are never shown here: out of the document before they render.
  article.remove();
  explorer = document.createElement('attention-explorer');
  document.getElementById('main').append(explorer);
  viewSwitch.dataset.i18n = 'lesson.toLesson';
  delete viewSwitch.dataset.lab;
}
defineAll();
const langSelect = document.getElementById('lang');

function applyLanguage(lang) {
  const t = translator(lang);
  document.documentElement.lang = lang;
  langSelect.value = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  explorer?.setAttribute('lang', lang);
  lessonView?.setLanguage(lang);
  if (inLab) viewSwitch.href = `?${new URLSearchParams({ lang })}`;
  // The tab's title is not drawn in the page's frame: it is set when the page is next idle (set in
  // the language menu's change, it took 0.2–6 ms of that change's script in headless Chromium).
  later('document.title', () => (document.title = `attention-lab · ${t(inLab ? 'steps.heading' : 'lesson.what.title')}`));
  return t;
}

// The link's state (the language is applied below, with the page's own texts).
const state = inLab ? applyUrlState(explorer, location.search) : linked;
const firstLang = pickLang(state.lang ?? navigator.language);
const lessonView = inLab ? null : startLesson(article, firstLang);
let t = applyLanguage(firstLang);

// The URL follows the explorer's state (url-sync.js; a language change too); the lesson's link
// keeps only the language.
const url = inLab ? followInUrl(explorer) : null;

langSelect.addEventListener('change', () => {
  t = applyLanguage(langSelect.value);
  if (url) url.follow(explorer.state);
  else history.replaceState(history.state, '', `${location.pathname}?${new URLSearchParams({ lang: langSelect.value })}${location.hash}`);
  showBuild();
});

async function showBuild() {
  const lab = await getLab();
  document.getElementById('build').textContent = t(`app.${lab.build}`); // fma, simd or scalar
}
showBuild();
