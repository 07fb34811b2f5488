#!/usr/bin/env node
// `npm start`: install what is missing (scripts/setup.mjs), build what is missing
// (the WASM library, then the site), then serve site/ on localhost and print the URL.
// Usage: node scripts/serve.mjs [--port N]   (or PORT=N; 0 picks a free port; with neither, 8080 or
// the first free port after it)
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveOnFreePort } from '../bin/static-server.mjs';
import { setUpOrExit } from './setup.mjs';

export { serveStatic, TYPES } from '../bin/static-server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'site');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = (args) => {
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  setUpOrExit('start'); // before build-web.mjs, which imports vite
  run(['scripts/build.mjs', '--if-missing']);
  run(['scripts/build-web.mjs', '--if-missing']);
  try {
    const server = await serveOnFreePort(site, process.argv.slice(2), process.env, 8080);
    console.log(`attention-lab demo: http://127.0.0.1:${server.address().port}/`);
  } catch (e) {
    console.error(`npm start: ${e.message}`);
    process.exit(e.code === 'EADDRINUSE' ? 1 : 2);
  }
}
