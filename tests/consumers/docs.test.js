// docs/api.md stays in step with the package: every member the declarations
// (dist/index.d.ts of the packed tarball and the dist/types/*.d.ts it imports)
// name is documented, and every `js` example runs against the installed
// tarball in Node and prints exactly its "Output" block. Examples marked
// `<!-- not run: … -->` (browser-only, HTML, build scripts) are skipped.
// UPDATE_DOCS=1 rewrites the Output blocks from what the examples print
// (review the diff before committing).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freshApp, root } from './helpers.js';

const docPath = join(root, 'docs', 'api.md');
const doc = readFileSync(docPath, 'utf8');

/** The fenced blocks of the doc, with what follows each js block. */
function examples(text) {
  const fences = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```\n/gm)].map((m) => ({ lang: m[1], body: m[2], start: m.index, end: m.index + m[0].length }));
  const out = [];
  fences.forEach((f, i) => {
    if (f.lang !== 'js') return;
    const before = text.slice(0, f.start).trimEnd().split('\n').at(-1);
    if (/^<!-- not run/.test(before)) return;
    const next = fences[i + 1];
    const between = next ? text.slice(f.end, next.start) : '';
    const output = next && next.lang === 'text' && /^\s*Output:\s*$/.test(between) ? next : null;
    const line = text.slice(0, f.start).split('\n').length;
    out.push({ line, body: f.body, cjs: /save as \S+\.cjs/.test(f.body), output });
  });
  return out;
}

/** A declaration file and every file it imports relatively (`from './types/….js'`), entry first. */
function declarationFiles(entry) {
  const texts = new Map();
  const visit = (file) => {
    if (texts.has(file)) return;
    texts.set(file, readFileSync(file, 'utf8'));
    for (const m of texts.get(file).matchAll(/from '(\.\.?\/[^']+)\.js'/g)) visit(join(dirname(file), `${m[1]}.d.ts`));
  };
  visit(entry);
  return [...texts.values()];
}

/** The body of `export interface name` in dts, with the interfaces it extends, or null. */
function interfaceOf(dts, name) {
  const m = dts.match(new RegExp(`export interface ${name}(?: extends ([^{]*))? ?\\{([\\s\\S]*?)\\n\\}`));
  return m && { body: m[2], bases: (m[1] ?? '').split(',').map((b) => b.trim()).filter((b) => /^\w+$/.test(b)) };
}

/** The members of interface `name` and of every interface it extends (those declared in dts). */
function interfaceMembers(dts, name) {
  const found = interfaceOf(dts, name);
  if (!found) return '';
  return [found.body, ...found.bases.map((base) => interfaceMembers(dts, base))].join('\n');
}

/**
 * The public names of the entry file (its own declarations and its re-exports), the members of every
 * interface and class in all the files, and the string-literal unions.
 */
function declared(entry, dts) {
  const names = new Set();
  for (const m of entry.matchAll(/export (?:interface|class|type|function) (\w+)/g)) names.add(m[1]);
  for (const m of entry.matchAll(/^export (?:type )?\{([^}]*)\} from/gm)) for (const n of m[1].split(',')) names.add(n.trim());
  for (const block of dts.matchAll(/export (?:interface|class) \w+[^{]*\{([\s\S]*?)\n\}/g))
    for (const m of block[1].matchAll(/^ {2}(?:readonly |static readonly |static )?(\w+)\??[(:<]/gm)) if (m[1] !== 'constructor') names.add(m[1]);
  const union = (name) => [...(dts.match(new RegExp(`export type ${name} =([^;]*);`))?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1]);
  return { names, codes: union('AttentionErrorCode'), steps: union('StepId'), kernels: union('KernelName') };
}

const list = examples(doc);

/** Each example written to a file of the app and run with Node: its stdout, stderr and status. */
function run(app, found, prefix) {
  return found.map((e, i) => {
    const file = join(app, `${prefix}-${i}.${e.cjs ? 'cjs' : 'mjs'}`);
    writeFileSync(file, e.body);
    const r = spawnSync(process.execPath, [file], { cwd: app, encoding: 'utf8' });
    return { ...e, stdout: r.stdout, stderr: r.stderr, status: r.status };
  });
}

const README_LIMIT = 10 * 1024;

describe('docs/api.md', () => {
  let app;
  let files; // dist/index.d.ts first, then the declaration files it imports
  let dts; // all of them, one after another
  beforeAll(() => {
    app = freshApp('docs', {}, { type: 'module' });
    // The inference entry first, then the training entry (its TrainingLab extends AttentionLab).
    const dist = join(app, 'node_modules', 'attention-lab', 'dist');
    files = [...new Set([...declarationFiles(join(dist, 'index.d.ts')), ...declarationFiles(join(dist, 'training.d.ts'))])];
    dts = files.join('\n');
  });
  afterAll(() => app && rmSync(app, { recursive: true, force: true }));

  it('names every declared function, interface, member, error code, step id and kernel', () => {
    expect(files.length).toBeGreaterThan(1); // the index and the per-family files
    const { names, codes, steps, kernels } = declared(files[0], dts);
    expect(names.size).toBeGreaterThan(60);
    expect(codes).toContain('OVERFLOW');
    const missing = [...names, ...codes, ...steps, ...kernels].filter((n) => !doc.includes(`\`${n}\``) && !doc.includes(`'${n}'`) && !new RegExp(`\\b${n}\\b`).test(doc));
    expect(missing).toEqual([]);
    // every lab function of both builds has its own section
    const lab = interfaceMembers(dts, 'TrainingLab');
    const functions = [...lab.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]);
    expect(functions.length).toBeGreaterThanOrEqual(13);
    expect(functions).toEqual(expect.arrayContaining(['attentionBackward', 'createTransformer', 'loadTransformer']));
    for (const f of functions) expect(doc, f).toMatch(new RegExp(`^## \`lab\\.${f}\\(`, 'm'));
    // every error code has an example in the errors example
    for (const code of codes.filter((c) => c !== 'INTERNAL')) expect(doc, code).toMatch(new RegExp(`^\\s+${code}: \\(\\) =>`, 'm'));
  });

  it('has runnable examples, each followed by its output', () => {
    expect(list.length).toBeGreaterThanOrEqual(20);
    for (const e of list) expect(e.output, `example at line ${e.line} has no Output block`).not.toBeNull();
  });

  it('every example prints its Output block', () => {
    const results = run(app, list, 'example');
    if (process.env.UPDATE_DOCS) {
      let text = doc;
      for (const r of [...results].reverse()) if (r.output) text = text.slice(0, r.output.start) + '```text\n' + r.stdout + '```\n' + text.slice(r.output.end);
      writeFileSync(docPath, text);
    }
    for (const r of results) {
      expect(`${r.stderr}`, `example at line ${r.line}`).toBe('');
      expect(r.status, `example at line ${r.line}`).toBe(0);
      expect(r.stdout, `example at line ${r.line}`).toBe(r.output.body);
    }
  });

  it(`the README is at most ${README_LIMIT} bytes, and each of its examples prints its Output block`, () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(README_LIMIT);
    const found = examples(readme);
    expect(found.length).toBeGreaterThanOrEqual(2);
    for (const r of run(app, found, 'readme')) {
      expect(r.output, `README example at line ${r.line} has no Output block`).not.toBeNull();
      expect(`${r.stderr}`, `README example at line ${r.line}`).toBe('');
      expect(r.stdout, `README example at line ${r.line}`).toBe(r.output.body);
    }
  });
});
