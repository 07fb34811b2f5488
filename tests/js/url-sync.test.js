// urlWithState (web/src/url-sync.js): our keys replaced by the state's, in the stable order of
// config.js; the host page's other parameters and its fragment kept; keys whose value is empty
// dropped; a state without any of our keys leaves the rest as it was.
import { describe, expect, it } from 'vitest';
import { urlWithState } from '../../web/src/url-sync.js';

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
