#include "softmax_backward.h"

#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

// One row: 1. r = Σ_j p_j dp_j, 2. ds_j = p_j (dp_j − r). Each ds_j is written
// after its own dp_j is read, so ds may alias dp.
void softmax_backward_row(const float* p, const float* dp, float* ds, std::size_t m) {
  // 1. the row's Σ p ∘ dp: four lanes, then the tail
  f32x4 acc = simd::zero();
  std::size_t j = 0;
  for (; j + simd::kWidth <= m; j += simd::kWidth) acc = simd::madd(acc, simd::load(p + j), simd::load(dp + j));
  float r = simd::hsum(acc);
  for (; j < m; ++j) r += p[j] * dp[j];
  // 2. ds = p ∘ (dp − r): a masked entry has p = 0, so ds = 0
  const f32x4 rv = simd::splat(r);
  j = 0;
  for (; j + simd::kWidth <= m; j += simd::kWidth)
    simd::store(ds + j, simd::mul(simd::load(p + j), simd::sub(simd::load(dp + j), rv)));
  for (; j < m; ++j) ds[j] = p[j] * (dp[j] - r);
}

bool same_shape(ConstMatrixView a, ConstMatrixView b) { return a.rows == b.rows && a.cols == b.cols; }

}  // namespace

Status softmax_backward(ConstMatrixView p, ConstMatrixView dp, MatrixView ds) {
  if (!same_shape(p, dp) || !same_shape(p, ds)) return Status::shape_mismatch;
  if (p.rows * p.cols > 0 && (p.data == nullptr || dp.data == nullptr || ds.data == nullptr))
    return Status::bad_argument;
  if (p.cols == 0) return Status::ok;  // no keys: nothing to write
  for (std::size_t i = 0; i < p.rows; ++i) softmax_backward_row(p.row(i), dp.row(i), ds.row(i), p.cols);
  return Status::ok;
}

}  // namespace attn
