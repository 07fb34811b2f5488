#include "train/embedding.h"

#include <cmath>

#include "simd.h"

namespace attn {
namespace {

// Every id in [0, rows): checked in full before anything is written.
bool ids_in_range(const std::int32_t* ids, std::size_t n, std::size_t rows) {
  for (std::size_t t = 0; t < n; ++t)
    if (ids[t] < 0 || static_cast<std::size_t>(ids[t]) >= rows) return false;
  return true;
}

}  // namespace

Status embed_forward(const std::int32_t* ids, std::size_t n, ConstMatrixView table, float scale,
                     ConstMatrixView positions, MatrixView out) {
  const std::size_t d = table.cols;
  if (out.rows != n || out.cols != d) return Status::shape_mismatch;
  if (positions.data != nullptr && (positions.rows < n || positions.cols != d)) return Status::shape_mismatch;
  if (!std::isfinite(scale)) return Status::bad_argument;
  if (n == 0) return Status::ok;
  if (ids == nullptr || (d > 0 && (table.data == nullptr || out.data == nullptr))) return Status::bad_argument;
  if (!ids_in_range(ids, n, table.rows)) return Status::bad_argument;
  const simd::f32x4 s = simd::splat(scale);
  for (std::size_t t = 0; t < n; ++t) {
    const float* e = table.row(static_cast<std::size_t>(ids[t]));
    float* o = out.row(t);
    std::size_t j = 0;
    if (positions.data != nullptr) {
      const float* p = positions.row(t);
      for (; j + 4 <= d; j += 4) simd::store(o + j, simd::madd(simd::load(p + j), s, simd::load(e + j)));
      for (; j < d; ++j) o[j] = scale * e[j] + p[j];
    } else {
      for (; j + 4 <= d; j += 4) simd::store(o + j, simd::mul(s, simd::load(e + j)));
      for (; j < d; ++j) o[j] = scale * e[j];
    }
  }
  return Status::ok;
}

Status embed_backward(const std::int32_t* ids, std::size_t n, ConstMatrixView d_out, float scale,
                      MatrixView d_table, MatrixView d_positions) {
  const std::size_t d = d_out.cols;
  if (d_out.rows != n) return Status::shape_mismatch;
  if (d_table.data != nullptr && d_table.cols != d) return Status::shape_mismatch;
  if (d_positions.data != nullptr && (d_positions.rows < n || d_positions.cols != d)) return Status::shape_mismatch;
  if (!std::isfinite(scale)) return Status::bad_argument;
  if (n == 0) return Status::ok;
  if (ids == nullptr || (d > 0 && d_out.data == nullptr)) return Status::bad_argument;
  if (d_table.data != nullptr && !ids_in_range(ids, n, d_table.rows)) return Status::bad_argument;
  const simd::f32x4 s = simd::splat(scale);
  for (std::size_t t = 0; t < n; ++t) {
    const float* g = d_out.row(t);
    // 1. dE[id_t] += scale · dy_t (a repeated id gathers every row that used it).
    if (d_table.data != nullptr) {
      float* e = d_table.row(static_cast<std::size_t>(ids[t]));
      std::size_t j = 0;
      for (; j + 4 <= d; j += 4) simd::store(e + j, simd::madd(simd::load(e + j), s, simd::load(g + j)));
      for (; j < d; ++j) e[j] += scale * g[j];
    }
    // 2. Learned positions: dP[t] += dy_t.
    if (d_positions.data != nullptr) {
      float* p = d_positions.row(t);
      std::size_t j = 0;
      for (; j + 4 <= d; j += 4) simd::store(p + j, simd::add(simd::load(p + j), simd::load(g + j)));
      for (; j < d; ++j) p[j] += g[j];
    }
  }
  return Status::ok;
}

}  // namespace attn
