// The demo page: the explorer, a language switch, and the state in the URL.
import { defineAll } from './components/index.js';
import { CONFIG_FIELDS, TYPED_MATRICES, VIEW_FIELDS } from './config.js';
import { getLab } from './lab.js';
import { pickLang, translator } from './i18n.js';
import { readState, writeState } from './state.js';

defineAll();
const explorer = document.querySelector('attention-explorer');
const langSelect = document.getElementById('lang');
// The state fields that are attributes of the explorer (the language is applied below).
const ATTRIBUTES = [...CONFIG_FIELDS, ...VIEW_FIELDS].filter((f) => f.attribute);

function applyLanguage(lang) {
  const t = translator(lang);
  document.documentElement.lang = lang;
  langSelect.value = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  document.title = `attention-lab · ${t('steps.heading')}`;
  explorer.setAttribute('lang', lang);
  return t;
}

const state = readState(location.search);
for (const { property, attribute } of ATTRIBUTES) if (state[property] !== undefined) explorer.setAttribute(attribute, state[property]);
// Matrices typed by hand come back as text in their boxes (checked there like typed text).
explorer.typed = Object.fromEntries(TYPED_MATRICES.map(({ key }) => [key, state[key]]));
// The panels' own settings (hidden size, query, source sentence, …) go to the panels.
explorer.panelSettings = state;
let t = applyLanguage(pickLang(state.lang ?? navigator.language));

// The URL follows the state at most every 250 ms, the latest state always written: a dragged
// slider changes it on every pointer move, and browsers refuse or ignore history.replaceState
// beyond about 100 calls in 10 s (Safari throws).
let urlState = null;
let urlTimer = 0;
let urlWritten = -Infinity;
// <html data-url-pending> while a state waits to be written (scripts and tests can wait for it).
function writeUrl() {
  urlTimer = 0;
  // The time is taken just before the write (not before building the query), so writes are 250 ms apart.
  const query = writeState(urlState);
  urlWritten = performance.now();
  history.replaceState(null, '', query);
  delete document.documentElement.dataset.urlPending;
}
function followState(state) {
  urlState = state;
  if (urlTimer) return;
  const wait = urlWritten + 250 - performance.now();
  if (wait <= 0) return writeUrl();
  document.documentElement.dataset.urlPending = '';
  urlTimer = setTimeout(writeUrl, wait);
}

langSelect.addEventListener('change', () => {
  t = applyLanguage(langSelect.value);
  followState(explorer.state);
  showBuild();
});
explorer.addEventListener('attention-change', (e) => followState(e.detail));

async function showBuild() {
  const lab = await getLab();
  document.getElementById('build').textContent = t(lab.simd ? 'app.simd' : 'app.scalar');
}
showBuild();
