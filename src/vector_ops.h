// Small loops over float vectors, written once on the SIMD layer: a vector
// body, then a scalar tail.
#pragma once

#include <cstddef>

#include "simd.h"

namespace attn {

// y[0..len) *= a
inline void scale_in_place(float* y, float a, std::size_t len) {
  const simd::f32x4 av = simd::splat(a);
  std::size_t t = 0;
  for (; t + simd::kWidth <= len; t += simd::kWidth) simd::store(y + t, simd::mul(simd::load(y + t), av));
  for (; t < len; ++t) y[t] *= a;
}

// y[0..len) += a · x[0..len)
inline void add_scaled(float* y, float a, const float* x, std::size_t len) {
  const simd::f32x4 av = simd::splat(a);
  std::size_t t = 0;
  for (; t + simd::kWidth <= len; t += simd::kWidth)
    simd::store(y + t, simd::madd(simd::load(y + t), av, simd::load(x + t)));
  for (; t < len; ++t) y[t] += a * x[t];
}

// x[0..len) = e^(x − max) in place (len a multiple of 4, every x <= max, -infinity gives 0); returns
// the four lane sums of what it wrote. The exp-and-sum pass of every softmax here.
inline simd::f32x4 exp_minus_max_in_place(float* x, float max, std::size_t len) {
  const simd::f32x4 m = simd::splat(max);
  simd::f32x4 sum = simd::zero();
  for (std::size_t t = 0; t < len; t += simd::kWidth) {
    const simd::f32x4 e = simd::exp_nonpositive(simd::sub(simd::load(x + t), m));
    simd::store(x + t, e);
    sum = simd::add(sum, e);
  }
  return sum;
}

}  // namespace attn
