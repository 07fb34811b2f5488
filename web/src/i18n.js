// Every string the page and the components show, in English and Chinese.
// Each panel's strings live in ./strings/<panel>.js as { en, 'zh-CN' }. The strings every element
// shares are here from the start; a panel's are added by what loads the panel (addStrings: the
// all-in-one module adds them all, a panel's own entry point and the explorer's loader its own), so
// a page that embeds one panel carries one panel's words. A key found in two files stops the
// module from loading: otherwise the later file would silently win.
import app from './strings/app.js';
import explorer from './strings/explorer.js';
import heatmap from './strings/heatmap.js';
import errors from './strings/errors.js';

/**
 * { name: { en, 'zh-CN' } } → { en, 'zh-CN' }; throws when two tables hold the same key. `into`:
 * tables merged before (and the file of each of their keys), added to.
 */
export function mergeStrings(tables, into = { merged: { en: {}, 'zh-CN': {} }, fileOf: { en: {}, 'zh-CN': {} } }) {
  const { merged, fileOf } = into;
  for (const [name, table] of Object.entries(tables)) {
    for (const lang of Object.keys(merged)) {
      for (const [key, text] of Object.entries(table[lang] ?? {})) {
        const earlier = fileOf[lang][key];
        if (earlier) throw new Error(`i18n: the ${lang} key '${key}' is in both web/src/strings/${earlier}.js and web/src/strings/${name}.js`);
        fileOf[lang][key] = name;
        merged[lang][key] = text;
      }
    }
  }
  return merged;
}

const SHARED = { app, explorer, heatmap, errors };
const held = { merged: { en: {}, 'zh-CN': {} }, fileOf: { en: {}, 'zh-CN': {} } };
const added = new Set(Object.keys(SHARED));

/** The strings held so far, by language: the shared ones and those of the panels added. */
export const LANGS = mergeStrings(SHARED, held);

/** Add string tables ({ name: { en, 'zh-CN' } }, a file's name each); a table added before is skipped. */
export function addStrings(tables) {
  const fresh = Object.entries(tables).filter(([name]) => !added.has(name));
  mergeStrings(Object.fromEntries(fresh), held);
  for (const [name] of fresh) added.add(name);
}

/** 'zh', 'zh-CN', 'zh-Hans-…' → 'zh-CN'; anything else → 'en'. */
export function pickLang(value) {
  return /^zh/i.test(String(value ?? '')) ? 'zh-CN' : 'en';
}

/** A translator for one language: t(key, { name: value }) fills {name} placeholders. */
export function translator(lang) {
  const table = LANGS[pickLang(lang)];
  return (key, vars = {}) => {
    const text = table[key] ?? LANGS.en[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  };
}
