// The import path the panels use: the heatmap (web/src/heatmap/), the DOM reconciler and the idle
// scheduler behind every element's data-ready.
export { createHeatmap } from './heatmap/heatmap.js';
export { filled, place } from './place.js';
export { fillsPending, whenFilled } from './scheduler.js';
