// Every string the page and the components show, in English and Chinese.
// Each panel's strings live in ./strings/<panel>.js as { en, 'zh-CN' }; this
// module merges them into one table per language. A key found in two files
// stops the module from loading: otherwise the later file would silently win.
import app from './strings/app.js';
import explorer from './strings/explorer.js';
import heatmap from './strings/heatmap.js';
import errors from './strings/errors.js';
import steps from './strings/steps.js';
import heads from './strings/heads.js';
import compare from './strings/compare.js';
import scaling from './strings/scaling.js';
import pooling from './strings/pooling.js';
import cross from './strings/cross.js';
import positions from './strings/positions.js';
import cost from './strings/cost.js';
import transformer from './strings/transformer.js';
import decoding from './strings/decoding.js';
import train from './strings/train.js';
import backward from './strings/backward.js';

/** { name: { en, 'zh-CN' } } → { en, 'zh-CN' }; throws when two tables hold the same key. */
export function mergeStrings(tables) {
  const merged = { en: {}, 'zh-CN': {} };
  const fileOf = { en: {}, 'zh-CN': {} };
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

export const LANGS = mergeStrings({ app, explorer, heatmap, errors, steps, heads, compare, scaling, pooling, cross, positions, cost, transformer, decoding, train, backward });

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
