// Each panel's `strings` in the registry (web/src/panels.js) against its code: every string key its
// module and the modules it imports name (a literal 'table.key', or a template `table.…${…}`) is in
// one of its tables or a shared one. A panel loaded on its own (its entry point, or the explorer's
// first show) gets only those tables, so a key from another table would show as the raw key.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { PANELS } from '../../web/src/panels.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'src');
const SHARED = ['app', 'explorer', 'heatmap', 'errors'];
const tables = Object.fromEntries(
  await Promise.all(readdirSync(join(src, 'strings')).map(async (f) => [f.replace(/\.js$/, ''), (await import(join(src, 'strings', f))).default.en])),
);

/** The files a module imports statically (relative imports in web/src), itself included. */
function moduleGraph(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/^(?:import|export)[^'"]*?from '(\.\.?\/[^']+\.js)';/gm)) visit(resolve(dirname(file), m[1]));
  };
  visit(entry);
  return [...seen];
}

/** The tables whose keys the code names: a literal that is a key, or a template's fixed start that begins keys. */
function tablesNamed(code) {
  const named = new Set();
  for (const [name, table] of Object.entries(tables)) {
    const keys = Object.keys(table);
    for (const m of code.matchAll(/'([a-z][\w]*\.[\w.]+)'/g)) if (m[1] in table) named.add(name);
    for (const m of code.matchAll(/`([a-z][\w]*\.[\w.]*)\$\{/g)) if (keys.some((k) => k.startsWith(m[1]))) named.add(name);
  }
  return named;
}

describe("each panel's string tables cover its code", () => {
  it.each(PANELS.map((p) => [p.id, p]))('%s', (id, { module, strings }) => {
    const files = moduleGraph(join(src, module));
    expect(files.length).toBeGreaterThan(1);
    const missing = new Set();
    for (const file of files) for (const name of tablesNamed(readFileSync(file, 'utf8'))) if (![...strings, ...SHARED].includes(name)) missing.add(`${name} (in ${file.slice(src.length + 1)})`);
    expect([...missing]).toEqual([]);
    expect(strings[0]).toBe(id);
  });
});
