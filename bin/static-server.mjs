// A small static file server on 127.0.0.1, for `npm start` (scripts/serve.mjs), `npx attention-lab`
// (bin/attention-lab.mjs) and the browser tests. Files outside `dir` are refused; a folder serves its
// index.html; `pages` adds documents that are not files ({ '/': html }, or { '/': { body, headers } }),
// and may be added to while the server runs; `headers` go with every response (a test's
// Content-Security-Policy).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serve `dir` on 127.0.0.1 (port 0 picks a free one). Resolves to the http.Server. */
export function serveStatic(dir, port = 0, { pages = {}, headers: always = {} } = {}) {
  // A link to the demo carries its state in the query, typed matrices included (up to 4 × 64 × 64
  // numbers): far longer than Node's default limit of 16 KB for a request's head.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400, { ...always, 'content-type': 'text/plain' }).end('bad request: the path is not valid percent-encoding');
      return;
    }
    if (Object.hasOwn(pages, path)) {
      const page = pages[path];
      const { body, headers = {} } = typeof page === 'string' ? { body: page } : page;
      res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-cache', ...always, ...headers }).end(body);
      return;
    }
    let file = normalize(join(dir, path));
    if (file !== dir && !file.startsWith(dir + sep)) {
      res.writeHead(403, always).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { ...always, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // Asked again each time (no-cache), answered 304 while the file is the same: the browser uses
    // the copy it has instead of loading the file again, and a rebuilt file is fetched at once.
    const { size, mtimeMs } = statSync(file);
    const etag = `W/"${size}-${Math.floor(mtimeMs)}"`;
    const headers = { ...always, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', etag };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** How many ports after the default one `serveOnFreePort` tries. */
const PORTS_TRIED = 20;

/**
 * Serve `dir` (as serveStatic) on the port asked for (`--port N`, else $PORT), or, when none is
 * asked for, on `fallback` or the first free port after it: another server often holds 8080. A port
 * asked for and busy rejects with a one-line Error (its `code` EADDRINUSE).
 */
export async function serveOnFreePort(dir, argv, env, fallback, options) {
  const asked = portFrom(argv, env, null);
  if (asked !== null) {
    try {
      return await serveStatic(dir, asked, options);
    } catch (e) {
      throw Object.assign(new Error(`cannot listen on 127.0.0.1:${asked} (${e.code ?? e.message}); give another port, or --port 0 for a free one`), { code: e.code });
    }
  }
  for (let port = fallback; ; port++) {
    try {
      return await serveStatic(dir, port, options);
    } catch (e) {
      if (e.code !== 'EADDRINUSE' || port >= fallback + PORTS_TRIED) throw e;
    }
  }
}

/** The port asked for: `--port N`, else $PORT, else `fallback`. Throws on a value that is not a port. */
export function portFrom(argv, env, fallback) {
  const at = argv.indexOf('--port');
  const given = at >= 0 ? argv[at + 1] : env.PORT;
  if (given === undefined || given === '') return fallback;
  const port = Number(given);
  const source = at >= 0 ? '--port' : 'PORT';
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${source} is ${JSON.stringify(given)}; give a port number from 0 to 65535 (0 picks a free one)`);
  return port;
}
