// <attention-train compare="…"> in Chromium: two runs side by side on the same task and seed, each
// in its own worker, their losses and gradient norms equal to the panel's own Trainer in Node step
// for step (so the curves differ exactly as the scorings do); the status lines show the norms the
// workers reported; the CSV, PNG and JSON exports (the CSV is the recorded numbers, the weights load
// back into a model of the same settings); a decoder-only task with compare="scoring" says why
// nothing runs; the URL key tcmp both ways; Chinese; an accessibility audit in compare mode.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { COMPARE_PAIRS, compareRuns, curvesCsv } from '../../web/src/components/train/compare-runs.js';
import { modelOptions, trainSettings } from '../../web/src/components/train/settings.js';
import { Trainer } from '../../web/src/components/train/trainer.js';
import { componentPage, expectAccessible, panelScreenshots, ready, screenshotFile, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // the repo root: /dist/components.js and its worker
const { init } = await import('../../dist/training-node.js');
const lab = await init();
afterAll(() => lab.dispose?.());

const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-train', ...options });
const panelOf = (root = document) => root.querySelector('attention-train');
const click = (page, key) => page.evaluate((k) => document.querySelector('attention-train').shadowRoot.querySelector(`[data-key="${k}"]`).click(), key);
const waitFor = (page, fn, arg, timeout = 120_000) => page.waitForFunction(fn, arg, { timeout, polling: 50 });

/** Train both runs until each has `steps` steps (and a validation score), then pause. */
async function trainBoth(page, steps) {
  await click(page, 'train');
  await waitFor(page, (n) => {
    const runs = document.querySelector('attention-train').compareCurves;
    return runs.length === 2 && runs.every((r) => r.accuracy.length && r.loss.at(-1).step >= n);
  }, steps);
  await click(page, 'pause');
  await waitFor(page, () => ['paused', 'reached', 'stopped'].includes(document.querySelector('attention-train').state));
}

/** Each step's { loss, gradientNorm } of a run of `settings` in Node, up to `last`. */
function nodeSteps(settings, last) {
  const tr = new Trainer(lab, settings);
  const out = new Map();
  while (tr.step < last) {
    const p = tr.chunk(0);
    out.set(p.step, { loss: p.loss, gradientNorm: p.gradientNorm });
  }
  tr.dispose();
  return out;
}

/** The weights JSON of a compare-mode panel: each run's tensors with the shapes of a model of its settings, loading back into one. */
function checkWeights(json, settings) {
  expect(json.runs.map((r) => r.scoring)).toEqual(COMPARE_PAIRS[settings.compare]);
  compareRuns(settings).forEach((r, i) => {
    const model = lab.createTransformer(modelOptions(r.settings, lab.tasks[settings.task]));
    const own = model.parameters();
    const given = json.runs[i].parameters;
    expect(Object.keys(given)).toEqual(Object.keys(own));
    for (const [name, m] of Object.entries(given)) expect([m.rows, m.cols, m.data.length, m.data[0].length], name).toEqual([own[name].rows, own[name].cols, own[name].rows, own[name].cols]);
    model.setParameters(Object.fromEntries(Object.entries(given).map(([name, m]) => [name, m.data])));
    for (const [name, m] of Object.entries(model.parameters())) expect(Array.from(m.data), name).toEqual(given[name].data.flat());
    model.dispose();
  });
}

const downloaded = async (page, fmt) => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.evaluate((f) => document.querySelector('attention-train').shadowRoot.querySelector(`[data-role="train-export"] button[data-export="${f}"]`).click(), fmt)]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return { name: download.suggestedFilename(), bytes: Buffer.concat(chunks) };
};

describe('<attention-train> compare mode', () => {
  test('scaled vs unscaled: both train, equal Node step for step, the norms shown are the workers’, the exports hold them', async () => {
    const w = await open('<attention-train task="reverse" compare="scaling"></attention-train>');
    const { page } = w;
    await trainBoth(page, 100);
    const runs = await page.evaluate(() => document.querySelector('attention-train').compareCurves);
    expect(runs.map((r) => r.scoring)).toEqual(['dot', 'unscaled']);
    expect(page.workers().length).toBe(2);
    // Each recorded point is the Node Trainer's at that step: the two curves differ as the scorings do.
    const settings = trainSettings({ task: 'reverse', compare: 'scaling' });
    compareRuns(settings).forEach((r, i) => {
      const node = nodeSteps(r.settings, runs[i].loss.at(-1).step);
      for (const p of runs[i].loss) expect({ step: p.step, loss: p.loss, gradientNorm: p.gradientNorm }).toEqual({ step: p.step, ...node.get(p.step) });
    });
    const at = (r, step) => r.loss.find((p) => p.step === step);
    expect(at(runs[0], 100).loss).not.toBe(at(runs[1], 100).loss);
    // The lines: each run's last gradient norm as the worker reported it (drawn at most every 400 ms:
    // waited for); two curves per chart, a legend of two.
    const norms = runs.map((r) => `gradient norm ${r.loss.at(-1).gradientNorm.toPrecision(4)}`);
    await waitFor(page, (want) => [...document.querySelector('attention-train').shadowRoot.querySelectorAll('[data-run]')].every((p, i) => p.textContent.includes(want[i])), norms);
    const view = await page.evaluate(() => {
      const root = document.querySelector('attention-train').shadowRoot;
      return {
        lines: [...root.querySelectorAll('[data-run]')].map((p) => p.textContent),
        paths: [...root.querySelectorAll('[data-role="compare-curves"] figure')].map((f) => [...f.querySelectorAll('path')].map((p) => p.getAttribute('stroke-dasharray'))),
        legend: root.querySelector('[data-role="compare-legend"]').textContent,
        explain: root.querySelector('[data-role="compare-explain"]').textContent,
      };
    });
    runs.forEach((r, i) => expect(view.lines[i]).toContain(norms[i]));
    expect(view.lines[0]).toMatch(/^scaled dot-product:/);
    expect(view.lines[1]).toMatch(/^unscaled dot-product/);
    expect(view.paths).toEqual([[null, '6 4'], [null, '6 4']]);
    expect(view.legend).toBe('scaled dot-productunscaled dot-product (no ÷√d_k in any attention)');
    expect(view.explain.length).toBeGreaterThan(40);
    // CSV: the recorded numbers, as curvesCsv writes them.
    const csv = await downloaded(page, 'csv');
    expect(csv.name).toBe('train-reverse-scaling-seed1-curves.csv');
    const names = ['scaled dot-product', 'unscaled dot-product (no ÷√d_k in any attention)'];
    expect(csv.bytes.toString('utf8')).toBe(curvesCsv(runs.map((r, i) => ({ name: names[i], losses: r.loss, accuracies: r.accuracy }))));
    // PNG: an image of the loss chart.
    const png = await downloaded(page, 'png');
    expect(png.name).toBe('train-reverse-scaling-seed1-loss.png');
    expect(png.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(png.bytes.readUInt32BE(16)).toBeGreaterThanOrEqual(720); // 360 px at pngScale ≥ 2
    // JSON: both runs' parameters by name with their shapes; they load back into a model of each run's settings.
    checkWeights(JSON.parse((await downloaded(page, 'json')).bytes.toString('utf8')), settings);
    // Reset drives both.
    await click(page, 'reset');
    await waitFor(page, () => document.querySelector('attention-train').state === 'idle' && document.querySelector('attention-train').compareCurves.length === 0);
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  }, 300_000);

  test('one run: the CSV holds its recorded numbers, the PNG is the loss chart', async () => {
    const w = await open('<attention-train task="reverse"></attention-train>');
    const { page } = w;
    await click(page, 'train');
    await waitFor(page, () => document.querySelector('attention-train').curves.accuracy.length >= 1);
    await click(page, 'pause');
    await waitFor(page, () => document.querySelector('attention-train').state === 'paused');
    const curves = await page.evaluate(() => document.querySelector('attention-train').curves);
    const csv = await downloaded(page, 'csv');
    expect(csv.name).toBe('train-reverse-dot-seed1-curves.csv');
    expect(csv.bytes.toString('utf8')).toBe(curvesCsv([{ name: 'scaled dot-product', losses: curves.loss, accuracies: curves.accuracy }]));
    expect(curves.loss.every((p) => p.gradientNorm > 0)).toBe(true);
    const png = await downloaded(page, 'png');
    expect([png.name, png.bytes.subarray(1, 4).toString()]).toEqual(['train-reverse-dot-seed1-loss.png', 'PNG']);
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });

  test('additive vs dot-product on a decoder-only task: the panel says why nothing runs (en, zh-CN)', async () => {
    for (const lang of ['en', 'zh-CN']) {
      const w = await open('<attention-train task="grammar" compare="scoring"></attention-train>', { lang });
      const note = await w.page.evaluate(() => document.querySelector('attention-train').shadowRoot.querySelector('[data-role="compare-note"]').textContent);
      expect(note).toContain(lang === 'en' ? 'decoder-only' : '仅解码器');
      expect(await w.page.evaluate(() => document.querySelector('attention-train').shadowRoot.querySelector('[data-key="train"]').disabled)).toBe(true);
      expect(w.problems.console).toEqual([]);
      await w.context.close();
    }
  });

  test('Chinese strings in compare mode', async () => {
    const w = await open('<attention-train task="dates" compare="scoring"></attention-train>', { lang: 'zh-CN' });
    const v = await w.page.evaluate(() => {
      const root = document.querySelector('attention-train').shadowRoot;
      return { idle: root.querySelector('[data-run="0"]').textContent, label: root.querySelector('label[for="compare"]').textContent, explain: root.querySelector('[data-role="compare-explain"]').textContent };
    });
    expect(v.idle).toContain('缩放点积');
    expect(v.idle).toContain('加性');
    expect(v.label).toBe('对比两次训练');
    expect(v.explain).toMatch(/[\u4e00-\u9fff]/);
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });

  test('in the explorer: tcmp from and to the URL, and an accessibility audit of the trained compare mode', async () => {
    for (const [lang, colorScheme] of [['en', 'light'], ['zh-CN', 'dark']]) {
      const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: lang, colorScheme });
      await page.goto(`${s.url}/site/index.html?panel=train&tcmp=scaling&lang=${lang}`);
      await ready(page);
      const panel = page.locator('attention-explorer attention-train');
      expect(await panel.evaluate((el) => el.settings.compare)).toBe('scaling');
      expect(await panel.locator('#compare').inputValue()).toBe('scaling');
      await panel.locator('#task').selectOption('dates');
      await panel.locator('#compare').selectOption('scoring');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('tcmp') === 'scoring');
      expect(new URL(await urlWritten(page)).searchParams.get('task')).toBe('dates');
      await panel.locator('#task').selectOption('reverse');
      await panel.locator('button[data-key="train"]').click();
      await page.waitForFunction(() => {
        const el = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-train');
        return el.compareCurves.length === 2 && el.compareCurves.every((r) => r.loss.length > 2);
      }, null, { timeout: 60_000 });
      await panel.locator('button[data-key="pause"]').click();
      await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-train').state === 'paused', null, { timeout: 30_000 });
      await ready(page);
      await expectAccessible(page, 'attention-train');
      expect(problems.console).toEqual([]);
      await context.close();
    }
  }, 300_000);

  test('screenshot (en, zh) at 1280 px: both runs trained to their goal', async () => {
    const trained = async (body, options) => {
      const w = await open(body, options);
      await click(w.page, 'train');
      await waitFor(w.page, () => ['reached', 'stopped'].includes(document.querySelector('attention-train').state), null, 240_000);
      return w;
    };
    const body = (lang) => `<attention-train id="s" task="reverse" compare="scaling" lang="${lang}"></attention-train>`;
    await panelScreenshots(trained, { name: 'train-compare', bodies: { en: body('en'), zh: body('zh-CN') }, height: 1100 });
    expect(readFileSync(screenshotFile('train-compare-en-1280.png')).length).toBeGreaterThan(10_000);
  }, 600_000);
});
