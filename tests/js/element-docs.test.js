// The panel registry (web/src/panels.js) against everything that must agree with it: the elements
// the components module defines (each element's `static tag`, for every element index.js imports),
// its strings file and tab label, and the places that list the elements for a reader: the element
// table of docs/embedding.md, the tag map of components.d.ts and the README. A panel added in one
// place only fails here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { EXPLORER_TAG, PANELS } from '../../web/src/panels.js';
import explorerStrings from '../../web/src/strings/explorer.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (rel) => readFileSync(join(root, rel), 'utf8');

function definedTags() {
  const index = read('web/src/components/index.js');
  return [...index.matchAll(/^import \{ Attention\w+ \} from '\.\/([\w/-]+\.js)';$/gm)]
    .map(([, file]) => {
      const [, literal, name] = read(`web/src/components/${file}`).match(/static tag = (?:'([\w-]+)'|(\w+));/);
      return literal ?? { EXPLORER_TAG }[name];
    })
    .sort();
}

const tags = definedTags();

describe('the panel registry', () => {
  it('names every element the components module imports, and only those', () => {
    expect(tags).toHaveLength(13);
    expect([...PANELS.map((p) => p.tag), EXPLORER_TAG].sort()).toEqual(tags);
    expect(new Set(PANELS.map((p) => p.id)).size).toBe(PANELS.length);
  });

  it('has a strings file and a tab label in both languages for each panel', () => {
    for (const { id } of PANELS) {
      expect(() => read(`web/src/strings/${id}.js`), id).not.toThrow();
      for (const lang of ['en', 'zh-CN']) expect(explorerStrings[lang][`tab.${id}`], `${lang} tab.${id}`).toBeTruthy();
    }
  });
});

describe('the documented elements are the defined ones', () => {
  it("docs/embedding.md's element table lists each once", () => {
    const table = [...read('docs/embedding.md').matchAll(/^\| `<(attention-[\w-]+)>` \|/gm)].map((m) => m[1]);
    expect(table.sort()).toEqual(tags);
  });

  it("components.d.ts's tag map types each", () => {
    const map = read('web/src/components.d.ts').match(/interface HTMLElementTagNameMap \{([\s\S]*?)\}/)[1];
    expect([...map.matchAll(/'(attention-[\w-]+)'/g)].map((m) => m[1]).sort()).toEqual(tags);
  });

  it('no doc counts them in words or names one that does not exist', () => {
    for (const doc of ['README.md', 'docs/embedding.md', 'docs/api.md', 'docs/architecture.md']) {
      const text = read(doc);
      expect(text, doc).not.toMatch(/\b(eleven|twelve|thirteen|fourteen|1[1-4]) (framework-free |custom )?(elements|components|panels)\b/i);
      const named = new Set([...text.matchAll(/<(attention-[a-z]+)[\s>]/g)].map((m) => m[1]));
      for (const tag of named) expect(tags, `${doc} names <${tag}>`).toContain(tag);
    }
  });
});
