// bench/train.mjs in Chromium: the same loop (bench/lib/train-to-goal.mjs) run in a page of Debian's
// Chromium (playwright-core, headless), on the training build the page loads from dist/training.js.
// Takes the same arguments as bench/train.mjs, e.g.
//   node bench/train-browser.mjs --task=all
// Prints a line per check on stderr and one JSON line per task on stdout.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBenchPage } from './lib/bench-page.mjs';
import { parseTrainingArgs } from './train.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist', 'training.js'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');
const { tasks, simd, options } = parseTrainingArgs(process.argv.slice(2));

await withBenchPage(root, 'train-bench', async (page, version) => {
  for (const name of tasks) {
    const result = await page.evaluate(async ({ name, simd, options }) => {
      const { init } = await import('/dist/training.js');
      const { trainToGoal } = await import('/bench/lib/train-to-goal.mjs');
      const lab = await init({ simd });
      return trainToGoal(lab, name, options, (line) => window.benchLog(line));
    }, { name, simd, options });
    console.log(JSON.stringify({ environment: `Chromium ${version}`, ...result }));
  }
});
