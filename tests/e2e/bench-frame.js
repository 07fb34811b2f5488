// For the benchmark scripts (bench-language.mjs, bench-panels.mjs): a change's own frame, from a
// Chromium trace. Their CDP columns (style+layout, cpu) span the change, the next two frames and a
// short wait, so they also count the work the change leaves for later (heatmaps off screen, the
// screen-reader tables, parts built when idle); this is the frame the reader waits for.

/** Trace categories a frame needs (the main thread's tasks, paints and user-timing marks). */
export const FRAME_CATEGORIES = ['devtools.timeline', 'toplevel', 'fonts', 'blink.user_timing'];

/**
 * The main thread's busy time (tasks clipped to the span, ms) from `start` (a trace event: the
 * change) to the end of the first paint after it: the script, style and layout of the frame that
 * shows the change, with its paint (so a little more than those three). NaN without a paint.
 */
export function frameAfter(events, start) {
  if (!start) return NaN;
  const main = (e) => e.pid === start.pid && e.tid === start.tid && e.ph === 'X';
  const paint = events.filter((e) => main(e) && e.name === 'Paint' && e.ts > start.ts).sort((a, c) => a.ts - c.ts)[0];
  if (!paint) return NaN;
  const [from, to] = [start.ts, paint.ts + paint.dur];
  const tasks = events.filter((e) => main(e) && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && e.ts < to && e.ts + e.dur > from);
  return tasks.reduce((sum, e) => sum + Math.min(to, e.ts + e.dur) - Math.max(from, e.ts), 0) / 1000;
}

/** The trace event of `performance.mark(name)` made in the page (on the renderer's main thread). */
export const markEvent = (events, name) => events.find((e) => e.name === name && e.cat.includes('blink.user_timing'));

/**
 * Installed in the page (`page.addInitScript(installFrameTimer)`, or `page.evaluate` once loaded): `timeFrame(act)` runs `act` (a
 * change: a function whose promise resolves at the panel's render event) and times, in wall time
 * and without a trace's overhead:
 *   script  the change until its render;
 *   draw    the change's frame's animation-frame callbacks (the heatmaps' canvases are drawn there);
 *   frame   script, draw, and the frame's style and layout: from the frame's start (its time, or the
 *           render's end if later) to the end of its last callback (queued after the render), which
 *           forces style and layout so that they are timed (the frame's own pass then finds nothing to do);
 *   shown   the same until the frame's task is over: its paint too, and the canvases' pixels handed
 *           to the compositor (on a machine without a GPU, Chromium draws a canvas's recorded
 *           commands then), seen by a message posted from a callback of the frame.
 */
export function installFrameTimer() {
  globalThis.timeFrame = async (act) => {
    let frameStart = 0;
    const painted = new Promise((resolve) =>
      // The frame's time, not this callback's: a callback queued earlier (a heatmap's draw asked
      // for while the page was idle) runs before this one, in the same frame.
      requestAnimationFrame((time) => {
        frameStart = time;
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(performance.now());
        channel.port2.postMessage(0);
      }),
    );
    const t0 = performance.now();
    await act();
    const script = performance.now() - t0;
    const [drawn, laidOut] = await new Promise((resolve) =>
      requestAnimationFrame(() => {
        const at = performance.now();
        document.documentElement.getBoundingClientRect();
        resolve([at, performance.now()]);
      }),
    );
    const paintEnd = await painted;
    const start = Math.max(frameStart, t0 + script);
    return { script, draw: drawn - start, frame: script + laidOut - start, shown: script + paintEnd - start };
  };
}
