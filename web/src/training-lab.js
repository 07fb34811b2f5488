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

const trained = new Map();

/**
 * The training build and a shipped checkpoint's model (lab.loadTrained(name)), loaded once and
 * shared by every panel: { lab, model }. A failed load is tried again on the next call.
 */
export function getTrained(name) {
  if (!trained.has(name))
    trained.set(name, getTrainingLab().then(async (lab) => ({ lab, model: await lab.loadTrained(name) })).catch((error) => {
      trained.delete(name);
      throw error;
    }));
  return trained.get(name);
}
