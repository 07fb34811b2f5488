import { BaseSequencer } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// The files known to take longest start first. Vitest orders files by their times in its cache,
// and without one (a fresh clone: CI) by size, largest first: outside CI the consumers' fresh clone
// (a WASM build, about 140 s) then started two minutes into its stage.
const LONGEST = [
  'tests/consumers/embedding.test.js', 'tests/consumers/fresh-clone.test.js',
  'tests/js/checkpoints.test.js', 'tests/js/reader-checkpoint.test.js', 'tests/js/training-goal.test.js',
];
class LongestFirst extends BaseSequencer {
  async sort(files) {
    const rank = (file) => {
      const at = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return at < 0 ? LONGEST.length : at;
    };
    const sorted = await super.sort(files);
    return sorted.map((file, i) => [file, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([file]) => file);
  }
}

const FRESH_PROCESS = 'tests/js/fma-init.test.js';

// One project per runner directory; npm test runs them as separate stages.
export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      // The files of a worker share its process (isolate: false: the stage took 95 s, now about 60), except the one that
      // needs a process where Node's relaxed-SIMD flag was never switched on.
      // Two workers, one per core (Vitest's default on 2 cores is one: the stage ran its files one
      // after another).
      { test: { name: 'js', include: ['tests/js/**/*.test.{js,mjs,ts}'], exclude: [FRESH_PROCESS], testTimeout: 60_000, isolate: false, maxWorkers: 2 } },
      { test: { name: 'js-fresh-process', include: [FRESH_PROCESS], testTimeout: 60_000, maxWorkers: 2 } }, // the same as js: one group
      // One file at a time, all of them in one Chromium (global-setup.js) and one worker process
      // (isolate: false): the files share their imports (28 s of the stage when each file made its
      // own process) and the browser helpers' spare pages.
      { test: { name: 'e2e', include: ['tests/e2e/**/*.test.{js,mjs}'], globalSetup: ['tests/e2e/global-setup.js'], testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false, isolate: false } },
      // Two files at a time: their npm installs wait on the network and disk while another builds
      // (the shared caches are taken under flock, see tests/consumers/helpers.js).
      { test: { name: 'consumers', include: ['tests/consumers/**/*.test.{js,mjs}'], testTimeout: 300_000, hookTimeout: 300_000, maxWorkers: 2 } },
    ],
  },
});
