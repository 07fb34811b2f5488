// docs/performance.md's peer tables in Node are a results file's (bench/write-doc.mjs wrote them from
// docs/results/node-peers.json, which bench/run.mjs made): the page's written part is exactly what
// that file gives, every figure in it was checked against float64 before it was timed, and the run
// was a full one. Editing a number by hand, or keeping a file the page was not written from, fails.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { resultsMarkdown } from '../../bench/lib/results-doc.mjs';
import { DOC, END, KEPT, START, withWrittenPart, writtenPart } from '../../bench/write-doc.mjs';

const page = readFileSync(DOC, 'utf8');
const file = JSON.parse(readFileSync(KEPT, 'utf8'));

describe('docs/performance.md, written from the benchmark results file', () => {
  it("the page's written part is the kept results file's", () => {
    expect(writtenPart(page)).toBe(resultsMarkdown(file));
  });

  it('every timed figure of the file was checked against float64 first, in a full run', () => {
    expect(file.quick).toBe(false);
    const timed = file.results.filter((r) => r.ms != null);
    expect(timed.length).toBeGreaterThan(10);
    for (const r of timed) expect({ impl: r.impl, shape: r.shape, checked: r.check != null && !r.error }).toEqual({ impl: r.impl, shape: r.shape, checked: true });
    expect(new Set(timed.map((r) => r.group))).toEqual(new Set(['single-head', 'multi-head']));
  });

  it('writing the part again changes nothing, and a page without the markers is refused', () => {
    expect(withWrittenPart(page, resultsMarkdown(file))).toBe(page);
    expect(() => withWrittenPart(page.replace(START, ''), 'x')).toThrow(/markers/);
    expect(() => withWrittenPart(page.replace(END, ''), 'x')).toThrow(/markers/);
  });
});
