// Boxes that scroll sideways at a narrow width (a long formula, a wide table): while they overflow
// they are named, keyboard-focusable regions (Tab reaches them, the arrow keys scroll them); the
// shades at their edges are CSS (styles.js). A heatmap's box is left alone: its cells take the focus.
const BOXES = 'div.formula, .table-scroll, .scroll:not(figure > .scroll)';

/** The region's name: a formula, or the table it holds (its caption or label when it has one). */
function nameOf(box, t) {
  if (box.matches('.formula')) return t('app.scrollFormula');
  const table = box.querySelector('table');
  const name = (table?.caption?.textContent || table?.getAttribute('aria-label') || '').trim();
  return name ? t('app.scrollNamed', { name }) : t('app.scrollTable');
}

/** Mark the boxes of `root` that overflow sideways as regions, and unmark those that no longer do. */
export function markScrollRegions(root, t) {
  // Every box is measured before any is changed: a write between two reads would make the browser
  // restyle and lay out the panel again for the second read.
  const boxes = [...root.querySelectorAll(BOXES)]
    // A box given a role or tab stop by its panel keeps them. A box in a closed <details> is not
    // laid out, and measuring it would lay it out: it is marked when its details opens (base.js).
    .filter((box) => 'scrollRegion' in box.dataset || !(box.hasAttribute('role') || box.hasAttribute('tabindex')))
    .filter((box) => !box.closest('details:not([open])'))
    .map((box) => ({ box, ours: 'scrollRegion' in box.dataset, overflows: box.scrollWidth > box.clientWidth + 1 }));
  for (const { box, ours, overflows } of boxes) {
    if (!overflows) {
      if (ours) for (const name of ['tabindex', 'role', 'aria-label', 'data-scroll-region']) box.removeAttribute(name);
      continue;
    }
    const name = nameOf(box, t);
    if (ours && box.getAttribute('aria-label') === name) continue;
    Object.assign(box, { tabIndex: 0 });
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', name);
    box.dataset.scrollRegion = '';
  }
}
