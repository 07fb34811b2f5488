#include "train/linear.h"

#include "matmul.h"
#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

// db[j] += Σ_i dy[i][j]; summed from zero first, as the weight gradient.
void add_column_sums(ConstMatrixView dy, float* db) {
  std::size_t j = 0;
  for (; j + 4 <= dy.cols; j += 4) {
    f32x4 sum = simd::zero();
    for (std::size_t i = 0; i < dy.rows; ++i) sum = simd::add(sum, simd::load(dy.row(i) + j));
    simd::store(db + j, simd::add(simd::load(db + j), sum));
  }
  for (; j < dy.cols; ++j) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < dy.rows; ++i) sum += dy.at(i, j);
    db[j] += sum;
  }
}

// Below this many rows packing W costs more than it saves (a decoding step, whose
// rows are one sequence's); a training batch has hundreds.
constexpr std::size_t kPackMinRows = 64;

}  // namespace

std::size_t linear_pack_floats(std::size_t k, std::size_t m) {
  const std::size_t forward = packed_floats(k, m), backward = packed_floats(m, k);
  return forward > backward ? forward : backward;
}

Status linear_forward(ConstMatrixView x, ConstMatrixView w, const float* bias, MatrixView y, float* pack) {
  if (x.cols != w.rows || y.rows != x.rows || y.cols != w.cols) return Status::shape_mismatch;
  if (y.rows == 0 || y.cols == 0) return Status::ok;
  if (x.cols == 0) {
    for (std::size_t i = 0; i < y.rows; ++i)
      for (std::size_t j = 0; j < y.cols; ++j) y.at(i, j) = bias != nullptr ? bias[j] : 0.0f;
    return Status::ok;
  }
  // 1. y = x W (register-tiled product; the packed one sums in the same order).
  if (pack != nullptr && x.rows >= kPackMinRows) {
    pack_columns(w, pack);
    matmul_packed(x, pack, y);
  } else {
    matmul(x, w, y);
  }
  // 2. y += b on every row.
  if (bias == nullptr) return Status::ok;
  for (std::size_t i = 0; i < y.rows; ++i) {
    float* row = y.row(i);
    std::size_t j = 0;
    for (; j + 4 <= y.cols; j += 4) simd::store(row + j, simd::add(simd::load(row + j), simd::load(bias + j)));
    for (; j < y.cols; ++j) row[j] += bias[j];
  }
  return Status::ok;
}

Status linear_backward(ConstMatrixView x, ConstMatrixView w, ConstMatrixView dy, MatrixView dx, MatrixView dw,
                       float* db, float* pack) {
  const std::size_t n = x.rows, k = x.cols, m = w.cols;
  if (w.rows != k || dy.rows != n || dy.cols != m) return Status::shape_mismatch;
  if (dx.data != nullptr && (dx.rows != n || dx.cols != k)) return Status::shape_mismatch;
  if (dw.data != nullptr && (dw.rows != k || dw.cols != m)) return Status::shape_mismatch;
  // 1. dx = dy Wᵀ: with Wᵀ packed, or each entry a dot product of a row of dy with a row of W.
  if (dx.data != nullptr && n > 0 && k > 0) {
    if (m == 0) {
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j) dx.at(i, j) = 0.0f;
    } else if (pack != nullptr) {
      pack_transposed(w, pack);
      matmul_packed(dy, pack, dx);
    } else {
      matmul_transposed(dy, w, 1.0f, dx);
    }
  }
  // 2. dW += xᵀ dy.
  if (dw.data != nullptr) matmul_transposed_a_accumulate(x, dy, dw);
  // 3. db += the column sums of dy.
  if (db != nullptr) add_column_sums(dy, db);
  return Status::ok;
}

Status add(ConstMatrixView a, ConstMatrixView b, MatrixView out) {
  if (a.rows != b.rows || a.cols != b.cols || out.rows != a.rows || out.cols != a.cols)
    return Status::shape_mismatch;
  for (std::size_t i = 0; i < a.rows; ++i) {
    const float* ar = a.row(i);
    const float* br = b.row(i);
    float* o = out.row(i);
    std::size_t j = 0;
    for (; j + 4 <= a.cols; j += 4) simd::store(o + j, simd::add(simd::load(ar + j), simd::load(br + j)));
    for (; j < a.cols; ++j) o[j] = ar[j] + br[j];
  }
  return Status::ok;
}

}  // namespace attn
