// Warm-up and median timing, interleaved: the implementations of one shape
// take turns in rounds, so a change in machine load (this machine is shared)
// hits them all alike instead of whichever happened to be running.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

// Wall-clock ms of one call; the process CPU ms go to `cpu` when given (on a
// shared, busy machine the CPU time shows the work, the wall time the wait too).
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const timeOnce = async (run, cpu) => {
  const c = cpu ? cpuMs() : 0, s = performance.now();
  await run();
  const wall = performance.now() - s;
  if (cpu) cpu.push(cpuMs() - c);
  return wall;
};

// Median wall and CPU ms of calls after a warm-up, filling budgetMs (at least minReps calls).
export async function measure(run, { warmupMs = 200, budgetMs = 1000, minReps = 3, maxReps = 200 } = {}) {
  await warmUp(run, { warmupMs });
  const samples = [], cpu = [], t0 = performance.now();
  while (samples.length < minReps || (samples.length < maxReps && performance.now() - t0 < budgetMs)) samples.push(await timeOnce(run, cpu));
  return { ms: median(samples), cpuMs: median(cpu), reps: samples.length };
}

// Warm-up: calls until warmupMs have passed (at least `min`); V8 runs new
// WebAssembly in its baseline tier first and tiers hot functions up.
export async function warmUp(run, { warmupMs = 200, min = 1, maxMs = 3000 } = {}) {
  const t0 = performance.now();
  for (let k = 0; k < min || performance.now() - t0 < warmupMs; k++) {
    await run();
    if (performance.now() - t0 > maxMs) break;
  }
}

// entries: [{ run, slow }] (already warmed up). Each gets `rounds` turns of
// budgetMs / rounds and maxReps / rounds of calls (at least one call per turn; a slow entry, whose
// single call takes long, gets one call in each of its first 3 turns).
// Sets entry.samples and entry.cpuSamples (ms per call), entry.ms and entry.cpuMs (medians).
export async function measureInterleaved(entries, { rounds = 5, budgetMs = 1200, minReps = 3, maxReps = 300 } = {}) {
  for (const e of entries) [e.samples, e.cpuSamples] = [[], []];
  for (let r = 0; r < Math.max(rounds, minReps); r++)
    for (const e of entries) {
      if (e.slow) {
        if (e.samples.length < Math.min(minReps, 3)) e.samples.push(await timeOnce(e.run, e.cpuSamples));
        continue;
      }
      if (r >= rounds && e.samples.length >= minReps) continue;
      // an entry whose calls are long stops once it has its samples and has used its budget
      if (e.samples.length >= minReps && e.samples.reduce((a, b) => a + b, 0) >= budgetMs) continue;
      const t0 = performance.now(), cap = Math.min(maxReps, e.samples.length + Math.ceil(maxReps / rounds));
      do e.samples.push(await timeOnce(e.run, e.cpuSamples));
      while (performance.now() - t0 < budgetMs / rounds && e.samples.length < cap);
    }
  for (const e of entries) [e.ms, e.cpuMs] = [median(e.samples), median(e.cpuSamples)];
}
