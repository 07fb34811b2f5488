// Shared by the browser tests: Debian's Chromium through playwright-core, a
// static server on 127.0.0.1 for the built site, and a guard that records
// console errors and any request that leaves localhost.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../scripts/serve.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

let built = Boolean(process.env.ATTENTION_LAB_BUILT); // the e2e run's global set-up built already
/**
 * Build the WASM library and the site when they are missing or stale. The
 * bundles embed the Emscripten glue, so they are rebuilt whenever the .wasm
 * changes; under flock (when available) so a concurrent rebuild of dist/
 * cannot pair a new .wasm with old glue.
 */
export function ensureBuilt() {
  if (built) return; // once per process: loadLab() and useBrowser() both ask
  const locked = existsSync('/usr/bin/flock') ? ['/usr/bin/flock', ['/tmp/build.lock', process.execPath]] : [process.execPath, []];
  for (const script of ['scripts/build.mjs', 'scripts/build-web.mjs']) {
    const r = spawnSync(locked[0], [...locked[1], script, '--if-missing'], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${script} failed:\n${r.stdout}\n${r.stderr}`);
  }
  built = true;
}

// No host resolves but this machine's: a request that would leave it fails at once, and
// watchedPage records it without intercepting every request.
export const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'];

let connection; // this process's connection to the run's browser, shared by its files

/**
 * Chromium for a test file or a script: the e2e run's one browser (started by global-setup.js) when
 * there is one, else a new one. `close()` closes what the file left open. The files of a run share
 * one worker process (vitest.config.mjs) and so one connection, and with it the shared contexts and
 * their spare pages (watchedPage): a file's first page is then a spare too.
 */
export async function launch() {
  const shared = process.env.ATTENTION_LAB_BROWSER;
  if (!shared) {
    // playwright-core gives every launch a fresh temporary profile (it refuses --user-data-dir).
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: BROWSER_ARGS });
    return { browser, close: () => browser.close() };
  }
  connection ??= chromium.connect(shared);
  const browser = await connection;
  // The shared contexts stay with their spare pages; a page a test did not give back, and every
  // context of its own (`isolated`, or made by the test), is closed.
  const close = async () => {
    for (const context of browser.contexts()) {
      if (!context.spare) await context.close();
      else for (const page of context.pages()) if (!context.spare.includes(page)) await page.close();
    }
  };
  return { browser, close };
}

// The documents each test server serves besides its files, by origin (componentPage adds to them).
const pagesOf = new Map();

/** Serve a directory (the repo root by default) on 127.0.0.1. */
export async function server(dir = root) {
  const pages = {};
  const s = await serveStatic(dir, 0, { pages });
  const url = `http://127.0.0.1:${s.address().port}`;
  pagesOf.set(url, pages);
  // close() waits for open connections: a keep-alive or half-read one from the browser could hold a
  // file's teardown until the hook timed out, so they are closed too.
  const close = () =>
    new Promise((ok) => {
      pagesOf.delete(url);
      s.close(ok);
      s.closeAllConnections();
    });
  return { url, close };
}

/** Whether a request stays on this machine (or needs no network at all). */
const local = (u) => u.protocol === 'data:' || u.protocol === 'blob:' || u.hostname === '127.0.0.1' || u.hostname === 'localhost';

// The contexts pages are opened in, one per browser and set of options: a page in a new context
// took about 450 ms to open on this machine, one in an open context 200 ms (the demo then ready
// about 0.6 s sooner from a test's start). The pages of a context share nothing a test could see
// but the HTTP cache: the components keep no storage, and a test that grants permissions or
// watches a context's requests asks for a context of its own (`isolated`).
const sharedContexts = new WeakMap();

function sharedContext(browser, options) {
  if (!sharedContexts.has(browser)) sharedContexts.set(browser, new Map());
  const byOptions = sharedContexts.get(browser);
  const key = JSON.stringify(options);
  if (!byOptions.has(key))
    byOptions.set(key, browser.newContext(options).then((context) => {
      // Requests to other hosts, for every watched page open in it (its `problems.external`).
      context.watchers = new Set();
      context.on('request', (request) => {
        const u = new URL(request.url());
        if (!local(u)) for (const problems of context.watchers) problems.external.push(u.href);
      });
      context.spare = []; // pages a test has closed, on about:blank, for the next test
      return context;
    }));
  return byOptions.get(key);
}

// What a test may do to a page that cannot be undone cheaply: such a page is closed, not kept.
const LASTING = new Set(['emulateMedia', 'exposeFunction', 'exposeBinding', 'setExtraHTTPHeaders', 'clock', 'routeFromHAR', 'routeWebSocket', 'requestGC']);
const LISTENING = new Set(['on', 'once', 'addListener', 'prependListener']);

/**
 * A page of a shared context, lent to one test: a spare page when there is one, else a new one.
 * Opening the demo in a new page took 1.4 s on this machine, in a page that had shown a page of the
 * same site before 0.4 s (its renderer process is running, with its compiled code and fonts). The
 * test gets a stand-in for the page that notes what it changes; `giveBack` undoes it (listeners,
 * init scripts, routes, the viewport), moves the pointer to the corner, goes to about:blank (the
 * old document's workers and timers stop) and keeps the page for the next test, or closes it when
 * the test did something lasting.
 */
async function lendPage(context, viewport) {
  const spare = context.spare.pop();
  const page = spare ?? (await context.newPage());
  // A new page is the browser's front one; a spare is brought to the front: in a page behind
  // another, each pointer move waited for a frame (200 ms, at times 1 s, instead of 30 ms).
  if (spare) await spare.bringToFront();
  const undo = [];
  let lasting = false;
  const lent = new Proxy(page, {
    get(target, name) {
      if (LASTING.has(name)) lasting = true;
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      if (LISTENING.has(name))
        return (event, listener) => {
          undo.push(() => target.removeListener(event, listener));
          target[name](event, listener);
          return lent;
        };
      if (name === 'addInitScript')
        return async (...args) => {
          const added = await target.addInitScript(...args);
          undo.push(() => added.dispose());
          return added;
        };
      if (name === 'route' || name === 'unroute') return (...args) => (undo.push(() => target.unrouteAll({ behavior: 'ignoreErrors' })), target[name](...args));
      if (name === 'setViewportSize') return (...args) => (undo.push(() => target.setViewportSize(viewport)), target.setViewportSize(...args));
      return value.bind(target);
    },
    set(target, name, value) {
      return Reflect.set(target, name, value, target);
    },
  });
  const giveBack = async () => {
    if (page.isClosed()) return;
    if (lasting) return page.close();
    try {
      for (const step of undo.splice(0).reverse()) await step();
      // The pointer to the corner: Chromium hovers what lies under it in the next document too.
      await page.mouse.move(0, 0);
      await page.goto('about:blank');
      context.spare.push(page);
    } catch {
      await page.close().catch(() => {});
    }
  };
  return { page: lent, giveBack };
}

/**
 * A page that records console errors, page errors and requests to other hosts (which fail: launch
 * resolves no other host). Requests are watched, not intercepted: a route on every request sent
 * each one through this process and back.
 *
 * The page is lent from a context shared with the file's other pages of the same options
 * (lendPage: a page another test closed is used again); the returned `context` stands for this
 * test's part of it: `close()` gives the test's pages back, `newPage()` opens another (with the
 * same init scripts), `addInitScript()` applies to the test's pages, `newCDPSession(page)` opens
 * DevTools on one. With `isolated: true` the page
 * gets a context of its own (the real BrowserContext, closed by close()).
 *
 * Its `waitForFunction` polls every 50 ms unless a test says otherwise: Playwright's default polls
 * in every animation frame, which keeps Chromium drawing frames (and both cores busy) for as long
 * as a test waits. Tests that wait for an element's work await its `updateComplete` instead
 * (`settled`, `ready`).
 */
export async function watchedPage(browser, { isolated = false, ...options } = {}) {
  const problems = { console: [], external: [] };
  const context = isolated ? await browser.newContext(options) : await sharedContext(browser, options);
  if (isolated)
    context.on('request', (request) => {
      const u = new URL(request.url());
      if (!local(u)) problems.external.push(u.href);
    });
  else context.watchers.add(problems);
  const scripts = [];
  // ATTENTION_LAB_IDLE_DELAY=400: every idle callback comes 400 ms later than the browser would
  // call it (a slow machine's idle periods), to show that tests wait on updateComplete, not on time.
  const delay = Number(process.env.ATTENTION_LAB_IDLE_DELAY ?? 0);
  if (delay > 0)
    scripts.push([(ms) => {
      const idle = window.requestIdleCallback.bind(window);
      window.requestIdleCallback = (f, o) => setTimeout(() => idle(f, o), ms);
    }, delay]);
  const pages = [];
  const giveBacks = [];
  const open = async () => {
    let p;
    if (isolated) p = await context.newPage();
    else {
      const lent = await lendPage(context, options.viewport ?? { width: 1280, height: 720 });
      giveBacks.push(lent.giveBack);
      p = lent.page;
    }
    pages.push(p);
    for (const [script, arg] of scripts) await p.addInitScript(script, arg);
    return p;
  };
  const page = await open();
  // The browser asks a test page's server for /favicon.ico, which a plain test page has none of:
  // that 404 is the test server's, not the page's.
  const favicon = (m) => new URL(m.location().url || 'about:blank').pathname === '/favicon.ico';
  page.on('console', (m) => m.type() === 'error' && !favicon(m) && problems.console.push(m.text()));
  page.on('pageerror', (e) => problems.console.push(String(e)));
  const waitForFunction = page.waitForFunction.bind(page);
  const polled = (fn, arg, waitOptions) => waitForFunction(fn, arg, { polling: 50, ...waitOptions });
  if (isolated) {
    page.waitForFunction = polled;
    return { page, context, problems };
  }
  const watched = new Proxy(page, { get: (target, name) => (name === 'waitForFunction' ? polled : target[name]) });
  const part = {
    newPage: open,
    async addInitScript(script, arg) {
      scripts.push([script, arg]);
      for (const p of pages) await p.addInitScript(script, arg);
    },
    // The benchmarks' DevTools sessions (a page lent to them, the real one behind the stand-in).
    newCDPSession: (p) => context.newCDPSession(p),
    async close() {
      context.watchers.delete(problems);
      pages.splice(0);
      await Promise.all(giveBacks.splice(0).map((giveBack) => giveBack()));
    },
  };
  return { page: watched, context: part, problems };
}

/**
 * A plain page (no CSS of ours) on the test server's origin holding `body` and dist/components.js,
 * with `csp` sent as a Content-Security-Policy header when given. CSP violations are collected in
 * `window.__violations`, dialogs (dismissed) in the returned `dialogs`. Resolves once there is a
 * `selector` element and every one of them has rendered.
 */
export async function componentPage(browser, origin, body, { selector, lang = 'en', csp, viewport = { width: 1280, height: 900 } } = {}) {
  const w = await watchedPage(browser, { viewport, locale: 'en-US' });
  w.dialogs = [];
  w.page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    d.dismiss();
  });
  await w.page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
  const path = `/__page-${Math.random().toString(36).slice(2)}.html`;
  const url = `${origin}${path}`;
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>components</title><script type="module" src="/dist/components.js"></script></head><body>${body}</body></html>`;
  const page = { body: html, headers: csp ? { 'Content-Security-Policy': csp } : {} };
  // Served by the test server itself; a route (another server's origin) intercepts every request.
  if (pagesOf.has(origin)) pagesOf.get(origin)[path] = page;
  else await w.page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', headers: page.headers, body: html }));
  await w.page.goto(url);
  await w.page.waitForSelector(selector, { state: 'attached' });
  await w.page.evaluate((sel) => Promise.all([...document.querySelectorAll(sel)].map(async (el) => {
    await customElements.whenDefined(el.localName);
    await el.updateComplete;
  })), selector);
  return w;
}

/**
 * New elements from `markup` in place of the page's body (the HTML parser's fragment path), every
 * one of them settled: for tests that need new elements but not a new page (a page of components
 * takes about a second to open; the module stays loaded here).
 */
export async function withElements(page, markup) {
  await page.evaluate((m) => (document.body.innerHTML = m), markup);
  await settled(page);
}

/** Open the explorer's folded "Settings" (the controls other than the sentence are hidden until then). */
export async function openSettings(page, selector = 'attention-explorer') {
  await page.evaluate((sel) => (document.querySelector(sel).shadowRoot.querySelector('details.settings').open = true), selector);
}

/** Wait until the element `selector` (and every attention-lab element shown inside it) has nothing pending: its updateComplete. */
export async function ready(page, selector = 'attention-explorer') {
  await page.waitForSelector(selector, { state: 'attached' });
  await page.evaluate(async (sel) => {
    const el = document.querySelector(sel);
    await customElements.whenDefined(el.localName);
    await el.updateComplete;
  }, selector);
}
/** On the demo page: wait until the URL holds the latest state (it is written at most every 250 ms). */
export async function urlWritten(page) {
  await page.waitForFunction(() => !('urlPending' in document.documentElement.dataset));
  return page.url();
}

/**
 * Wait until every attention-lab element in the document has nothing pending (each one's
 * updateComplete, which waits for the elements shown inside it): each heatmap's labels and
 * data-value are written (they follow a change when the page is next idle).
 */
export async function settled(page) {
  await page.evaluate(async () => {
    const elements = [...document.querySelectorAll('*')].filter((el) => el.localName.startsWith('attention-') && !el.closest('[hidden]'));
    await Promise.all(elements.map(async (el) => {
      await customElements.whenDefined(el.localName);
      await el.updateComplete;
    }));
  });
}

/**
 * Runs in the page (page.evaluate(audit, panel)): controls without an accessible name, data tables
 * without row and column headers, text below WCAG AA contrast. Without `panel` it walks every
 * shadow root of the document; with a tag, the explorer and that panel's shadow root (hidden parts
 * of the explorer left out).
 */
export function audit(panel) {
  const all = [];
  if (panel) {
    const explorer = document.querySelector('attention-explorer').shadowRoot;
    const own = explorer.querySelector(panel).shadowRoot;
    all.push(...[...explorer.querySelectorAll('*'), ...own.querySelectorAll('*')].filter((el) => !el.closest('[hidden]') || el.getRootNode() === own));
  } else {
    const visit = (r) => {
      for (const el of r.querySelectorAll('*')) {
        all.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(document);
  }
  // Text at opacity 0 is not seen.
  const visible = (el) => el.getClientRects().length > 0 && el.checkVisibility({ opacityProperty: true });
  const nameOf = (el) => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(' ').map((id) => el.getRootNode().getElementById(id)?.textContent ?? '').join(' ');
    if (el.labels?.length) return el.labels[0].textContent;
    return el.textContent;
  };
  const unnamed = all
    .filter((el) => el.matches('button, input, select, textarea, summary, [role="tab"], table') && visible(el))
    .filter((el) => !nameOf(el)?.trim())
    .map((el) => el.outerHTML.slice(0, 100));
  const tables = all.filter((el) => el.matches('table[role="grid"]') && visible(el));
  const headerless = tables.filter((t) => !t.querySelector('thead th[scope="col"]') || !t.querySelector('tbody th[scope="row"]')).length;

  const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
  const lum = ([r, g, bl]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(bl);
  };
  // Each element's answer is kept: the text of a table shares its ancestors' backgrounds.
  const backgrounds = new Map();
  const background = (el) => {
    if (!el) return rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3);
    if (backgrounds.has(el)) return backgrounds.get(el);
    const style = getComputedStyle(el);
    const c = rgb(style.backgroundColor);
    let found;
    if (c.length === 3 || (c.length === 4 && c[3] === 1)) found = c.slice(0, 3);
    else if (style.backgroundImage !== 'none') found = null; // hatched cells: checked by colour choice
    else found = background(el.parentElement ?? el.getRootNode().host);
    backgrounds.set(el, found);
    return found;
  };
  const low = [];
  for (const el of all) {
    if (!visible(el)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.katex, svg')) continue;
    const bg = background(el);
    if (!bg) continue;
    const fg = rgb(getComputedStyle(el).color).slice(0, 3);
    const [a, c] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (c + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return { unnamed, tables: tables.length, headerless, low: [...new Set(low)].slice(0, 20) };
}

/**
 * The accessibility audit (`audit`) of `panel` (a tag, as audit takes it; the whole document
 * without it) held to what every view must meet: each control named, each data table with row and
 * column headers, no text below WCAG AA contrast, and (`tables`, when given) at least that many
 * data tables. `where` names the view in a failure. Resolves to audit's result for further checks.
 */
export async function expectAccessible(page, panel, { where = panel ?? 'the page', tables } = {}) {
  const r = await page.evaluate(audit, panel);
  assert.deepEqual(r.unnamed, [], `${where}: controls without an accessible name`);
  if (tables !== undefined) assert.ok(r.tables >= tables, `${where}: ${r.tables} data tables, fewer than ${tables}`);
  assert.equal(r.headerless, 0, `${where}: data tables without row and column headers`);
  assert.deepEqual(r.low, [], `${where}: text below WCAG AA contrast`);
  return r;
}

/**
 * Where a screenshot of the tests goes: a temporary folder, or the folder `npm run screenshots` names
 * in ATTENTION_LAB_SCREENSHOTS (docs/screenshots, the README's pictures). A test never writes a
 * tracked file, so two runs of the same commit leave the tree as they found it.
 */
export function screenshotFile(name) {
  const dir = process.env.ATTENTION_LAB_SCREENSHOTS ? resolve(root, process.env.ATTENTION_LAB_SCREENSHOTS) : join(tmpdir(), 'attention-lab-screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/**
 * Quantise a PNG kept for the docs (npm run screenshots) with pngquant where it is installed (a
 * lossy palette; text stays sharp); a test's own screenshot in the temporary folder is left as taken.
 */
export function quantise(file) {
  if (process.env.ATTENTION_LAB_SCREENSHOTS) spawnSync('pngquant', ['--force', '--ext', '.png', '--quality', '65-90', '--skip-if-larger', file]);
}

/**
 * A panel's screenshots at 1280 px, in English as <name>-en-1280.png and in Chinese as
 * <name>-zh-1280.png (screenshotFile), with no console problem, then nothing on the page wider than
 * a 375 px phone. `open(body, options)` is the
 * file's componentPage; `bodies` maps 'en' and 'zh' to the markup (its element has id "s");
 * `check(page)` may look further at the 375 px layout.
 */
export async function panelScreenshots(open, { name, bodies, height, check }) {
  for (const lang of ['en', 'zh']) {
    // Tall enough that the whole panel is on screen when captured.
    const { page, problems, context } = await open(bodies[lang], { viewport: { width: 1280, height } });
    await page.evaluate(() => document.fonts.ready);
    const file = screenshotFile(`${name}-${lang}-1280.png`);
    await page.locator('#s').screenshot({ path: file });
    quantise(file);
    if (problems.console.length) throw new Error(`${name} (${lang}): console problems ${JSON.stringify(problems.console)}`);
    await page.setViewportSize({ width: 375, height: 900 });
    await page.waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth);
    if (check) await check(page);
    await context.close();
  }
}
