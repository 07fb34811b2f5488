#include "softmax.h"

#include <cfloat>
#include <cmath>

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

// Softmax of one row over the visible entries, written into w. Four passes:
// 1. max of the visible scores, 2. exp(s - max) and their sum, 3. normalise.
// Masked entries are written as 0 in pass 2.
void softmax_row(const float* s, const Mask& mask, std::size_t i, std::size_t m, float* w) {
  const std::size_t end = mask.prefix_end(i, m);
  // 1. max
  float row_max = -INFINITY;
  for (std::size_t j = 0; j < end; ++j)
    if (mask.visible(i, j) && s[j] > row_max) row_max = s[j];
  if (row_max == -INFINITY) {  // no visible key: a defined all-zero row
    for (std::size_t j = 0; j < m; ++j) w[j] = 0.0f;
    return;
  }
  // 2. exp and sum
  double sum = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    const float e = (j < end && mask.visible(i, j)) ? std::exp(s[j] - row_max) : 0.0f;
    w[j] = e;
    sum += e;
  }
  // 3. normalise (sum >= 1: the max entry contributes exp(0) = 1)
  const float inv = static_cast<float>(1.0 / sum);
  for (std::size_t j = 0; j < end; ++j) w[j] *= inv;
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
