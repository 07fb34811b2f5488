// bench/train.mjs in Chromium: the same loop (bench/lib/train-to-goal.mjs) run in a page of Debian's
// Chromium (playwright-core, headless), on the training build the page loads from dist/training.js.
// Takes the same arguments as bench/train.mjs, e.g.
//   node bench/train-browser.mjs --task=all
// Prints a line per check on stderr and one JSON line per task on stdout.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../scripts/serve.mjs';
import { parseTrainingArgs } from './train.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist', 'training.js'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');
const { tasks, simd, options } = parseTrainingArgs(process.argv.slice(2));

const server = await serveStatic(root, 0);
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.exposeFunction('benchLog', (line) => console.error(line));
  // An empty page of the server's origin, so the page may import the library's modules from it.
  await page.route(`${origin}/train-bench`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>train</title>' }));
  await page.goto(`${origin}/train-bench`);
  const browserVersion = browser.version();
  for (const name of tasks) {
    const result = await page.evaluate(async ({ name, simd, options }) => {
      const { init } = await import('/dist/training.js');
      const { trainToGoal } = await import('/bench/lib/train-to-goal.mjs');
      const lab = await init({ simd });
      return trainToGoal(lab, name, options, (line) => window.benchLog(line));
    }, { name, simd, options });
    console.log(JSON.stringify({ environment: `Chromium ${browserVersion}`, ...result }));
  }
} finally {
  await browser.close();
  server.close();
  server.closeAllConnections();
}
