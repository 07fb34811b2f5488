// The SIMD128 peak probe: a tiny WebAssembly module written byte by byte.
// peak(iters) runs 12 independent chains acc_j = acc_j·a + b of f32x4
// multiply and add (SIMD128 has no fused multiply-add), i.e. 12·8 flops per
// iteration, enough independent work to keep the vector units busy despite
// the latency of each mul→add step. Result = the sum of the lanes, so nothing
// is dead code. With { fused: true } each step is one f32x4.relaxed_madd (relaxed
// SIMD, the FMA build's multiply-add): the same 8 flops per chain and iteration.

const CHAINS = 12;
const uleb = (x) => {
  const out = [];
  do {
    let b = x & 0x7f;
    x >>>= 7;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
};
const f32 = (x) => [...new Uint8Array(new Float32Array([x]).buffer)];
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const SIMD = 0xfd, V128 = 0x7b;
const op = {
  splat: [SIMD, 0x13],
  extract0: [SIMD, 0x1f, 0],
  add: [SIMD, ...uleb(0xe4)],
  mul: [SIMD, ...uleb(0xe6)],
  relaxedMadd: [SIMD, ...uleb(0x105)], // a·b + c
};

export function peakModuleBytes({ fused = false } = {}) {
  const A = CHAINS + 1, B = CHAINS + 2; // locals: 0 = iters, 1..12 = acc, 13 = a, 14 = b
  const body = [
    1, ...uleb(CHAINS + 2), V128, // one local group: 14 × v128
    0x43, ...f32(0.9999), ...op.splat, 0x21, A,
    0x43, ...f32(0.001), ...op.splat, 0x21, B,
    0x03, 0x40, // loop
  ];
  for (let j = 1; j <= CHAINS; j++)
    if (fused) body.push(0x20, j, 0x20, A, 0x20, B, ...op.relaxedMadd, 0x21, j);
    else body.push(0x20, j, 0x20, A, ...op.mul, 0x20, B, ...op.add, 0x21, j);
  body.push(0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b); // iters -= 1; br_if loop; end
  body.push(0x20, 1);
  for (let j = 2; j <= CHAINS; j++) body.push(0x20, j, ...op.add);
  body.push(...op.extract0, 0x0b);
  const type = [1, 0x60, 1, 0x7f, 1, 0x7d]; // (i32) -> f32
  const name = [...new TextEncoder().encode('peak')];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, type),
    ...section(3, [1, 0]),
    ...section(7, [1, name.length, ...name, 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

// Median GFLOP/s of `reps` timed runs after a warm-up, by the wall clock
// and by the process CPU time (the fair ceiling when the machine is shared).
export async function measurePeak({ iters = 4_000_000, reps = 7, fused = false } = {}) {
  const { instance } = await WebAssembly.instantiate(peakModuleBytes({ fused }));
  const peak = instance.exports.peak;
  for (let k = 0; k < 3; k++) peak(iters);
  const wall = [], cpu = [], flops = iters * CHAINS * 8;
  for (let k = 0; k < reps; k++) {
    const c = process.cpuUsage(), t = performance.now();
    peak(iters);
    const dt = performance.now() - t, dc = process.cpuUsage(c);
    wall.push(flops / (dt * 1e6));
    cpu.push(flops / (((dc.user + dc.system) / 1000) * 1e6));
  }
  const mid = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  return { gflops: mid(wall), cpuGflops: mid(cpu), chains: CHAINS };
}
