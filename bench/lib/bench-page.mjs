// An empty page of a static server's origin in Debian's Chromium (playwright-core, headless), for the
// benchmarks that run in a browser: the page may import the repository's modules (/dist/…, /bench/…),
// and window.benchLog(line) prints on this process's stderr. Shared by train-browser.mjs and fma.mjs.
import { chromium } from 'playwright-core';
import { serveStatic } from '../../scripts/serve.mjs';

/** Serve `root`, open the page, run `use(page, browserVersion)`, and close everything after. */
export async function withBenchPage(root, name, use) {
  const server = await serveStatic(root, 0);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.exposeFunction('benchLog', (line) => console.error(line));
    await page.route(`${origin}/${name}`, (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><title>${name}</title>` }));
    await page.goto(`${origin}/${name}`);
    return await use(page, browser.version());
  } finally {
    await browser.close();
    server.close();
    server.closeAllConnections();
  }
}
