// The parametric-pooling section of <attention-pooling> in Chromium: the
// learned w, its bandwidth and the loss curve equal the library's
// fitParametricPooling on the panel's own data; changing the learning rate
// refits; "use the learned bandwidth" moves the panel's Gaussian kernel to it.
import { describe, expect, test } from 'vitest';
import { poolingData } from '../../web/src/pooling-data.js';
import { componentPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const open = (attrs) => componentPage(b.browser, s.url, `<attention-pooling ${attrs}></attention-pooling>`, { selector: 'attention-pooling' });

const readFit = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('attention-pooling').shadowRoot;
    const fit = root.querySelector('[data-role="fit"]').textContent;
    const points = root.querySelectorAll('section.fit svg g circle').length;
    return { fit, points, button: root.querySelector('#use-learned').textContent };
  });

describe('parametric pooling', () => {
  test('shows the w, bandwidth and losses the library learns from the panel data', async () => {
    const { page, problems, context } = await open('seed="7"');
    const { xTrain, yTrain } = poolingData(7);
    const want = lab.fitParametricPooling(xTrain, yTrain, { w: 1, learningRate: 0.1, epochs: 10 });
    const shown = await readFit(page);
    expect(shown.fit).toContain(`w = ${want.w.toFixed(3)}`);
    expect(shown.fit).toContain(`1/|w| = ${want.bandwidth.toFixed(3)}`);
    expect(shown.fit).toContain(`${want.losses[0].toFixed(2)} → ${want.losses.at(-1).toFixed(2)}`);
    expect(shown.points).toBe(10);

    // A larger learning rate refits.
    await page.evaluate(() => {
      const select = document.querySelector('attention-pooling').shadowRoot.querySelector('#rate');
      select.value = '0.5';
      select.dispatchEvent(new Event('change'));
    });
    const faster = lab.fitParametricPooling(xTrain, yTrain, { w: 1, learningRate: 0.5, epochs: 10 });
    await page.waitForFunction((w) => document.querySelector('attention-pooling').shadowRoot.querySelector('[data-role="fit"]').textContent.includes(`w = ${w}`), faster.w.toFixed(3));

    // Using the learned bandwidth sets the Gaussian kernel's bandwidth attribute.
    await page.evaluate(() => document.querySelector('attention-pooling').shadowRoot.querySelector('#use-learned').click());
    const attrs = await page.evaluate(() => {
      const el = document.querySelector('attention-pooling');
      return { kernel: el.getAttribute('kernel'), bandwidth: el.getAttribute('bandwidth') };
    });
    expect(attrs).toEqual({ kernel: 'gaussian', bandwidth: String(Number(faster.bandwidth.toFixed(2))) });
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('is in Chinese with lang="zh-CN"', async () => {
    const { page, context } = await open('lang="zh-CN"');
    const heading = await page.evaluate(() => document.querySelector('attention-pooling').shadowRoot.querySelector('#fit-heading').textContent);
    expect(heading).toContain('带参数注意力汇聚');
    await context.close();
  });
});
