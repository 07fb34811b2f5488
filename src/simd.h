// The portable SIMD layer: one 4-lane float vector type and the handful of
// operations the kernels need. The back end is picked here, at compile time,
// and nowhere else:
//   - WebAssembly SIMD128 when compiled with -msimd128 (__wasm_simd128__), with a fused
//     multiply-add (relaxed SIMD) when also compiled with -mrelaxed-simd (the FMA build),
//   - SSE on x86-64 native builds (tests, sanitizers, the native benchmark),
//   - plain scalar C++ otherwise (and for the scalar .wasm build).
// Kernels are written once against this layer: a vector loop, then a shared
// scalar tail.
#pragma once

#include <cstddef>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif (defined(__SSE2__) || defined(__x86_64__)) && !defined(ATTN_FORCE_SCALAR)
#include <immintrin.h>
#endif

namespace attn::simd {

constexpr std::size_t kWidth = 4;  // lanes per vector

#if defined(__wasm_simd128__)

using f32x4 = v128_t;
inline f32x4 load(const float* p) { return wasm_v128_load(p); }
inline void store(float* p, f32x4 v) { wasm_v128_store(p, v); }
inline f32x4 splat(float x) { return wasm_f32x4_splat(x); }
inline f32x4 zero() { return wasm_f32x4_const_splat(0.0f); }
inline f32x4 add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
inline f32x4 max(f32x4 a, f32x4 b) { return wasm_f32x4_pmax(a, b); }
#if defined(__wasm_relaxed_simd__)
// The FMA build (-mrelaxed-simd; clang 16 has the builtin, its wasm_simd128.h no wrapper yet):
// acc + a·b rounded once where the CPU has fused multiply-add, twice where it does not
// (relaxed SIMD lets the engine choose), so results may differ between machines in the last bits.
inline f32x4 madd(f32x4 acc, f32x4 a, f32x4 b) {
  using floats = float __attribute__((__vector_size__(16)));
  return (f32x4)__builtin_wasm_relaxed_madd_f32x4((floats)a, (floats)b, (floats)acc);
}
#else
inline f32x4 madd(f32x4 acc, f32x4 a, f32x4 b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
#endif
inline f32x4 load_splat(const float* p) { return wasm_v128_load32_splat(p); }
inline f32x4 min(f32x4 a, f32x4 b) { return wasm_f32x4_pmin(a, b); }
// Lanes where a > b keep x, the others become +0.
inline f32x4 keep_where_greater(f32x4 a, f32x4 b, f32x4 x) { return wasm_v128_and(wasm_f32x4_gt(a, b), x); }
// 2^n for integral-valued lanes n in [-126, 127]: the exponent field built directly.
inline f32x4 round_nearest(f32x4 x) { return wasm_f32x4_nearest(x); }
inline f32x4 exp2_integral(f32x4 n) {
  return wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
}
inline float hsum(f32x4 v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}
inline float hmax(f32x4 v) {
  float a = wasm_f32x4_extract_lane(v, 0), b = wasm_f32x4_extract_lane(v, 1);
  float c = wasm_f32x4_extract_lane(v, 2), d = wasm_f32x4_extract_lane(v, 3);
  float ab = a > b ? a : b, cd = c > d ? c : d;
  return ab > cd ? ab : cd;
}

#elif (defined(__SSE2__) || defined(__x86_64__)) && !defined(ATTN_FORCE_SCALAR)

using f32x4 = __m128;
inline f32x4 load(const float* p) { return _mm_loadu_ps(p); }
inline void store(float* p, f32x4 v) { _mm_storeu_ps(p, v); }
inline f32x4 splat(float x) { return _mm_set1_ps(x); }
inline f32x4 zero() { return _mm_setzero_ps(); }
inline f32x4 add(f32x4 a, f32x4 b) { return _mm_add_ps(a, b); }
inline f32x4 sub(f32x4 a, f32x4 b) { return _mm_sub_ps(a, b); }
inline f32x4 mul(f32x4 a, f32x4 b) { return _mm_mul_ps(a, b); }
inline f32x4 max(f32x4 a, f32x4 b) { return _mm_max_ps(a, b); }
inline f32x4 madd(f32x4 acc, f32x4 a, f32x4 b) { return _mm_add_ps(acc, _mm_mul_ps(a, b)); }
inline f32x4 load_splat(const float* p) { return _mm_load1_ps(p); }
inline f32x4 min(f32x4 a, f32x4 b) { return _mm_min_ps(a, b); }
inline f32x4 keep_where_greater(f32x4 a, f32x4 b, f32x4 x) { return _mm_and_ps(_mm_cmpgt_ps(a, b), x); }
inline f32x4 round_nearest(f32x4 x) { return _mm_cvtepi32_ps(_mm_cvtps_epi32(x)); }  // |x| < 2^31 here
inline f32x4 exp2_integral(f32x4 n) {
  return _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(n), _mm_set1_epi32(127)), 23));
}
inline float hsum(f32x4 v) {
  alignas(16) float t[4];
  _mm_store_ps(t, v);
  return (t[0] + t[1]) + (t[2] + t[3]);
}
inline float hmax(f32x4 v) {
  alignas(16) float t[4];
  _mm_store_ps(t, v);
  float ab = t[0] > t[1] ? t[0] : t[1], cd = t[2] > t[3] ? t[2] : t[3];
  return ab > cd ? ab : cd;
}

#else

struct f32x4 {
  float v[4];
};
inline f32x4 load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline void store(float* p, f32x4 a) {
  for (int i = 0; i < 4; ++i) p[i] = a.v[i];
}
inline f32x4 splat(float x) { return {{x, x, x, x}}; }
inline f32x4 zero() { return splat(0.0f); }
inline f32x4 add(f32x4 a, f32x4 b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}}; }
inline f32x4 sub(f32x4 a, f32x4 b) { return {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]}}; }
inline f32x4 mul(f32x4 a, f32x4 b) { return {{a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]}}; }
inline f32x4 max(f32x4 a, f32x4 b) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
  return r;
}
inline f32x4 madd(f32x4 acc, f32x4 a, f32x4 b) { return add(acc, mul(a, b)); }
inline f32x4 load_splat(const float* p) { return splat(*p); }
inline f32x4 min(f32x4 a, f32x4 b) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i];
  return r;
}
inline f32x4 keep_where_greater(f32x4 a, f32x4 b, f32x4 x) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = a.v[i] > b.v[i] ? x.v[i] : 0.0f;
  return r;
}
inline f32x4 round_nearest(f32x4 x) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = __builtin_nearbyintf(x.v[i]);
  return r;
}
inline f32x4 exp2_integral(f32x4 n) {
  f32x4 r;
  for (int i = 0; i < 4; ++i) {
    const unsigned bits = static_cast<unsigned>(static_cast<int>(n.v[i]) + 127) << 23;
    __builtin_memcpy(&r.v[i], &bits, sizeof bits);
  }
  return r;
}
inline float hsum(f32x4 a) { return (a.v[0] + a.v[1]) + (a.v[2] + a.v[3]); }
inline float hmax(f32x4 a) {
  float ab = a.v[0] > a.v[1] ? a.v[0] : a.v[1], cd = a.v[2] > a.v[3] ? a.v[2] : a.v[3];
  return ab > cd ? ab : cd;
}

#endif

// e^x for x <= 0 (as after subtracting a row max), to about 2 ulp. Lanes
// below -87.3 (where e^x leaves float32's normal range), and -infinity
// (a masked score), give exactly 0. Cephes' expf: x = n·ln2 + r, |r| <= ln2/2,
// e^r by a degree-6 polynomial, 2^n built in the exponent bits.
inline f32x4 exp_nonpositive(f32x4 x) {
  const f32x4 lowest = splat(-87.3f);
  const f32x4 keep = x;
  x = min(max(x, lowest), zero());  // in range for the exponent bits, whatever the input
  const f32x4 n = round_nearest(mul(x, splat(1.44269504088896341f)));
  f32x4 r = sub(x, mul(n, splat(0.693359375f)));
  r = sub(r, mul(n, splat(-2.12194440e-4f)));
  f32x4 p = splat(1.9875691500e-4f);
  p = madd(splat(1.3981999507e-3f), p, r);
  p = madd(splat(8.3334519073e-3f), p, r);
  p = madd(splat(4.1665795894e-2f), p, r);
  p = madd(splat(1.6666665459e-1f), p, r);
  p = madd(splat(5.0000001201e-1f), p, r);
  const f32x4 y = add(madd(r, mul(p, r), r), splat(1.0f));
  return keep_where_greater(keep, lowest, mul(y, exp2_integral(n)));
}

}  // namespace attn::simd
