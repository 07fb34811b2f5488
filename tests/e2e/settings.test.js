// The settings in a browser: the explorer's controls follow the table of web/src/config.js, the
// default sentence follows the language (demo page and components), and the demo page loads
// with no failed request (its icon included).
import { describe, expect, test } from 'vitest';
import { CONFIG_FIELDS, DEFAULT_SENTENCE, bound } from '../../web/src/config.js';
import { componentPage, openSettings, ready, root, server, urlWritten, watchedPage } from './browser.js';
import { useBrowser, useForFile } from './use-browser.js';

const { launched: b, served: site } = useBrowser({ serve: 'site' }); // b.browser, site.url: the demo
const repo = useForFile(() => server(root)); // repo.url: the repository root, for components

/** The demo page at `query`, with every response of 400 or more and every failed request recorded. */
async function openPage(query = '', locale = 'en-US') {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale });
  w.failed = [];
  w.page.on('requestfailed', (r) => w.failed.push(`${r.url()} ${r.failure()?.errorText}`));
  w.page.on('response', (r) => r.status() >= 400 && w.failed.push(`${r.url()} ${r.status()}`));
  await w.page.goto(`${site.url}/${query}`);
  await ready(w.page);
  return w;
}
/** The tokens heading the rows of the steps panel's main heatmap (X by default). */
const stepTokens = (page) =>
  page.evaluate(() => {
    const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
    return [...steps.querySelectorAll('figure[data-role=main] tbody th[scope=row]')].map((th) => th.textContent);
  });
const explorerControls = (page) =>
  page.evaluate(() =>
    [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('form.controls input, form.controls select')].map((c) => ({
      id: c.id,
      type: c.type,
      min: c.getAttribute('min'),
      max: c.getAttribute('max'),
      maxlength: c.getAttribute('maxlength'),
      options: c.tagName === 'SELECT' ? [...c.options].map((o) => o.value) : null,
      value: c.value,
      label: c.labels[0]?.textContent,
    })),
  );

describe('the explorer and the table of settings', () => {
  test('one control per setting, in the table\'s order, with its bounds, choices and value as used', async () => {
    const { page, context } = await openPage('?dm=100&h=2');
    const controls = await explorerControls(page);
    expect(controls.map((c) => c.id)).toEqual(CONFIG_FIELDS.map((f) => `in-${f.attribute}`));
    for (const [k, f] of CONFIG_FIELDS.entries()) {
      const c = controls[k];
      expect(c.label, f.attribute).toBeTruthy();
      if (f.type === 'integer') expect([c.type, c.min, c.max], f.attribute).toEqual(['number', String(f.min), String(bound(f.max))]);
      if (f.type === 'choice') expect(c.options).toEqual(f.choices);
      if (f.type === 'text') expect(c.maxlength).toBe(String(bound(f.max)));
    }
    expect(Object.fromEntries(controls.map((c) => [c.id, c.value]))).toMatchObject({ 'in-d-model': '64', 'in-heads': '2', 'in-seed': '42', 'in-mask': 'none' });
    // An edit of a control sets the attribute, which reaches every panel and the URL.
    await openSettings(page);
    await page.locator('attention-explorer #in-seed').fill('7');
    expect(new URL(await urlWritten(page)).searchParams.get('seed')).toBe('7');
    expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads').getAttribute('seed'))).toBe('7');
    await context.close();
  });
});

describe('the default sentence follows the language', () => {
  test('the demo page in Chinese with no sentence: 小猫坐在垫子上, one token per character, in the box and the link', async () => {
    const { page, problems, context } = await openPage('?panel=steps&lang=zh-CN');
    expect(await stepTokens(page)).toEqual([...DEFAULT_SENTENCE['zh-CN']]);
    expect(await page.locator('attention-explorer #in-sentence').inputValue()).toBe(DEFAULT_SENTENCE['zh-CN']);
    await openSettings(page);
    await page.locator('attention-explorer #in-seed').fill('9');
    expect(new URL(await urlWritten(page)).searchParams.get('s')).toBe(DEFAULT_SENTENCE['zh-CN']);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a browser in Chinese without ?lang: the Chinese default; in English: the English one, unchanged', async () => {
    const zh = await openPage('?panel=steps', 'zh-CN');
    expect(await zh.page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await stepTokens(zh.page)).toEqual([...DEFAULT_SENTENCE['zh-CN']]);
    await zh.context.close();
    const en = await openPage('?panel=steps&lang=en');
    expect(await stepTokens(en.page)).toEqual(['the', 'cat', 'sat', 'on', 'the', 'mat']);
    expect(await en.page.locator('attention-explorer #in-sentence').inputValue()).toBe('the cat sat on the mat');
    await en.context.close();
  });

  test('switching the page to Chinese switches a default sentence, never a given one', async () => {
    const { page, context } = await openPage('?panel=steps&lang=en');
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction((want) => document.querySelector('attention-explorer').shadowRoot.querySelector('#in-sentence').value === want, DEFAULT_SENTENCE['zh-CN']);
    await ready(page);
    expect(await stepTokens(page)).toEqual([...DEFAULT_SENTENCE['zh-CN']]);
    await context.close();
    const given = await openPage('?lang=zh-CN&s=the+dog+ran');
    expect(await stepTokens(given.page)).toEqual(['the', 'dog', 'ran']);
    await given.context.close();
  });

  test('components: lang="zh-CN" (own or inherited) and no sentence give the Chinese default; a given sentence stays', async () => {
    const body = `<attention-steps id="zh" lang="zh-CN" step="weights"></attention-steps>
      <div lang="zh-CN"><attention-heads id="inherited"></attention-heads></div>
      <attention-steps id="en" step="weights"></attention-steps>
      <attention-steps id="given" lang="zh-CN" sentence="one two" step="weights"></attention-steps>`;
    const { page, problems, context } = await componentPage(b.browser, repo.url, body, { selector: 'attention-steps, attention-heads' });
    const rows = await page.evaluate(() =>
      Object.fromEntries(['zh', 'inherited', 'en', 'given'].map((id) => [id, [...document.getElementById(id).shadowRoot.querySelector('figure thead').querySelectorAll('th[scope=col]')].map((th) => th.textContent)])),
    );
    expect(rows.zh).toEqual([...DEFAULT_SENTENCE['zh-CN']]);
    expect(rows.inherited).toEqual([...DEFAULT_SENTENCE['zh-CN']]);
    expect(rows.en).toEqual(DEFAULT_SENTENCE.en.split(' '));
    expect(rows.given).toEqual(['one', 'two']);
    expect(await page.evaluate(() => document.getElementById('zh').config().sentence)).toBe(DEFAULT_SENTENCE['zh-CN']);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});

describe('the demo page loads with no failed request', () => {
  test('its icon is a file of the site (not a data: URL a Content-Security-Policy may refuse), served as SVG', async () => {
    const { page, problems, failed, context } = await openPage('?step=scaled');
    const icon = await page.evaluate(async () => {
      const link = document.querySelector('link[rel=icon]');
      const res = await fetch(link.href);
      return { href: link.getAttribute('href'), status: res.status, type: res.headers.get('content-type'), svg: (await res.text()).startsWith('<svg') };
    });
    expect(icon).toEqual({ href: './favicon.svg', status: 200, type: 'image/svg+xml', svg: true });
    expect(failed).toEqual([]);
    expect(problems.console.filter((m) => /Failed to load resource/.test(m))).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
