// The demo page: the explorer, a language switch, and the state in the URL.
import { defineAll } from './components/index.js';
import { getLab } from './lab.js';
import { pickLang, translator } from './i18n.js';
import { later } from './scheduler.js';
import { applyUrlState, followInUrl } from './url-sync.js';

defineAll();
const explorer = document.querySelector('attention-explorer');
const langSelect = document.getElementById('lang');

function applyLanguage(lang) {
  const t = translator(lang);
  document.documentElement.lang = lang;
  langSelect.value = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  explorer.setAttribute('lang', lang);
  // The tab's title is not drawn in the page's frame: it is set when the page is next idle (set in
  // the language menu's change, it took 0.2–6 ms of that change's script in headless Chromium).
  later('document.title', () => (document.title = `attention-lab · ${t('steps.heading')}`));
  return t;
}

// The link's state (the language is applied below, with the page's own texts).
const state = applyUrlState(explorer, location.search);
let t = applyLanguage(pickLang(state.lang ?? navigator.language));

// The URL follows the explorer's state (url-sync.js; a language change too).
const url = followInUrl(explorer);

langSelect.addEventListener('change', () => {
  t = applyLanguage(langSelect.value);
  url.follow(explorer.state);
  showBuild();
});

async function showBuild() {
  const lab = await getLab();
  document.getElementById('build').textContent = t(`app.${lab.build}`); // fma, simd or scalar
}
showBuild();
