// The elements the components module defines, and the places that list them for a reader: the
// element table of docs/embedding.md, the tag map of components.d.ts and the README. The defined
// set is read from the source (each element's `static tag`, for every element index.js imports),
// so adding an element without documenting it fails here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (rel) => readFileSync(join(root, rel), 'utf8');

function definedTags() {
  const index = read('web/src/components/index.js');
  return [...index.matchAll(/^import \{ Attention\w+ \} from '\.\/([\w/-]+\.js)';$/gm)]
    .map(([, file]) => read(`web/src/components/${file}`).match(/static tag = '([\w-]+)';/)[1])
    .sort();
}

const tags = definedTags();

describe('the documented elements are the defined ones', () => {
  it('reads thirteen tags from the source', () => {
    expect(tags).toHaveLength(13);
    expect(tags).toContain('attention-train');
  });

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
