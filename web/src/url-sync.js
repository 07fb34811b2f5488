// The explorer's state in the page's URL: read when the page opens, written back on every
// `attention-change`. The demo page (main.js) and <attention-explorer sync-url> both use it, so a
// blog that hosts the explorer gets links to a view and a step. Query parameters that are not ours
// and the fragment are kept: the host page's own links keep working.
import { CONFIG_FIELDS, TYPED_MATRICES, URL_KEYS, VIEW_FIELDS } from './config.js';
import { readState, writeState } from './state.js';

// The state fields that are attributes of the explorer (the language is the caller's choice).
const ATTRIBUTES = [...CONFIG_FIELDS, ...VIEW_FIELDS].filter((f) => f.attribute);
const OUR_KEYS = new Set(URL_KEYS.map(([, key]) => key));
// Browsers refuse or ignore history.replaceState beyond about 100 calls in 10 s (Safari throws),
// and a dragged slider changes the state on every pointer move: one write per 250 ms at most.
const WRITE_EVERY_MS = 250;

/**
 * Give `explorer` the state in the query string `search`: its attributes, its typed matrices (as
 * text in their boxes, checked there like typed text) and the panels' own settings. With
 * `lang: true` a language in the link becomes the explorer's `lang` attribute. Returns the state read.
 */
export function applyUrlState(explorer, search, { lang = false } = {}) {
  const state = readState(search);
  for (const { property, attribute } of ATTRIBUTES) if (state[property] !== undefined) explorer.setAttribute(attribute, state[property]);
  explorer.typed = Object.fromEntries(TYPED_MATRICES.map(({ key }) => [key, state[key]]));
  explorer.panelSettings = state;
  if (lang && state.lang) explorer.setAttribute('lang', state.lang);
  return state;
}

/** `href` with our keys replaced by `state`'s, the other parameters and the fragment kept: a path, query and hash. */
export function urlWithState(href, state) {
  const url = new URL(href);
  const params = new URLSearchParams();
  for (const [key, value] of url.searchParams) if (!OUR_KEYS.has(key)) params.append(key, value);
  for (const [key, value] of new URLSearchParams(writeState(state))) params.set(key, value);
  const query = params.toString();
  return `${url.pathname}${query ? `?${query}` : ''}${url.hash}`;
}

/**
 * Write the latest state to the URL (history.replaceState) at most every 250 ms, the last one always
 * written, never inside the change itself (after the task that made it). `<html data-url-pending>` is set while a state waits (scripts and tests can wait for it).
 * Follows `explorer`'s `attention-change` events; returns { follow(state), stop() }.
 */
export function followInUrl(explorer) {
  const root = document.documentElement;
  let latest = null;
  let timer = 0;
  let written = -Infinity;
  const write = () => {
    // Timers may fire a few milliseconds early by performance.now()'s clock (seen once in CI: 247.8 ms
    // after the last write); then wait out the rest instead of writing early.
    const early = written + WRITE_EVERY_MS - performance.now();
    if (timer && early > 0) {
      timer = setTimeout(write, early);
      return;
    }
    timer = 0;
    // The time is taken once the write is done: every write starts at least 250 ms after the last
    // one started (taken just before it, a write once started 248.9 ms after the last).
    history.replaceState(history.state, '', urlWithState(location.href, latest));
    written = performance.now();
    delete root.dataset.urlPending;
  };
  const follow = (state) => {
    latest = state;
    if (timer) return;
    // Never written at once, even after a quiet spell: history.replaceState recomputes the page's
    // styles, and in the middle of a change (the language menu's) that recalculation was done twice
    // (a Chromium trace: 320 elements forced before the panels had changed, then again in the frame).
    const wait = Math.max(0, written + WRITE_EVERY_MS - performance.now());
    root.dataset.urlPending = '';
    timer = setTimeout(write, wait);
  };
  const onChange = (e) => follow(e.detail);
  explorer.addEventListener('attention-change', onChange);
  const stop = () => {
    explorer.removeEventListener('attention-change', onChange);
    if (timer) {
      clearTimeout(timer);
      timer = 0; // stopping writes the pending state now, however recent the last write
      write();
    }
  };
  return { follow, stop };
}
