#!/usr/bin/env node
// `npx attention-lab`: the demo served from the installed package's dist/ on 127.0.0.1 — the
// explorer with sync-url (links to a view) and a language switch. Usage: attention-lab [--port N]
// (or PORT=N; 0 picks a free one; with neither, 8080 or the first free port after it; a port asked
// for and busy is one line and exit status 1). Prints the URL; Ctrl-C stops it.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveOnFreePort } from './static-server.mjs';

const dist = fileURLToPath(new URL('../dist', import.meta.url));

export const DEMO_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>attention-lab</title>
  <link rel="icon" href="data:,">
  <style>body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 0 auto; padding: 0 1rem 2rem; }
  header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }</style>
  <script type="module" src="./components.js"></script>
</head>
<body>
  <header>
    <h1>attention-lab</h1>
    <label>Language / 语言 <select id="lang"><option value="en">English</option><option value="zh-CN">中文</option></select></label>
  </header>
  <main><attention-explorer sync-url></attention-explorer></main>
  <script type="module">
    const explorer = document.querySelector('attention-explorer');
    const select = document.getElementById('lang');
    await customElements.whenDefined('attention-explorer');
    const show = (lang) => { select.value = lang; document.documentElement.lang = lang; };
    show(explorer.language);
    select.addEventListener('change', () => { explorer.setAttribute('lang', select.value); show(select.value); });
  </script>
</body>
</html>
`;

// Run as a command (through npx's symlink too), not when a test imports DEMO_PAGE.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  try {
    const server = await serveOnFreePort(dist, process.argv.slice(2), process.env, 8080, { pages: { '/': DEMO_PAGE, '/index.html': DEMO_PAGE } });
    console.log(`attention-lab demo: http://127.0.0.1:${server.address().port}/`);
  } catch (e) {
    console.error(`attention-lab: ${e.message}`);
    process.exit(e.code === 'EADDRINUSE' ? 1 : 2);
  }
}
