#include "softmax.h"

#include <cfloat>
#include <cmath>

#include "simd.h"
#include "vector_ops.h"

namespace attn {

Status check_mask(const Mask& mask, std::size_t n, std::size_t m) {
  switch (mask.kind) {
    case MaskKind::none:
    case MaskKind::causal:
      return Status::ok;
    case MaskKind::valid_lens:
      if (n > 0 && mask.valid_lens == nullptr) return Status::bad_mask;
      for (std::size_t i = 0; i < n; ++i)
        if (mask.valid_lens[i] < 0 || static_cast<std::size_t>(mask.valid_lens[i]) > m) return Status::bad_mask;
      return Status::ok;
    case MaskKind::matrix:
      if (mask.rows != n || mask.cols != m) return Status::bad_mask;
      if (n * m > 0 && mask.bits == nullptr) return Status::bad_mask;
      return Status::ok;
  }
  return Status::bad_mask;
}

namespace {

using simd::f32x4;

// Up to 4 entries of a row as a vector, -infinity past `count` (so a masked
// or missing entry takes no part in the max and its exponential is exactly 0).
f32x4 load_partial(const float* p, std::size_t count) {
  alignas(16) float t[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (std::size_t c = 0; c < count; ++c) t[c] = p[c];
  return simd::load(t);
}

void store_partial(float* p, f32x4 v, std::size_t count) {
  alignas(16) float t[4];
  simd::store(t, v);
  for (std::size_t c = 0; c < count; ++c) p[c] = t[c];
}

// Softmax of one row over the visible entries, written into w:
// 1. masked entries become -infinity (a non-finite visible score: all NaN), 2. the row max, 3. exp(s - max) and
// their sum, 4. normalise. Only [0, end) can be visible (end = m for a
// matrix mask); entries past it are written as 0.
void softmax_row(const float* s, const Mask& mask, std::size_t i, std::size_t m, float* w) {
  const std::size_t end = mask.prefix_end(i, m);
  // 1. mask; a visible score that is not finite (an overflow upstream) has no
  // meaningful softmax: the row becomes NaN so the caller sees the failure
  bool finite = true;
  for (std::size_t j = 0; j < end; ++j) {
    const bool visible = mask.is_prefix() || mask.visible(i, j);
    finite &= !visible || std::isfinite(s[j]);
    w[j] = visible ? s[j] : -INFINITY;
  }
  for (std::size_t j = end; j < m; ++j) w[j] = 0.0f;
  if (!finite) {
    for (std::size_t j = 0; j < m; ++j) w[j] = NAN;
    return;
  }
  // 2. max
  const std::size_t body = end / 4 * 4;
  f32x4 vmax = load_partial(w + body, end - body);
  for (std::size_t j = 0; j < body; j += 4) vmax = simd::max(vmax, simd::load(w + j));
  const float row_max = simd::hmax(vmax);
  if (row_max == -INFINITY) {  // no visible key: a defined all-zero row
    for (std::size_t j = 0; j < end; ++j) w[j] = 0.0f;
    return;
  }
  // 3. exp and sum (the max entry contributes e^0 = 1, so the sum is >= 1)
  const f32x4 vm = simd::splat(row_max);
  const f32x4 vsum = exp_minus_max_in_place(w, row_max, body);
  const f32x4 tail = simd::exp_nonpositive(simd::sub(load_partial(w + body, end - body), vm));
  store_partial(w + body, tail, end - body);
  const double sum = static_cast<double>(simd::hsum(vsum)) + simd::hsum(tail);
  // 4. normalise
  const f32x4 inv = simd::splat(static_cast<float>(1.0 / sum));
  for (std::size_t j = 0; j < body; j += 4) simd::store(w + j, simd::mul(simd::load(w + j), inv));
  for (std::size_t j = body; j < end; ++j) w[j] *= static_cast<float>(1.0 / sum);
}

}  // namespace

void softmax_rows(ConstMatrixView s, const Mask& mask, MatrixView w) {
  for (std::size_t i = 0; i < s.rows; ++i) softmax_row(s.row(i), mask, i, s.cols, w.row(i));
}

void apply_mask_for_trace(ConstMatrixView s, const Mask& mask, MatrixView out) {
  for (std::size_t i = 0; i < s.rows; ++i)
    for (std::size_t j = 0; j < s.cols; ++j) out.at(i, j) = mask.visible(i, j) ? s.at(i, j) : -FLT_MAX;
}

}  // namespace attn
