#!/usr/bin/env node
// `npm start`: install what is missing (scripts/setup.mjs), build what is missing
// (the WASM library, then the site), then serve site/ on localhost and print the URL.
// Usage: node scripts/serve.mjs [--port N]   (or PORT=N; 0 picks a free port)
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { portFrom, serveStatic } from '../bin/static-server.mjs';
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
  const port = portFrom(process.argv.slice(2), process.env, 8080);
  const server = await serveStatic(site, port);
  console.log(`attention-lab demo: http://127.0.0.1:${server.address().port}/`);
}
