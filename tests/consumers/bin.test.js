// `npx attention-lab` from the installed tarball: the bin serves a demo page from the package's
// dist/ on 127.0.0.1 (the explorer with sync-url and a language switch); a link's state opens
// the same view in Chromium, a change is written back to the URL with the page's other query
// parameters and fragment kept; a bad --port is a clear message and exit code 2.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freshApp, launch } from './helpers.js';

describe('npx attention-lab', () => {
  let app;
  let server;
  let url;
  let browser;

  beforeAll(async () => {
    app = freshApp('bin');
    server = spawn(join(app, 'node_modules', '.bin', 'attention-lab'), ['--port', '0'], { cwd: app });
    url = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk) => {
        out += chunk;
        const m = out.match(/attention-lab demo: (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m) resolve(m[1]);
      });
      server.on('exit', (code) => reject(new Error(`attention-lab exited (${code}): ${out}`)));
    });
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.kill();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('serves the demo page, the module, the .wasm as application/wasm, and nothing outside dist/', async () => {
    const html = await (await fetch(url)).text();
    expect(html).toContain('<attention-explorer sync-url>');
    const js = await fetch(`${url}components.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const wasm = await fetch(`${url}attention-lab-simd.wasm`);
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    expect((await fetch(`${url}..%2Fpackage.json`)).status).toBeGreaterThanOrEqual(403);
    // a path that is not valid percent-encoding is a 400, and the server keeps serving
    expect((await fetch(`${url}%E0%A4%A`)).status).toBe(400);
    expect((await fetch(url)).status).toBe(200);
  });

  it('opens the view a link gives, and writes every change back to the URL (other parameters and the fragment kept)', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    await page.goto(`${url}?utm=blog&panel=heads&lang=zh-CN&s=${encodeURIComponent('我爱学习')}#demo`);
    await page.waitForFunction(() => 'ready' in (document.querySelector('attention-explorer')?.dataset ?? {}));
    const shown = await page.evaluate(() => {
      const ex = document.querySelector('attention-explorer');
      const tab = ex.shadowRoot.querySelector('[role="tab"][aria-selected="true"]');
      return { lang: ex.language, select: document.getElementById('lang').value, panel: ex.panel, tab: tab?.textContent, sentence: ex.state.sentence };
    });
    expect(shown).toMatchObject({ lang: 'zh-CN', select: 'zh-CN', panel: 'heads', sentence: '我爱学习' });
    expect(shown.tab).toMatch(/多头/);
    // a change inside the explorer, then the language switch of the page
    await page.evaluate(() => document.querySelector('attention-explorer').selectPanel('cost'));
    await page.selectOption('#lang', 'en');
    await page.waitForFunction(() => /lang=en/.test(location.search) && !('urlPending' in document.documentElement.dataset));
    const written = new URL(page.url());
    expect(written.searchParams.get('panel')).toBe('cost');
    expect(written.searchParams.get('utm')).toBe('blog');
    expect(written.searchParams.get('s')).toBe('我爱学习');
    expect(written.hash).toBe('#demo');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a bad --port is a clear message and exit code 2', () => {
    const r = spawnSync(join(app, 'node_modules', '.bin', 'attention-lab'), ['--port', 'eighty'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--port is "eighty"; give a port number from 0 to 65535/);
  });
});
