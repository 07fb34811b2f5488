// urlWithState (web/src/url-sync.js): our keys replaced by the state's, in the stable order of
// config.js; the host page's other parameters and its fragment kept; keys whose value is empty
// dropped. followInUrl: one write at most every 250 ms by the page's own clock, the last state kept.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followInUrl, urlWithState } from '../../web/src/url-sync.js';

describe('urlWithState', () => {
  it('keeps the page path, its own parameters and the fragment, and replaces ours', () => {
    const out = urlWithState('https://blog.example/posts/attn/?utm=x&panel=heads&s=old#demo', { panel: 'cost', sentence: 'the cat', lang: 'en' });
    const u = new URL(out, 'https://blog.example');
    expect(u.pathname).toBe('/posts/attn/');
    expect(u.hash).toBe('#demo');
    expect(u.searchParams.get('utm')).toBe('x');
    expect(u.searchParams.get('panel')).toBe('cost');
    expect(u.searchParams.get('s')).toBe('the cat');
    expect(u.searchParams.getAll('panel')).toHaveLength(1);
  });

  it('drops our keys the state no longer holds, and writes nothing for an empty state', () => {
    expect(urlWithState('http://h/p?step=weights&keep=1', {})).toBe('/p?keep=1');
    expect(urlWithState('http://h/p?step=weights', { step: '' })).toBe('/p');
    expect(urlWithState('http://h/p#x', { seed: 7 })).toBe('/p?seed=7#x');
  });
});

// followInUrl in a stand-in page: a clock we move by hand, timers we fire by hand (possibly early,
// as Chromium's did once in CI: 247.8 ms after the last write by performance.now()).
function standInPage() {
  let now = 1000;
  const timers = [];
  const writes = [];
  vi.stubGlobal('performance', { now: () => now });
  vi.stubGlobal('setTimeout', (fn, ms) => timers.push({ fn, at: now + ms }));
  vi.stubGlobal('clearTimeout', () => timers.splice(0));
  vi.stubGlobal('document', { documentElement: { dataset: {} } });
  vi.stubGlobal('location', { href: 'http://h/p' });
  vi.stubGlobal('history', { state: null, replaceState: (s, t, url) => writes.push({ at: now, url }) });
  return {
    writes,
    timers,
    advance: (ms) => (now += ms),
    fire: () => timers.shift().fn(), // whatever the clock says
  };
}

describe('followInUrl', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('writes after the change (never inside it), then at most every 250 ms, and waits out a timer that fires early', () => {
    const page = standInPage();
    const { follow } = followInUrl(new EventTarget());
    follow({ seed: 1 });
    // Not inside the change: history.replaceState recomputes styles (twice per language switch when it did).
    expect(page.writes).toEqual([]);
    expect(page.timers.map((t) => t.at)).toEqual([1000]); // a 0 ms timer: after the task
    page.fire();
    expect(page.writes.map((w) => w.url)).toEqual(['/p?seed=1']);
    page.advance(10);
    follow({ seed: 2 });
    follow({ seed: 3 });
    expect(page.timers).toHaveLength(1);
    page.advance(237.8); // the timer fires 247.8 ms after the first write
    page.fire();
    expect(page.writes).toHaveLength(1);
    expect(page.timers).toHaveLength(1); // rescheduled for the 2.2 ms left
    page.advance(2.2);
    page.fire();
    expect(page.writes.map((w) => w.url)).toEqual(['/p?seed=1', '/p?seed=3']);
    expect(page.writes[1].at - page.writes[0].at).toBeGreaterThanOrEqual(250);
  });

  it('stop() writes the waiting state at once, however recent the last write', () => {
    const page = standInPage();
    const { follow, stop } = followInUrl(new EventTarget());
    follow({ seed: 1 });
    page.fire();
    page.advance(5);
    follow({ seed: 2 });
    stop();
    expect(page.writes.map((w) => w.url)).toEqual(['/p?seed=1', '/p?seed=2']);
  });
});
