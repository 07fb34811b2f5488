// The training build ('attention-lab/training': the inference core plus the backward passes) for
// the panels that show gradients, loaded on first use only, so a page whose panels run attention
// alone never fetches its script or its larger .wasm. It is found next to the bundle, like the
// .wasm files: dist/training.js beside dist/components.js (the package's own module tree), and
// site/training.js (a bundle of it, scripts/build-web.mjs) beside the demo's app.js.
export const TRAINING_ENTRY = './training.js';

let pending = null;

/** Load the training build once (later calls share it); a failed load is tried again next time. */
export function getTrainingLab() {
  pending ??= import(/* @vite-ignore */ new URL(TRAINING_ENTRY, import.meta.url).href)
    .then((entry) => entry.init())
    .catch((error) => {
      pending = null;
      throw error;
    });
  return pending;
}

/**
 * `load()` once per `key` in `cache`, shared by every caller; a failed load is forgotten, so the
 * next call tries again.
 */
export function loadOnce(cache, key, load) {
  if (!cache.has(key))
    cache.set(key, load().catch((error) => {
      cache.delete(key);
      throw error;
    }));
  return cache.get(key);
}

const trained = new Map();

/**
 * The training build and a shipped checkpoint's model (lab.loadTrained(name)), loaded once and
 * shared by every panel: { lab, model }. A failed load is tried again on the next call.
 */
export const getTrained = (name) => loadOnce(trained, name, () => getTrainingLab().then(async (lab) => ({ lab, model: await lab.loadTrained(name) })));

const readers = new Map();

/**
 * The training build and the shipped reader in `language` ('en' or 'zh-CN': lab.loadReader, the
 * encoder and decoder trained on real text), loaded once per language and shared by every panel:
 * { lab, reader }. A failed load is tried again on the next call.
 */
export const getReader = (language) => loadOnce(readers, language, () => getTrainingLab().then(async (lab) => ({ lab, reader: await lab.loadReader({ language }) })));
