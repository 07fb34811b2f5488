// Code, tests and docs say what a thing does, not which internal issue or session asked for it: no
// such number in any tracked file, nor in the CHANGELOG's sections from 0.2.0 on (released sections
// before it are kept as they were written).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PATTERN = '\\b([Ii]ssue|session) #?[0-9]+';
const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' }).stdout.trim() === 'true';

describe('no internal tracking numbers', () => {
  it.skipIf(!inGit)('in any tracked file but the CHANGELOG (needs a git checkout)', () => {
    const r = spawnSync('git', ['grep', '-nE', PATTERN, '--', '.', ':!CHANGELOG.md'], { cwd: root, encoding: 'utf8' });
    expect(r.stdout).toBe('');
  });

  it('in the CHANGELOG from 0.2.0 on', () => {
    const text = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    const recent = text.slice(0, text.indexOf('## [0.1.0]'));
    expect(recent).toContain('## [0.2.0]');
    expect(recent.match(new RegExp(PATTERN, 'g'))).toBeNull();
  });
});
