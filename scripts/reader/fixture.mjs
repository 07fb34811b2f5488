// Writes tests/fixtures/reader/{en,zh}.txt, the few KB of each corpus the tests use without the
// corpora install: the opening of Moby-Dick and of the first State of the Union (public domain),
// and the first poems or passages of four chinese-poetry collections (MIT; attribution in that
// folder's README). Same format as build/reader: a paragraph per line.
//
//   node scripts/reader/fixture.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chinese, converter, english } from './corpus.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'tests/fixtures/reader');

/** The first paragraphs of the first document under each prefix, up to `chars` characters per prefix. */
function excerpt(documents, prefixes, chars) {
  const out = [];
  const used = new Map(prefixes.map((p) => [p, 0]));
  for (const doc of documents) {
    const prefix = prefixes.find((p) => doc.key.startsWith(p));
    if (!prefix) continue;
    for (const paragraph of doc.paragraphs) {
      if (used.get(prefix) >= chars) break;
      out.push(paragraph);
      used.set(prefix, used.get(prefix) + [...paragraph].length);
    }
  }
  return out.join('\n') + '\n';
}

// A State of the Union is one paragraph: cut into sentences so the excerpt can end at one.
const sentences = (docs) =>
  Array.from(docs, (d) =>
    d.paragraphs.length > 1 ? d : { ...d, paragraphs: d.paragraphs.flatMap((p) => p.match(/[^.!?]+[.!?]+\s*/g)?.map((s) => s.trim()) ?? [p]) },
  );

writeFileSync(join(OUT, 'en.txt'), excerpt(sentences(english()), ['moby-dick/chapter_1.txt', 'sotu/1790_'], 3000));
writeFileSync(join(OUT, 'zh.txt'), excerpt(chinese(await converter()), ['quantangshi/', 'songci/', 'lunyu/', 'shijing/'], 500));
console.log(`fixture: wrote ${OUT}`);
