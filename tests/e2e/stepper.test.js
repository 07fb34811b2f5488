// The shared Stepper (web/src/stepper.js) on its own in a browser: the tabs'
// aria-selected and roving tabindex, the arrow keys, Home and End, focus kept
// on the selected tab across a re-render, the buttons, and kept tabs.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launch, server, watchedPage } from './browser.js';

let b;
let s;

beforeAll(async () => {
  b = await launch();
  s = await server();
});
afterAll(async () => {
  await b?.close();
  await s?.close();
});

// Loaded as a module by the page itself (an import inside page.evaluate would be rewritten by the test runner).
const PAGE = `<!doctype html><html lang="en"><title>stepper</title><body></body>
<script type="module">import { Stepper } from '/web/src/stepper.js'; window.Stepper = Stepper;</script></html>`;

/**
 * A page with one stepper over steps a…d, drawn again (group, then tabs replaced) on every move,
 * as the panels do; window.view() says what it shows and which steps were asked for.
 */
async function stepperPage(vertical) {
  const { page, problems } = await watchedPage(b.browser);
  await page.route(`${s.url}/stepper.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await page.goto(`${s.url}/stepper.html`);
  await page.waitForFunction(() => window.Stepper);
  await page.evaluate((vertical) => {
    const { Stepper } = window;
    const keys = ['a', 'b', 'c', 'd'];
    const asked = [];
    let index = 0;
    let tabsKey = 'one';
    const stepper = new Stepper({ go: (k) => (asked.push(k), (index = k), draw()), vertical });
    const draw = () => {
      stepper.at(index, keys.length);
      const nav = stepper.group({ group: 'Steps', prev: 'Prev', next: 'Next', position: `${index + 1} of ${keys.length}` });
      const list = stepper.tablist(tabsKey, () => ({ label: 'Steps', tabs: keys.map((key) => ({ key, content: key.toUpperCase() })) }));
      document.body.replaceChildren(nav, list);
      stepper.refocus();
      return list;
    };
    window.lists = [draw()];
    window.redraw = (key) => ((tabsKey = key), window.lists.push(draw()));
    window.view = () => {
      const tabs = [...document.querySelectorAll('[role="tab"]')];
      return {
        selected: tabs.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.id),
        tabbable: tabs.filter((t) => t.tabIndex === 0).map((t) => t.id),
        focused: document.activeElement?.dataset.key ?? null,
        prevDisabled: document.querySelector('[data-key="prev"]').getAttribute('aria-disabled'),
        nextDisabled: document.querySelector('[data-key="next"]').getAttribute('aria-disabled'),
        position: document.querySelector('.position').textContent,
        orientation: document.querySelector('[role="tablist"]').getAttribute('aria-orientation'),
        asked: [...asked],
      };
    };
  }, vertical);
  return { page, problems, view: () => page.evaluate(() => window.view()) };
}

describe('Stepper', () => {
  test('one tab selected and tabbable; arrows, Home and End move it, focus follows the tab', async () => {
    const { page, problems, view } = await stepperPage(false);
    let v = await view();
    expect(v).toMatchObject({ selected: ['tab-a'], tabbable: ['tab-a'], prevDisabled: 'true', nextDisabled: null, position: '1 of 4', orientation: null });
    expect(await page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].map((t) => [t.dataset.key, t.getAttribute('aria-controls'), t.getAttribute('part')]))).toEqual(
      ['a', 'b', 'c', 'd'].map((k) => [`tab-${k}`, 'step-panel', 'tab']),
    );
    await page.focus('[data-key="tab-a"]');
    await page.keyboard.press('ArrowRight');
    v = await view();
    expect(v).toMatchObject({ selected: ['tab-b'], tabbable: ['tab-b'], focused: 'tab-b', prevDisabled: null, position: '2 of 4', asked: [1] });
    await page.keyboard.press('End');
    expect(await view()).toMatchObject({ selected: ['tab-d'], focused: 'tab-d', nextDisabled: 'true' });
    // At the end the right arrow asks for the last step again (the panel ignores it).
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowLeft');
    v = await view();
    expect(v).toMatchObject({ selected: ['tab-a'], focused: 'tab-a', asked: [1, 3, 3, 0, 0] });
    // Up and down are for a vertical list only; other keys do nothing.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('x');
    expect((await view()).asked).toEqual([1, 3, 3, 0, 0]);
    expect(problems.console).toEqual([]);
  });

  test('a vertical list steps with up and down and says its orientation', async () => {
    const { page, view } = await stepperPage(true);
    await page.focus('[data-key="tab-a"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await view()).toMatchObject({ selected: ['tab-b'], focused: 'tab-b', orientation: 'vertical', asked: [1, 2, 1] });
  });

  test('buttons and a click on a tab step; a key on a button moves without taking focus to the tabs', async () => {
    const { page, view } = await stepperPage(false);
    await page.click('[data-key="next"]');
    await page.click('[data-key="next"]');
    await page.click('[data-key="prev"]');
    await page.click('[data-key="tab-d"]');
    expect(await view()).toMatchObject({ selected: ['tab-d'], asked: [1, 2, 1, 3] });
    await page.focus('[data-key="prev"]');
    await page.keyboard.press('Home');
    const v = await view();
    expect(v.selected).toEqual(['tab-a']);
    expect(v.focused).not.toBe('tab-a');
  });

  test('the tabs are kept while their key stays, and built anew when it changes', async () => {
    const { page } = await stepperPage(false);
    const same = await page.evaluate(() => {
      window.redraw('one');
      window.redraw('two');
      const [first, kept, rebuilt] = window.lists;
      return { kept: first === kept, rebuilt: first !== rebuilt, selected: rebuilt.querySelector('[aria-selected="true"]').id };
    });
    expect(same).toEqual({ kept: true, rebuilt: true, selected: 'tab-a' });
  });
});
