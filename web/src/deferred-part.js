// A part of a panel that can wait while it is off screen: a section far below what the reader
// sees (more than a viewport height away) is built when the page is next idle, after the change's
// frame, instead of inside the render (scheduler.js: data-ready waits for it, and a later render's
// version replaces one still waiting); one near the viewport, or coming near, is built at once.
// The long-sequences panel's Reformer and online-softmax sections took about a third of its
// render at 32 tokens, so a change of the panel missed its frame.
import { el } from './dom.js';
import { cancel, later, now } from './scheduler.js';
import { place } from './place.js';

// Whether a part's box is near the viewport: undefined until the observer has said (built at once).
const near = new WeakMap();
const io =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            near.set(e.target, e.isIntersecting);
            if (e.isIntersecting) now(e.target);
          }
        },
        { rootMargin: '100% 0px' },
      )
    : null;

/** A box for one deferred part (`name` as its data-part), watched for nearness. */
export function partBox(name) {
  const box = el('div', { 'data-part': name });
  io?.observe(box);
  return box;
}

/** Fill `box` (from partBox) with the nodes `build()` returns: now when it is near, else when idle. */
export function fillPart(box, build) {
  const fill = () => place(box, build());
  if (near.get(box) === false) later(box, fill);
  else {
    cancel(box);
    fill();
  }
  return box;
}
