// The URL keeps every panel's own settings (compare's hidden size, pooling's query, cross's
// source, scoring and valid lengths, positions' swap, cost's window, Linformer k and largest n,
// the transformer's positional encoding and step): each is set through the panel's controls,
// read back from the URL, and the URL opened in a fresh page shows the same panel: the same tab,
// attributes, controls and numbers. Values a link carries are the panels' to check: a hostile
// one gives the panel's note, never an error, and the link written back stays bounded.
import { describe, expect, test } from 'vitest';
import { ready, watchedPage, urlWritten } from './browser.js';
import { useBrowser } from './use-browser.js';
import { MAX_SENTENCE } from '../../web/src/model.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo

const pages = [];
async function open(url) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  w.dialogs = [];
  w.page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    d.dismiss();
  });
  pages.push(w);
  await w.page.goto(url.startsWith('http') ? url : `${s.url}/${url}`);
  await ready(w.page);
  return w;
}
async function closeAll() {
  for (const w of pages.splice(0)) await w.context.close();
}

/** Runs `body` in the page with `el` (the explorer's attention-<tag>) and `root` (its shadow root). */
const inPanel = (page, tag, body, arg) =>
  page.evaluate(
    ([t, fn, a]) => {
      const el = document.querySelector('attention-explorer').shadowRoot.querySelector(`attention-${t}`);
      return new Function('el', 'root', 'arg', fn)(el, el.shadowRoot, a);
    },
    [tag, body, arg],
  );

/**
 * What a panel shows: the given attributes, the open explorer tab, every visible heatmap (shape,
 * headers, cell values), the values of its controls, its selected tabs, prominent texts, its note.
 */
const viewOf = (page, tag, attrs) =>
  inPanel(
    page,
    tag,
    `
    const figures = [...root.querySelectorAll('figure')].filter((f) => f.checkVisibility() && f.querySelector('td[data-value]')).map((f) => ({
      name: f.dataset.matrix ?? f.dataset.method ?? f.querySelector('caption, figcaption')?.textContent ?? '',
      shape: f.querySelector('.shape')?.textContent.trim() ?? '',
      rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent).join('|'),
      values: [...f.querySelectorAll('td[data-value]')].map((td) => td.dataset.value).join(' '),
    }));
    const texts = {};
    for (const sel of ['[data-role=prediction]', '[data-role=mask]', '[data-role=shapes]', 'label[for=hidden]', '[role=tabpanel]', 'p.intro']) {
      const n = [...root.querySelectorAll(sel)].find((x) => x.checkVisibility());
      if (n) texts[sel] = sel === '[role=tabpanel]' ? n.dataset.step : n.textContent;
    }
    return {
      tab: el.getRootNode().querySelector('[role=tab][aria-selected=true]').id,
      attrs: Object.fromEntries(arg.map((a) => [a, el.getAttribute(a)])),
      figures,
      controls: [...root.querySelectorAll('input, select')].map((c) => c.id + '=' + (c.type === 'checkbox' ? c.checked : c.value)),
      tabs: [...root.querySelectorAll('[role=tab][aria-selected=true]')].map((t) => t.id),
      texts,
      note: root.querySelector('[data-role=out-of-range]')?.textContent ?? null,
    };
  `,
    attrs,
  );
const figure = (view, name) => view.figures.find((f) => f.name === name);
const query = async (page) => Object.fromEntries(new URL(await urlWritten(page)).searchParams);

/**
 * Opens the page on `panel`, runs `act` (the reader using the panel's controls), waits for the
 * URL to carry `expected`, then opens that URL in a fresh page. Views before, after `act`, and
 * in the fresh page.
 */
async function roundTrip(panel, attrs, act, expected) {
  const first = await open(`?panel=${panel}`);
  const before = await viewOf(first.page, panel, attrs);
  await act(first.page.locator(`attention-explorer attention-${panel}`), first.page);
  await first.page.waitForFunction((want) => {
    const q = new URL(location.href).searchParams;
    return Object.entries(want).every(([k, v]) => q.get(k) === v);
  }, expected);
  await ready(first.page);
  const set = await viewOf(first.page, panel, attrs);
  const url = await urlWritten(first.page);
  const again = await open(url);
  const loaded = await viewOf(again.page, panel, attrs);
  for (const w of [first, again]) {
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
  }
  return { before, set, loaded, query: await query(again.page) };
}

/** Presses `key` `times` times on a control (a range input moves one step per press). */
async function press(control, key, times) {
  await control.focus();
  for (let i = 0; i < times; i++) await control.press(key);
}

describe('the URL keeps every panel setting', () => {
  test("a link's panel settings reach the panels (the page gives them with explorer.panelSettings = readState(…))", async () => {
    const { page } = await open('?panel=cost&win=5&lk=4');
    expect(await inPanel(page, 'cost', "return [el.getAttribute('window'), el.getAttribute('linformer-k'), root.querySelector('#window').value]")).toEqual(['5', '4', '5']);
    await closeAll();
  });

  test('compare: the hidden size (hs)', async () => {
    const r = await roundTrip('compare', ['hidden-size'], (p) => press(p.locator('#hidden'), 'ArrowRight', 4), { panel: 'compare', hs: '12' });
    expect(r.set.attrs['hidden-size']).toBe('12');
    expect(r.set.texts['label[for=hidden]']).toMatch(/: 12$/);
    // h changes additive attention's weights only.
    expect(figure(r.set, 'additive').values).not.toBe(figure(r.before, 'additive').values);
    expect(figure(r.set, 'scaled').values).toBe(figure(r.before, 'scaled').values);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-compare');
    await closeAll();
  });

  test('pooling: the query point (q)', async () => {
    const r = await roundTrip('pooling', ['query'], (p) => press(p.locator('#query'), 'ArrowRight', 3), { panel: 'pooling', q: '2.65' });
    expect(r.set.attrs.query).toBe('2.65');
    expect(r.set.texts['[data-role=prediction]']).toMatch(/^prediction at x = 2\.65: /);
    expect(r.set.figures.some((f) => f.rows === 'x=2.65')).toBe(true);
    expect(r.set.texts['[data-role=prediction]']).not.toBe(r.before.texts['[data-role=prediction]']);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-pooling');
    await closeAll();
  });

  test('cross: the source sentence, the scoring and the valid lengths (src, scoring, vlens)', async () => {
    const attrs = ['source', 'scoring', 'valid-lens'];
    const r = await roundTrip(
      'cross',
      attrs,
      async (p) => {
        await p.locator('#source').fill('le chat dort');
        await p.locator('#scoring').selectOption('additive');
        await p.locator('#valid-lens').fill('1 2 3 3 2 1');
      },
      { panel: 'cross', src: 'le chat dort', scoring: 'additive', vlens: '1 2 3 3 2 1' },
    );
    expect(r.set.attrs).toEqual({ source: 'le chat dort', scoring: 'additive', 'valid-lens': '1 2 3 3 2 1' });
    expect(r.set.controls).toEqual(expect.arrayContaining(['source=le chat dort', 'scoring=additive', 'valid-lens=1 2 3 3 2 1']));
    // Six target tokens attend to three source tokens, row i to its first valid-lens[i] only.
    expect(figure(r.set, 'weights').shape).toBe('6×3');
    expect(figure(r.before, 'weights').shape).toBe('6×7');
    const w = figure(r.set, 'weights').values.split(' ').map(Number);
    expect(w.map((v, k) => (v > 0 ? 1 : 0)).join('')).toBe('100110111111110100');
    expect(r.set.texts['[data-role=mask]']).not.toBe(r.before.texts['[data-role=mask]']);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-cross');
    await closeAll();
  });

  test('positions: the rotation section\'s offset and frequency pair (shift, pair)', async () => {
    const r = await roundTrip(
      'positions',
      ['shift', 'pair'],
      async (p) => {
        await p.locator('#shift').fill('5');
        await p.locator('#shift').dispatchEvent('change');
        await p.locator('#pair').selectOption('1');
      },
      { panel: 'positions', shift: '5', pair: '1' },
    );
    expect(r.set.attrs).toEqual({ shift: '5', pair: '1' });
    expect(r.set.controls).toEqual(expect.arrayContaining(['shift=5', 'pair=1']));
    expect(r.before.controls).toEqual(expect.arrayContaining(['shift=3', 'pair=0']));
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-positions');
    await closeAll();
  });

  test('positions: the swapped pair (swap)', async () => {
    const r = await roundTrip(
      'positions',
      ['swap'],
      async (p) => {
        await p.locator('#swap-i').selectOption('0');
        await p.locator('#swap-j').selectOption('4');
      },
      { panel: 'positions', swap: '0 4' },
    );
    expect(r.set.attrs.swap).toBe('0 4');
    expect(r.set.controls).toEqual(expect.arrayContaining(['swap-i=0', 'swap-j=4']));
    // The swapped sentence's rows: tokens 0 and 4 exchanged.
    const rows = figure(r.set, 'noP').rows.split('|');
    expect(figure(r.set, 'noPs').rows.split('|')).toEqual([rows[4], rows[1], rows[2], rows[3], rows[0], rows[5]]);
    expect(figure(r.set, 'noPs').rows).not.toBe(figure(r.before, 'noPs').rows);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-positions');
    await closeAll();
  });

  test('cost: the window and Linformer k (win, lk)', async () => {
    const r = await roundTrip(
      'cost',
      ['window', 'linformer-k', 'max-n'],
      async (p) => {
        await press(p.locator('#window'), 'ArrowRight', 2);
        await press(p.locator('#linformer-k'), 'ArrowLeft', 1);
      },
      { panel: 'cost', win: '4', lk: '2' },
    );
    expect(r.set.attrs).toEqual({ window: '4', 'linformer-k': '2', 'max-n': null });
    expect(r.query.maxn).toBe(undefined);
    expect(figure(r.set, 'linformer').shape).toBe('6×2');
    expect(figure(r.before, 'linformer').shape).toBe('6×3');
    expect(figure(r.set, 'local').values).not.toBe(figure(r.before, 'local').values);
    expect(figure(r.set, 'full').values).toBe(figure(r.before, 'full').values);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-cost');
    await closeAll();
  });

  test('cost: the largest n measured (maxn), which has no control, comes from the URL and stays in it', async () => {
    const { page, problems } = await open('?panel=cost&maxn=1024');
    const view = await viewOf(page, 'cost', ['max-n']);
    expect(view.attrs['max-n']).toBe('1024');
    expect(view.texts['p.intro']).toBeDefined();
    expect(await inPanel(page, 'cost', "return [...root.querySelectorAll('p.intro')].map((p) => p.textContent).join(' ')")).toContain('n = 64 … 1024');
    expect(view.note).toBe(null);
    // Another setting changed through the UI keeps maxn in the link.
    await press(page.locator('attention-explorer attention-cost #window'), 'ArrowRight', 1);
    await page.waitForFunction(() => new URL(location.href).searchParams.get('win') === '3');
    expect((await query(page)).maxn).toBe('1024');
    expect(problems.console).toEqual([]);
    await closeAll();
  });

  test('transformer: the positional encoding and the step (pos, tstep)', async () => {
    const r = await roundTrip(
      'transformer',
      ['positional', 'step'],
      async (p) => {
        await p.locator('#positional').check();
        await p.locator('#tab-ffn').click();
      },
      { panel: 'transformer', pos: '1', tstep: 'ffn' },
    );
    expect(r.set.attrs).toEqual({ positional: '', step: 'ffn' });
    expect(r.set.texts['[role=tabpanel]']).toBe('ffn');
    expect(r.set.controls).toContain('positional=true');
    expect(r.before.texts['[role=tabpanel]']).toBe('X');
    // The steps panel's own step is another key: the transformer's does not move it.
    expect(r.query.step).toBe(undefined);
    expect(r.loaded).toEqual(r.set);
    expect(r.loaded.tab).toBe('ptab-transformer');
    await closeAll();
  });

  test('the transformer step with and without P: the link reproduces the numbers of each', async () => {
    const on = await open('?panel=transformer&tstep=ffn&pos=1');
    const off = await open('?panel=transformer&tstep=ffn');
    const [a, c] = [await viewOf(on.page, 'transformer', ['positional']), await viewOf(off.page, 'transformer', ['positional'])];
    expect(a.attrs.positional).toBe('');
    expect(c.attrs.positional).toBe(null);
    expect(figure(a, 'ffn').values).not.toBe(figure(c, 'ffn').values);
    // Turning P off through the checkbox takes pos out of the link.
    await on.page.locator('attention-explorer attention-transformer #positional').uncheck();
    await on.page.waitForFunction(() => !new URL(location.href).searchParams.has('pos'));
    await ready(on.page);
    expect(figure(await viewOf(on.page, 'transformer', ['positional']), 'ffn').values).toBe(figure(c, 'ffn').values);
    await closeAll();
  });

  test('settings of several panels and the explorer live in one link together', async () => {
    const url = '?panel=cross&s=a+b+c&seed=7&hs=20&q=1.5&src=x+y&scoring=additive&swap=0+2&win=5&lk=4&maxn=512&pos=1&tstep=norm1';
    const { page, problems } = await open(url);
    const q = await query(page);
    expect(q).toMatchObject({ panel: 'cross', s: 'a b c', seed: '7', hs: '20', q: '1.5', src: 'x y', scoring: 'additive', swap: '0 2', win: '5', lk: '4', maxn: '512', pos: '1', tstep: 'norm1' });
    const attrs = await page.evaluate(() => {
      const ex = document.querySelector('attention-explorer').shadowRoot;
      const a = (tag, name) => ex.querySelector(`attention-${tag}`).getAttribute(name);
      return [a('compare', 'hidden-size'), a('pooling', 'query'), a('cross', 'source'), a('cross', 'scoring'), a('positions', 'swap'), a('cost', 'window'), a('cost', 'linformer-k'), a('cost', 'max-n'), a('transformer', 'positional'), a('transformer', 'step')];
    });
    expect(attrs).toEqual(['20', '1.5', 'x y', 'additive', '0 2', '5', '4', '512', '', 'norm1']);
    // Each panel shows its setting once its tab is opened.
    await page.locator('attention-explorer #ptab-positions').click();
    await ready(page);
    expect(await inPanel(page, 'positions', "return root.querySelector('#swap-i').value + ' ' + root.querySelector('#swap-j').value")).toBe('0 2');
    await page.locator('attention-explorer #ptab-transformer').click();
    await ready(page);
    expect((await viewOf(page, 'transformer', [])).texts['[role=tabpanel]']).toBe('norm1');
    expect(await query(page)).toMatchObject({ panel: 'transformer', hs: '20', tstep: 'norm1', src: 'x y' });
    expect(problems.console).toEqual([]);
    await closeAll();
  });
});

describe('values from a link are checked by the panels', () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const cases = [
    ['compare', { hs: '-5' }, ['hidden-size']],
    ['pooling', { q: '1e309' }, ['query']],
    ['cross', { scoring: hostile, vlens: 'x 99 -3' }, ['scoring', 'valid-lens']],
    ['positions', { swap: `${hostile} 99` }, ['swap']],
    ['cost', { win: 'abc', lk: '999', maxn: hostile }, ['window', 'linformer-k', 'max-n']],
    ['transformer', { tstep: hostile, pos: 'maybe' }, ['step', 'positional']],
  ];
  for (const [panel, params, names] of cases)
    test(`${panel}: ${Object.keys(params).join(', ')} out of range give the panel's note, as text`, async () => {
      const { page, problems, dialogs } = await open(`?panel=${panel}&${new URLSearchParams(params)}`);
      const view = await viewOf(page, panel, []);
      expect(view.note).not.toBe(null);
      for (const name of names) expect(view.note).toContain(`${name}: `);
      expect(view.figures.length).toBeGreaterThan(0);
      expect(await inPanel(page, panel, 'return root.querySelectorAll("img").length')).toBe(0);
      expect(problems.console).toEqual([]);
      expect(dialogs).toEqual([]);
      await closeAll();
    });

  test('a long source sentence is cut in the link to the sentence limit (MAX_SENTENCE characters), with the note', async () => {
    const long = 'ab '.repeat(2000);
    const { page, problems } = await open(`?panel=cross&${new URLSearchParams({ src: long })}`);
    const view = await viewOf(page, 'cross', ['source']);
    expect(view.note).toContain('source: ');
    expect(view.attrs.source.length).toBe(6000);
    await page.waitForFunction((max) => new URL(location.href).searchParams.get('src')?.length === max, MAX_SENTENCE);
    expect((await query(page)).src).toBe(long.slice(0, MAX_SENTENCE));
    // Values other than the source are bounded too (a link cannot grow without limit).
    await page.goto(`${s.url}/?panel=cost&${new URLSearchParams({ win: '9'.repeat(5000) })}`);
    await ready(page);
    expect((await viewOf(page, 'cost', ['window'])).attrs.window.length).toBeLessThanOrEqual(16);
    expect((await urlWritten(page)).length).toBeLessThan(600);
    expect(problems.console).toEqual([]);
    await closeAll();
  });
});

describe('the URL while a slider is dragged', () => {
  test('is written at most every 250 ms (browsers refuse about 100 writes in 10 s), and ends with the latest value', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    // Count the page's history writes and when they happen.
    await w.page.addInitScript(() => {
      const replace = history.replaceState.bind(history);
      window.__writes = [];
      history.replaceState = (...args) => (window.__writes.push(performance.now()), replace(...args));
    });
    await w.page.goto(`${s.url}/?panel=pooling`);
    await ready(w.page);
    const range = w.page.locator('attention-explorer attention-pooling input#query');
    await range.scrollIntoViewIfNeeded(); // below the attention-cues section
    const box = await range.boundingBox();
    const start = await w.page.evaluate(() => window.__writes.length);
    await w.page.mouse.move(box.x + 2, box.y + box.height / 2);
    await w.page.mouse.down();
    for (let m = 1; m <= 60; m++) await w.page.mouse.move(box.x + 2 + (m * (box.width - 4)) / 60, box.y + box.height / 2);
    await w.page.mouse.up();
    const url = new URL(await urlWritten(w.page));
    const value = await range.evaluate((e) => e.value);
    const writes = await w.page.evaluate((from) => window.__writes.slice(from), start);
    // Every move changed the query (dozens of changes); the writes are spaced by ≥ 250 ms (a
    // millisecond of timer slack), and the last one holds where the slider stopped.
    expect(Number(value)).toBeGreaterThan(4.5);
    expect(url.searchParams.get('q')).toBe(value);
    expect(writes.length).toBeGreaterThan(0);
    for (let k = 1; k < writes.length; k++) expect(writes[k] - writes[k - 1]).toBeGreaterThan(249);
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });
});
