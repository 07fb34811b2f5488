// The demo page: the explorer, a language switch, and the state in the URL.
import { defineAll } from './components/index.js';
import { getLab } from './lab.js';
import { pickLang, translator } from './i18n.js';
import { readState, writeState } from './state.js';

defineAll();
const explorer = document.querySelector('attention-explorer');
const langSelect = document.getElementById('lang');
const ATTRS = { sentence: 'sentence', seed: 'seed', dModel: 'd-model', dK: 'd-k', heads: 'heads', mask: 'mask', validLen: 'valid-len', step: 'step', head: 'head', kernel: 'kernel', bandwidth: 'bandwidth', panel: 'panel' };

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
for (const [field, attr] of Object.entries(ATTRS)) if (state[field] !== undefined) explorer.setAttribute(attr, state[field]);
// Matrices typed by hand come back as text in their boxes (checked there like typed text).
explorer.typed = { x: state.x, wq: state.wq, wk: state.wk, wv: state.wv, wo: state.wo };
// The panels' own settings (hidden size, query, source sentence, …) go to the panels.
explorer.panelSettings = state;
let t = applyLanguage(pickLang(state.lang ?? navigator.language));

langSelect.addEventListener('change', () => {
  t = applyLanguage(langSelect.value);
  history.replaceState(null, '', writeState(explorer.state));
  showBuild();
});
explorer.addEventListener('attention-change', (e) => history.replaceState(null, '', writeState(e.detail)));

async function showBuild() {
  const lab = await getLab();
  document.getElementById('build').textContent = t(lab.simd ? 'app.simd' : 'app.scalar');
}
showBuild();
