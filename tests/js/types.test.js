// The hand-written declarations compile in a strict TypeScript consumer that
// uses every API member, and reject the wrong calls marked @ts-expect-error.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('TypeScript declarations', () => {
  it('tests/js/types/consumer.ts type-checks under strict settings (tsc exits 0)', () => {
    const run = spawnSync('npx', ['--no-install', 'tsc', '-p', 'tests/js/types', '--noEmit'], { cwd: root, encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);
});
