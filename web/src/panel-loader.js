// A panel's code on first use: its string tables added and its module imported (panels.js names
// both), its element class returned. Vite makes one import() per file; a bundle made without code
// splitting, such as dist/components.js, holds them all, and the explorer's own entry point gets a
// chunk per panel.
import { addStrings } from './i18n.js';
import { panelById } from './panels.js';

const MODULES = import.meta.glob(['./components/*/attention-*.js', './components/attention-*.js', '!./components/attention-explorer.js']);
const STRINGS = import.meta.glob(['./strings/*.js', '!./strings/lesson.js'], { import: 'default' });

/** Panel `id`'s element class (the export of its module whose `tag` is the panel's), its strings added. */
export async function loadPanel(id) {
  const { module, tag, strings } = panelById(id);
  const [exports, ...tables] = await Promise.all([MODULES[module](), ...strings.map((name) => STRINGS[`./strings/${name}.js`]())]);
  addStrings(Object.fromEntries(strings.map((name, i) => [name, tables[i]])));
  return Object.values(exports).find((e) => e?.tag === tag);
}
