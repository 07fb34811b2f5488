// A Chromium trace of a page's main thread (CDP Tracing, devtools.timeline), for the benchmark that
// watches <attention-train> (bench/train-panel-frames.mjs) and its e2e test (tests/e2e/train.test.js).
// Each top-level task of the renderer's main thread has a wall time (dur: how long it held the thread,
// waits for a core included) and a thread CPU time (tdur: what the page did). On a 2-core machine
// where a worker trains on one core, other processes stretch the wall time of a task that takes a few
// milliseconds of CPU to 100 ms and more; its CPU time stays what the page's code cost.

/** Starts tracing `page`; resolves to `stop()`, which ends the trace and resolves to its events. */
export async function startTrace(page, { categories = 'devtools.timeline,disabled-by-default-devtools.timeline,v8' } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  return async () => {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach();
    return events;
  };
}

/**
 * The renderer main thread's complete events (`mine`) and its top-level tasks (`top`: RunTask
 * events not inside another, since ThreadControllerImpl::RunTask nests them), in time order.
 */
export function mainThreadTasks(events) {
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'FunctionCall'));
  if (!main) throw new Error('no CrRendererMain thread with script in the trace');
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const runs = mine.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask').sort((a, b) => a.ts - b.ts);
  const top = [];
  for (const e of runs) if (!top.length || e.ts >= top.at(-1).ts + top.at(-1).dur) top.push(e);
  return { mine, top };
}

/** A task's wall and CPU milliseconds (CPU = wall where the trace has no thread time). */
export const taskTimes = (task) => ({ wallMs: task.dur / 1000, cpuMs: (task.tdur ?? task.dur) / 1000 });
