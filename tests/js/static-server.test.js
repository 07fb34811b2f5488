// The static server of `npm start`, `npx attention-lab` and the browser tests (bin/static-server.mjs):
// types, pages that are not files, nothing outside its folder, and a file asked for again is a
// 304 while it is unchanged (the browser keeps its copy and what it compiled), a 200 once changed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnFreePort, serveStatic } from '../../bin/static-server.mjs';

const bin = fileURLToPath(new URL('../../bin/attention-lab.mjs', import.meta.url));

let dir, server, url;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attention-lab-static-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><p>hi</p>');
  writeFileSync(join(dir, 'lib.wasm'), Buffer.from([0, 97, 115, 109]));
  server = await serveStatic(dir, 0, { pages: { '/made.html': { body: '<p>made</p>', headers: { 'x-extra': '1' } } }, headers: { 'x-every': 'yes' } });
  url = `http://127.0.0.1:${server.address().port}`;
});
afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

describe('static server', () => {
  it('serves files with their types, a folder as its index.html, pages that are not files, 404 and 400', async () => {
    const wasm = await fetch(`${url}/lib.wasm`);
    expect([wasm.status, wasm.headers.get('content-type')]).toEqual([200, 'application/wasm']);
    expect(await (await fetch(`${url}/`)).text()).toBe('<!doctype html><p>hi</p>');
    const made = await fetch(`${url}/made.html`);
    expect([made.status, made.headers.get('x-extra'), await made.text()]).toEqual([200, '1', '<p>made</p>']);
    expect((await fetch(`${url}/missing.js`)).status).toBe(404);
    expect([wasm.headers.get('x-every'), made.headers.get('x-every')]).toEqual(['yes', 'yes']);
    // A link holding four typed 64×64 matrices: a request head far over Node's default 16 KB.
    const long = await fetch(`${url}/?wq=${'0.125,'.repeat(4 * 64 * 64)}`);
    expect(long.status).toBe(200);
    expect((await fetch(`${url}/%E0%A4%A`)).status).toBe(400);
  });

  it('answers 304 to a request with the current ETag, and 200 with a new one once the file changed', async () => {
    const first = await fetch(`${url}/lib.wasm`);
    const etag = first.headers.get('etag');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(etag).toMatch(/^W\/"4-\d+"$/);
    const again = await fetch(`${url}/lib.wasm`, { headers: { 'if-none-match': etag } });
    expect([again.status, (await again.arrayBuffer()).byteLength]).toEqual([304, 0]);
    writeFileSync(join(dir, 'lib.wasm'), Buffer.from([0, 97, 115, 109, 1]));
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, 'lib.wasm'), later, later);
    const changed = await fetch(`${url}/lib.wasm`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((await changed.arrayBuffer()).byteLength).toBe(5);
  });

  describe('a busy port', () => {
    let holder, busy;
    beforeAll(async () => {
      holder = createServer();
      await new Promise((ok) => holder.listen(0, '127.0.0.1', ok));
      busy = holder.address().port;
    });
    afterAll(() => new Promise((ok) => holder.close(ok)));
    const closed = (server) => new Promise((ok) => server.close(ok));

    it('with no port asked for, the default one or, when it is busy, the first free port after it', async () => {
      const next = await serveOnFreePort(dir, [], {}, busy);
      expect(next.address().port).toBeGreaterThan(busy);
      expect(next.address().port).toBeLessThanOrEqual(busy + 20);
      await closed(next);
    });

    it('a port asked for and busy rejects in one line, naming it; --port 0 picks a free one', async () => {
      for (const [argv, env] of [[['--port', String(busy)], {}], [[], { PORT: String(busy) }]]) {
        const refused = serveOnFreePort(dir, argv, env, 8080);
        await expect(refused).rejects.toThrow(`cannot listen on 127.0.0.1:${busy} (EADDRINUSE); give another port, or --port 0 for a free one`);
        await expect(refused).rejects.toMatchObject({ code: 'EADDRINUSE' });
      }
      const free = await serveOnFreePort(dir, ['--port', '0'], {}, busy);
      expect(free.address().port).not.toBe(busy);
      await closed(free);
    });

    it('npx attention-lab --port <busy>: one line on stderr and exit status 1, no stack trace', () => {
      const r = spawnSync(process.execPath, [bin, '--port', String(busy)], { encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([`attention-lab: cannot listen on 127.0.0.1:${busy} (EADDRINUSE); give another port, or --port 0 for a free one`]);
      const bad = spawnSync(process.execPath, [bin, '--port', 'eighty'], { encoding: 'utf8', timeout: 20_000 });
      expect([bad.status, bad.stderr.trim()]).toEqual([2, 'attention-lab: --port is "eighty"; give a port number from 0 to 65535 (0 picks a free one)']);
    });
  });
});
