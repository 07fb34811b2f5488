// The components' shadow-root stylesheet. Public knobs are --attn-* custom
// properties (with fallbacks); deeper styling goes through ::part().
import { STOPS } from './colors.js';
import { katexRules } from './tex.js';

/** The theme's colours: private name → [public knob, light, dark]. */
export const PALETTE = {
  bg: ['--attn-bg', '#ffffff', '#16181c'],
  surface: ['--attn-surface', '#f4f5f7', '#22252b'],
  fg: ['--attn-fg', '#1a1a1a', '#eceef1'],
  muted: ['--attn-muted', '#4a4f57', '#b4bac4'],
  border: ['--attn-border', '#c5c9d0', '#4a505a'],
  accent: ['--attn-accent', '#0b5cad', '#7cb8ff'],
  'accent-fg': ['--attn-accent-fg', '#ffffff', '#0b1320'],
  focus: ['--attn-focus', '#c2410c', '#ffb454'],
  hl: ['--attn-highlight', '#d1008f', '#ff6ad5'],
};
const colours = (pick) => Object.entries(PALETTE).map(([name, [knob, light, dark]]) => `--_${name}: var(${knob}, ${pick(light, dark)});`).join(' ');

const css = `
/* Colours: light-dark() follows the element's colour scheme, which it inherits from the page
   (html.dark { color-scheme: dark } on a class-themed blog; color-scheme: light dark follows the
   OS; a page that declares none is light) unless its theme attribute says light or dark. */
:host {
  display: block !important;
  visibility: visible !important;
  contain: content;
  ${colours((light, dark) => `light-dark(${light}, ${dark})`)}
  --_cell: var(--attn-cell-size, 2.6rem);
  --_radius: var(--attn-radius, 6px);
  --_font: var(--attn-font, system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif);
  --_mono: var(--attn-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace, "Noto Sans Mono CJK SC", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Micro Hei Mono", "WenQuanYi Micro Hei");
}
:host([theme="light" i]) { color-scheme: light; }
:host([theme="dark" i]) { color-scheme: dark; }
/* Browsers without light-dark() (before Chromium 123, Firefox 120, Safari 17.5): light, or dark
   when the theme attribute says so or, with theme auto, when the OS prefers it. */
@supports not (color: light-dark(#000, #fff)) {
  :host { ${colours((light) => light)} }
  :host([theme="dark" i]) { ${colours((light, dark) => dark)} }
  @media (prefers-color-scheme: dark) { :host(:not([theme="light" i])) { ${colours((light, dark) => dark)} } }
}
/* Paper is light: printed panels take the light colours whatever the theme. */
@media print { :host { color-scheme: light !important; } }
:host([hidden]) { display: none !important; }
/* figure: the panel's figure alone, for a page that says what it shows in its own words (the
   lesson): no heading, introduction or step controls, and of a trained view only its warnings
   (unknown words, a sentence cut); the step, head, weights and sentence are the page's attributes. */
:host([figure]) .root > :is(h2, p.intro, [part~="stepper"], [part~="tabs"], label[data-role="weights"], [data-role="trained-about"], [data-role="trained-source"], [data-role="trained-vocabulary"], [data-role="trained-captions"], label[data-role="reader-model"], label[data-role="layer"], label[data-role="reader-head"], [data-role="reader-about"], [data-role="reader-layer"], [data-role="reader-backward"], [data-role="reader-pieces"], [data-role="reader-honest"], [data-role="reader-steps"]) { display: none !important; }
:host([figure]) .step-title + p.muted { display: none !important; }
[hidden] { display: none !important; }
.root { display: block; box-sizing: border-box; background: var(--_bg); color: var(--_fg); font: 15px/1.5 var(--_font); padding: 0.75rem; border: 1px solid var(--_border); border-radius: var(--_radius); text-align: start; min-width: 0; }
.root *, .root *::before, .root *::after { box-sizing: border-box; }
div, section, nav, header, p, figure, fieldset, form, label, ol, ul { display: block; }
h2 { font-size: 1.2rem; margin: 0 0 0.4rem; line-height: 1.3; }
h3 { font-size: 1.02rem; margin: 0.8rem 0 0.3rem; }
p { margin: 0.3rem 0; }
.intro, .note, .muted { color: var(--_muted); }
.note { font-size: 0.9rem; }
.warn { border-left: 4px solid var(--_focus); padding: 0.3rem 0.6rem; background: var(--_surface); }
.sr-only { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
button, select, input, textarea {
  font: inherit; color: var(--_fg); background: var(--_surface); border: 1px solid var(--_border);
  border-radius: var(--_radius); padding: 0.3rem 0.6rem; min-height: 2.25rem; display: inline-block;
}
button { cursor: pointer; }
button.primary, button[aria-pressed="true"], [role="tab"][aria-selected="true"] { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
input[type="range"] { padding: 0; min-height: 1.5rem; accent-color: var(--_accent); background: transparent; border: 0; }
label { font-weight: 600; font-size: 0.9rem; }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0.5rem 0; }
.controls > label, .field { display: flex; flex-direction: column; gap: 0.15rem; }
.field > small { max-width: 28rem; } /* a help line wraps instead of widening its control */
.settings { flex: 1 1 100%; }
.settings > summary { cursor: pointer; font-weight: 600; padding: 0.2rem 0; }
.settings > summary > .muted { font-weight: 400; margin-inline-start: 0.4rem; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.grid > * { min-width: 0; max-width: 100%; }
[role="tablist"] { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.5rem 0; padding: 0; }
[role="tab"] { font-size: 0.85rem; padding: 0.2rem 0.55rem; min-height: 2rem; }
.formula { overflow-x: auto; overflow-y: hidden; margin: 0.4rem 0; padding: 0.2rem 0.4rem; border-radius: var(--_radius); }
.formula .katex-display { margin: 0.4rem 0; }
/* A formula's MathML is for screen readers (clipped, never seen): its letters stay plain and it is
   set in the components' font. With the browser's math font and math-auto italic (a one-letter <mi>
   becomes a Mathematical Alphanumeric character, which no font of the page has), each of its
   symbols cost a fallback-font query to the browser process on the first switch to Chinese: 27 on
   the scaling panel, 4 on the steps panel (0 now, in a Chromium trace; the steps panel's other 4
   were Chinese in monospace text, hence the Chinese fonts at the end of --_mono). */
.katex .katex-mathml math { font-family: var(--_font); }
.katex .katex-mathml * { text-transform: none; }
/* ...and far off screen, like the heatmap's table (below): a change of language restyles every
   element the page shows, and the MathML was a third of a formula's (33 of 99 on the steps panel,
   72 of 340 on the scaling panel); it stays in the accessibility tree. */
.katex .katex-mathml { left: -100000px; content-visibility: auto; }
figure.heatmap { margin: 0.4rem 0; max-width: 100%; padding: 0 6px 6px; }
.scroll { position: relative; overflow: auto; max-width: 100%; }
/* A figure wider than its box (a long sentence, a phone) scrolls sideways, and its caption says so
   while there is more to its right: the box's scroll position drives the cue, which a box that does
   not scroll leaves at size 0 (an inactive scroll timeline: no room taken). The arrow keys move the focused cell and
   the box follows it (heatmap/focus.js). */
figure.heatmap { timeline-scope: --attn-heatmap-x; }
figure.heatmap > .scroll { scroll-timeline: --attn-heatmap-x x; }
figure.heatmap > figcaption::after { content: attr(data-more); color: var(--_accent); font-weight: 600; font-size: 0; animation: attn-more linear both; animation-timeline: --attn-heatmap-x; }
@keyframes attn-more { from, 97% { font-size: 0.8rem; margin-inline-start: 0.6rem; } to { font-size: 0; margin-inline-start: 0; } }
.scroll canvas { display: block; cursor: crosshair; }
/* The canvas's colour properties hold the theme's colours, resolved (light-dark() included), for
   canvas.js to read; they draw nothing. While printing (data-print) they are the light ones. */
.scroll canvas { color: var(--_muted); caret-color: var(--_hl); column-rule-color: var(--_focus); text-decoration-color: var(--_fg); }
.scroll canvas[data-print] { color-scheme: light; }
/* A box that scrolls sideways shades each edge that has more to see: the covers scroll with the
   content and hide the shades once an end is reached (Lea Verou's scrolling shadows). */
.formula, .scroll, .table-scroll {
  --_cover: var(--_bg);
  --_shade: color-mix(in srgb, var(--_fg) 45%, transparent);
  background:
    linear-gradient(to right, var(--_cover) 0.9rem, transparent) left -1px top 0 / 1.8rem 100% no-repeat local,
    linear-gradient(to left, var(--_cover) 0.9rem, transparent) right -1px top 0 / 1.8rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, var(--_shade), transparent) left / 0.8rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, var(--_shade), transparent) right / 0.8rem 100% no-repeat scroll,
    var(--_cover);
}
.formula { --_cover: var(--_surface); }
/* The heatmap's data table, for screen readers and scripts: far off screen, so its thousands of
   cells cost no style or layout until one is focused (the canvas shows them). */
.cells-table { position: absolute; top: 0; left: -100000px; width: 1px; height: 1px; overflow: hidden; content-visibility: auto; }
.scroll canvas:focus-visible { outline-offset: -3px; }
table { display: table; border-collapse: separate; border-spacing: 1px; font-family: var(--_mono); font-size: 0.72rem; }
caption { display: table-caption; }
thead { display: table-header-group; } tbody { display: table-row-group; } tr { display: table-row; }
th, td { display: table-cell; }
th { font-weight: 600; color: var(--_muted); padding: 0 0.25rem; white-space: nowrap; font-family: var(--_font); max-width: 7rem; overflow: hidden; text-overflow: ellipsis; }
thead th { text-align: center; }
tbody th { text-align: end; }
.legend { display: flex; align-items: center; gap: 0.4rem; font-size: 0.78rem; margin-top: 0.3rem; font-family: var(--_mono); flex-wrap: wrap; }
.legend .bar { display: inline-block; width: 8rem; height: 0.7rem; border: 1px solid var(--_border); }
.legend .bar.sequential { background: linear-gradient(to right, ${STOPS.VIRIDIS.join(', ')}); }
.legend .bar.diverging { background: linear-gradient(to right, ${STOPS.PUOR.join(', ')}); }
.legend .masked-key { display: inline-block; width: 1rem; height: 0.7rem; background: repeating-linear-gradient(45deg, #9aa0a8 0 3px, #d9dce0 3px 6px); }
.readout { font-family: var(--_mono); font-size: 0.8rem; min-height: 1.3em; color: var(--_muted); overflow-wrap: anywhere; }
.export { display: flex; flex-wrap: wrap; gap: 0.25rem; align-items: center; font-size: 0.78rem; }
.export button { font-size: 0.75rem; min-height: 1.9rem; padding: 0.1rem 0.45rem; }
.export-label { color: var(--_muted); }
.operands .wide { flex: 1 0 100%; margin: 0; }
.operands { display: flex; flex-wrap: wrap; gap: 1rem; border-top: 1px dashed var(--_border); margin-top: 0.5rem; padding-top: 0.3rem; }
.stepper { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; }
.position { color: var(--_muted); font-size: 0.9rem; }
.error { color: var(--_fg); border-left: 4px solid #c62828; padding: 0.3rem 0.6rem; background: var(--_surface); font-family: var(--_mono); font-size: 0.85rem; overflow-wrap: anywhere; }
.stats { display: table; border-collapse: collapse; font-family: var(--_font); font-size: 0.85rem; margin: 0.5rem 0; }
.stats th, .stats td { border: 1px solid var(--_border); padding: 0.2rem 0.5rem; text-align: end; color: var(--_fg); max-width: none; }
.stats th[scope="row"] { text-align: start; }
.chart svg { display: block; width: 100%; height: auto; }
.chart-wrap { flex: 1 1 18rem; min-width: 0; }
.chart text { fill: var(--_fg); font: 11px var(--_font); }
.chart .axis { stroke: var(--_muted); }
.chart .grid-line { stroke: var(--_border); stroke-dasharray: 2 3; }
.key { display: flex; flex-wrap: wrap; gap: 0.8rem; font-size: 0.85rem; }
.swatch { display: inline-block; width: 1.4rem; height: 0.25rem; vertical-align: middle; margin-inline-end: 0.3rem; }
details { display: block; margin: 0.4rem 0; } summary { display: list-item; cursor: pointer; }
textarea { font-family: var(--_mono); width: 100%; min-height: 5rem; }
.typed-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(16rem, 100%), 1fr)); gap: 0.2rem 1rem; margin-top: 0.3rem; }
.typed[hidden] { display: none; }
.typed .matrix-label { display: block; font-family: var(--_mono); margin-top: 0.3rem; }
@media (max-width: 480px) {
  .root { padding: 0.5rem; font-size: 14px; }
  .controls { gap: 0.4rem 0.6rem; }
  .controls input[type="number"] { width: 4.6rem !important; }
  .controls select { max-width: 12rem; }
  /* One row that scrolls sideways, its end faded: a cut tab under the fade says more follow; the
     end padding lets the last tab scroll clear of the fade. */
  [role="tablist"] { flex-wrap: nowrap; overflow-x: auto; padding-bottom: 0.3rem; padding-inline-end: 2rem; mask-image: linear-gradient(to left, transparent, #000 2rem); }
  [role="tab"] { flex: 0 0 auto; }
  .field small { display: none; }
  :host { --_cell: var(--attn-cell-size, 2.3rem); }
}
/* Print: no controls, export buttons or hover hints; the shown step's tab only; a heatmap, chart,
   table or formula kept on one page (scaled down to fit when larger), nothing cut by a scroll box. */
@media print {
  .controls, .export, .readout, button:not([role="tab"]), [role="tab"]:not([aria-selected="true"]) { display: none !important; }
  figure.heatmap, .chart-wrap, .stats, .formula, .table-scroll { break-inside: avoid; }
  .scroll, .formula, .table-scroll { overflow: visible; max-height: none; background: none; }
  .scroll canvas { max-width: 100%; max-height: 90vh; height: auto !important; object-fit: contain; object-position: left top; }
}
`;

let sheet = null;

/** Attach the shared stylesheet (and KaTeX's rules) to a shadow root. */
export function adoptStyles(shadow) {
  const text = `${katexRules}\n${css}`;
  try {
    sheet ??= new CSSStyleSheet();
    if (!sheet.cssRules.length) sheet.replaceSync(text);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = text;
    shadow.append(style);
  }
}
