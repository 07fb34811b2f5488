import { defineConfig } from 'vitest/config';

// One project per runner directory; npm test runs them as separate stages.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'js', include: ['tests/js/**/*.test.{js,mjs,ts}'], testTimeout: 60_000 } },
      { test: { name: 'e2e', include: ['tests/e2e/**/*.test.{js,mjs}'], testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false } },
      // Two files at a time: their npm installs wait on the network and disk while another builds
      // (the shared caches are taken under flock, see tests/consumers/helpers.js).
      { test: { name: 'consumers', include: ['tests/consumers/**/*.test.{js,mjs}'], testTimeout: 300_000, hookTimeout: 300_000, maxWorkers: 2 } },
    ],
  },
});
