// Writes a peer benchmark's results into docs/performance.md ("Attention in Node"), so the page's
// figures are a results file's, not numbers copied by hand:
//   node bench/run.mjs --filter="^(single|multi)"   (writes bench/results/latest.json)
//   node bench/write-doc.mjs [bench/results/latest.json]
// The results file is kept as docs/results/node-peers.json, and the part of the page between the two
// markers below is written from it (bench/lib/results-doc.mjs); tests/js/performance-doc.test.js
// fails when the page and the kept file disagree.
import { readFileSync, writeFileSync } from 'node:fs';

import { resultsMarkdown } from './lib/results-doc.mjs';

export const KEPT = new URL('../docs/results/node-peers.json', import.meta.url);
export const DOC = new URL('../docs/performance.md', import.meta.url);
export const START = '<!-- written by bench/write-doc.mjs from docs/results/node-peers.json: do not edit by hand -->';
export const END = '<!-- end of the part written by bench/write-doc.mjs -->';

/** The page's text with the written part replaced by `markdown`. */
export function withWrittenPart(page, markdown) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/performance.md: the markers of the written part are missing or out of order (${START} … ${END})`);
  return `${page.slice(0, start + START.length)}\n\n${markdown}\n${page.slice(end)}`;
}

/** The written part of the page as it stands. */
export function writtenPart(page) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  return start < 0 || end < start ? null : page.slice(start + START.length, end).trim() + '\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const source = process.argv[2] ?? new URL('./results/latest.json', import.meta.url);
  const file = JSON.parse(readFileSync(source, 'utf8'));
  if (file.quick) throw new Error(`${source}: a --quick run; the page keeps full runs only`);
  writeFileSync(KEPT, JSON.stringify(file, null, 2) + '\n');
  writeFileSync(DOC, withWrittenPart(readFileSync(DOC, 'utf8'), resultsMarkdown(file)));
  console.log(`Wrote docs/results/node-peers.json and the written part of docs/performance.md from ${source}`);
}
