// The demo page: the explorer, a language switch, and the state in the URL.
import { defineAll } from './components/index.js';
import { getLab } from './lab.js';
import { pickLang, translator } from './i18n.js';
import { applyUrlState, followInUrl } from './url-sync.js';

defineAll();
const explorer = document.querySelector('attention-explorer');
const langSelect = document.getElementById('lang');

function applyLanguage(lang) {
  const t = translator(lang);
  document.documentElement.lang = lang;
  langSelect.value = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  document.title = `attention-lab · ${t('steps.heading')}`;
  explorer.setAttribute('lang', lang);
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
