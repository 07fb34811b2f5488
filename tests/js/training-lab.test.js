// web/src/training-lab.js's loadOnce, behind getTrained and getReader: a load runs once per key and
// is shared by every caller; a failed load is forgotten, so the next call tries again.
import { describe, expect, it } from 'vitest';

import { loadOnce } from '../../web/src/training-lab.js';

describe('loadOnce', () => {
  it('runs a key’s load once and shares it; another key loads on its own', async () => {
    const cache = new Map();
    let runs = 0;
    const load = (value) => () => Promise.resolve((runs++, value));
    const [a, b] = [loadOnce(cache, 'en', load('en reader')), loadOnce(cache, 'en', load('other'))];
    expect(a).toBe(b);
    expect(await a).toBe('en reader');
    expect(await loadOnce(cache, 'zh-CN', load('zh reader'))).toBe('zh reader');
    expect(runs).toBe(2);
  });

  it('a failed load rejects every caller that shared it, and the next call loads again', async () => {
    const cache = new Map();
    let runs = 0;
    const flaky = () => (++runs === 1 ? Promise.reject(new Error('404')) : Promise.resolve('loaded'));
    const [a, b] = [loadOnce(cache, 'en', flaky), loadOnce(cache, 'en', flaky)];
    await expect(a).rejects.toThrow('404');
    await expect(b).rejects.toThrow('404');
    expect(await loadOnce(cache, 'en', flaky)).toBe('loaded');
    expect(await loadOnce(cache, 'en', flaky)).toBe('loaded');
    expect(runs).toBe(2);
  });
});
