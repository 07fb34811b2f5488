// The page's modules import in one direction: no file of web/src reaches itself through its static
// imports (config.js, model.js, own-models.js and own-numbers.js once did, four files in a circle,
// so a setting went back and forth between them). The sizes, the tokenizer and the checks of an
// author's matrices live in files that import none of their users.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'src');

function modules(dir) {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? modules(path) : path.endsWith('.js') ? [path] : [];
  });
}

/** Each module's static relative imports and re-exports. */
const graph = new Map(modules(src).map((f) => [f, [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)[^'"]*?from '(\.\.?\/[^']+\.js)';/gm)].map((m) => resolve(dirname(f), m[1]))]));

/** The cycles found by a depth-first walk, each as the files on it (relative to web/src). */
function cycles() {
  const found = [];
  const state = new Map();
  const visit = (file, path) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)).concat(next).map((f) => f.slice(src.length + 1)));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  return found;
}

describe('web/src imports in one direction', () => {
  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(join(src, 'model.js'))).toContain(join(src, 'config.js'));
  });

  it('has no import cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const [a, b] = [join(src, 'config.js'), join(src, 'model.js')];
    graph.get(a).push(b);
    try {
      expect(cycles().some((c) => c.includes('config.js') && c.includes('model.js'))).toBe(true);
    } finally {
      graph.get(a).pop();
    }
  });
});
