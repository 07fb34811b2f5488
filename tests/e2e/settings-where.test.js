// Controls where they act: the explorer shows only the settings that change the shown panel's
// numbers (the settings table's `usedBy`; with trained weights, the sentence alone), the others
// folded behind "Settings" with their values in its summary; and `usedBy` is checked against
// behaviour: a setting a panel's row leaves out changes none of that panel's numbers.
import { describe, expect, test } from 'vitest';
import { CONFIG_FIELDS, usedBy } from '../../web/src/config.js';
import { PANELS } from '../../web/src/panels.js';
import { componentPage, ready, settled, watchedPage, withElements } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repository (site/ and dist/)

/** The explorer's settings on screen: the fields shown, the fold's summary and whether it is shown. */
const shownSettings = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('attention-explorer').shadowRoot;
    const fold = root.querySelector('details.settings');
    return {
      fields: [...root.querySelectorAll('.field[data-setting]')].filter((f) => !f.hidden && !(fold.hidden && fold.contains(f))).map((f) => f.dataset.setting),
      fold: !fold.hidden,
      open: fold.open,
      summary: fold.querySelector('summary').textContent,
    };
  });

const expected = (id) => CONFIG_FIELDS.filter((f) => usedBy(f).includes(id)).map((f) => f.attribute);

describe('the explorer shows the settings where they act', () => {
  test('each panel: only the settings its row of the table lists; folded, with their values said', async () => {
    const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=steps&h=2&mask=causal`);
    await ready(page);
    const steps = await shownSettings(page);
    expect(steps.fields).toEqual(expected('steps'));
    expect(steps).toMatchObject({ fold: true, open: false, summary: 'Settings Seed 42 · d_model 8 · d_k per head 8 · Heads h 2 · Mask causal (no peeking ahead)' });
    for (const id of ['positions', 'cross', 'pooling']) {
      await page.evaluate((p) => document.querySelector('attention-explorer').selectPanel(p), id);
      await ready(page);
      expect((await shownSettings(page)).fields, id).toEqual(expected(id));
    }
    expect((await shownSettings(page)).summary).toBe('Settings Seed 42'); // pooling: its samples' seed alone
    await context.close();
  });

  test('trained weights: the sentence alone (the dates model: nothing of the form)', async () => {
    const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=heads&hw=trained&lang=zh-CN`);
    await ready(page);
    expect(await shownSettings(page)).toMatchObject({ fields: ['sentence'], fold: false });
    // Random weights chosen in the panel: the settings are back.
    await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').setAttribute('weights', 'random'));
    await settled(page);
    expect((await shownSettings(page)).fields).toEqual(expected('heads'));
    await page.evaluate(() => {
      const explorer = document.querySelector('attention-explorer');
      explorer.selectPanel('cross');
      explorer.shadowRoot.querySelector('attention-cross').setAttribute('weights', 'trained');
    });
    await settled(page);
    expect(await shownSettings(page)).toMatchObject({ fields: [], fold: false });
    await context.close();
  });
});

// A changed value for each setting of the input model (the defaults: the cat sat on the mat, 42, 8, 8, 1, none, 3, none).
const CHANGED = { sentence: 'one two three four five', seed: '7', 'd-model': '4', 'd-k': '4', heads: '2', mask: 'causal', 'valid-len': '2', tokens: 'p q r s t u' };

/** Every number the panel's figures hold (their cells' data-value), in order. */
const numbers = (page, tag) =>
  page.evaluate((tag) => {
    const root = document.querySelector(tag).shadowRoot;
    const cells = [...root.querySelectorAll('td[data-value]')].map((td) => td.dataset.value);
    // A panel of charts and tables (the scaling panel): its tables' numbers.
    return cells.length ? cells : [...root.querySelectorAll('td')].map((td) => td.textContent);
  }, tag);

describe('usedBy is what the panels do', () => {
  // The training panel holds no numbers until a model trains; every other panel is checked.
  const panels = PANELS.filter((p) => p.id !== 'train');
  test.each(panels.map((p) => [p.id, p.tag]))('%s: a setting outside its usedBy leaves its numbers as they were', async (id, tag) => {
    const w = await componentPage(b.browser, s.url, `<${tag}></${tag}>`, { selector: tag });
    const unused = CONFIG_FIELDS.filter((f) => !usedBy(f).includes(id)).map((f) => f.attribute);
    const before = await numbers(w.page, tag);
    expect(before.length, `${id} shows numbers`).toBeGreaterThan(0);
    for (const attribute of unused) {
      await withElements(w.page, `<${tag} ${attribute}="${CHANGED[attribute]}"></${tag}>`);
      expect(await numbers(w.page, tag), `${attribute} changed ${id}'s numbers`).toEqual(before);
    }
    // And a setting it lists does change them (the comparison can fail).
    const used = CONFIG_FIELDS.find((f) => usedBy(f).includes(id) && f.attribute === 'seed');
    if (used) {
      await withElements(w.page, `<${tag} seed="7"></${tag}>`);
      expect(await numbers(w.page, tag)).not.toEqual(before);
    }
    await w.context.close();
  });
});
