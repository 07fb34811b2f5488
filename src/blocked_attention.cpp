#include "blocked_attention.h"

#include <cmath>

#include "attention.h"
#include "matmul.h"
#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

using simd::f32x4;

constexpr std::size_t kBlockRows = 4;     // query rows per block
constexpr std::size_t kPanel = kPackedPanel;  // keys per packed panel of Kᵀ
constexpr std::size_t kValueChunk = 64;   // keys whose rows of V one pass of column tiles shares

// The rows of one block: i0 … i0 + R − 1, and the keys any of them sees, [0, keys).
struct Block {
  std::size_t i0;
  std::size_t keys;
};

// 1. weights[i0 + r][j … j + 8) = scale · Q[i0 + r] · K[j … j + 8)ᵀ, K read from its packed panel.
template <int R>
void score_tile(ConstMatrixView q, const float* panel, float scale, MatrixView w, std::size_t i0, std::size_t j) {
  f32x4 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (std::size_t p = 0; p < q.cols; ++p) {
    const f32x4 k0 = simd::load(panel + p * kPanel), k1 = simd::load(panel + p * kPanel + 4);
    for (int r = 0; r < R; ++r) {
      const f32x4 qv = simd::load_splat(q.row(i0 + r) + p);
      acc[r][0] = simd::madd(acc[r][0], qv, k0);
      acc[r][1] = simd::madd(acc[r][1], qv, k1);
    }
  }
  const f32x4 s = simd::splat(scale);
  alignas(16) float tail[R][kPanel];
  const bool full = j + kPanel <= w.cols;
  for (int r = 0; r < R; ++r) {
    simd::store(full ? w.row(i0 + r) + j : tail[r], simd::mul(acc[r][0], s));
    simd::store(full ? w.row(i0 + r) + j + 4 : tail[r] + 4, simd::mul(acc[r][1], s));
  }
  if (!full)
    for (int r = 0; r < R; ++r)
      for (std::size_t t = 0; j + t < w.cols; ++t) w.at(i0 + r, j + t) = tail[r][t];
}

// 2. Softmax of one row over its visible entries [0, end), in place; entries past end become 0.
// A visible score that is not finite makes the row NaN; no visible key, a zero row.
void softmax_prefix(float* w, std::size_t end, std::size_t m) {
  const std::size_t body = end / 4 * 4;
  f32x4 vmax = simd::splat(-INFINITY), nonfinite = simd::zero();  // x − x is NaN exactly for ±inf and NaN
  for (std::size_t j = 0; j < body; j += 4) {
    const f32x4 x = simd::load(w + j);
    vmax = simd::max(vmax, x);
    nonfinite = simd::add(nonfinite, simd::sub(x, x));
  }
  float row_max = simd::hmax(vmax);
  bool finite = !std::isnan(simd::hsum(nonfinite));
  for (std::size_t j = body; j < end; ++j) {
    finite &= std::isfinite(w[j]);
    row_max = w[j] > row_max ? w[j] : row_max;
  }
  for (std::size_t j = end; j < m; ++j) w[j] = 0.0f;
  if (!finite) {
    for (std::size_t j = 0; j < m; ++j) w[j] = NAN;
    return;
  }
  if (end == 0) return;
  // exp and sum in one pass (the max entry gives e^0 = 1: the sum is >= 1), then normalise
  const f32x4 vsum = exp_minus_max_in_place(w, row_max, body);
  alignas(16) float tail[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (std::size_t j = body; j < end; ++j) tail[j - body] = w[j];
  const f32x4 te = simd::exp_nonpositive(simd::sub(simd::load(tail), simd::splat(row_max)));
  simd::store(tail, te);
  for (std::size_t j = body; j < end; ++j) w[j] = tail[j - body];
  const float inv = static_cast<float>(1.0 / (static_cast<double>(simd::hsum(vsum)) + simd::hsum(te)));
  const f32x4 vinv = simd::splat(inv);
  for (std::size_t j = 0; j < body; j += 4) simd::store(w + j, simd::mul(simd::load(w + j), vinv));
  for (std::size_t j = body; j < end; ++j) w[j] *= inv;
}

// 3. out[i0 + r][c … c + 4V) += weights[i0 + r][j0 … j1) · V[j0 … j1)[c … c + 4V).
template <int R, int V>
void value_tile(ConstMatrixView w, ConstMatrixView v, MatrixView out, std::size_t i0, std::size_t c, std::size_t j0,
                std::size_t j1) {
  f32x4 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < V; ++t) acc[r][t] = simd::load(out.row(i0 + r) + c + 4 * t);
  for (std::size_t j = j0; j < j1; ++j) {
    f32x4 vv[V];
    for (int t = 0; t < V; ++t) vv[t] = simd::load(v.row(j) + c + 4 * t);
    for (int r = 0; r < R; ++r) {
      const f32x4 p = simd::load_splat(w.row(i0 + r) + j);
      for (int t = 0; t < V; ++t) acc[r][t] = simd::madd(acc[r][t], p, vv[t]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < V; ++t) simd::store(out.row(i0 + r) + c + 4 * t, acc[r][t]);
}

template <int R>
void pool_block(ConstMatrixView w, ConstMatrixView v, MatrixView out, Block b) {
  for (int r = 0; r < R; ++r)
    for (std::size_t c = 0; c < out.cols; ++c) out.at(b.i0 + r, c) = 0.0f;
  for (std::size_t j0 = 0; j0 < b.keys; j0 += kValueChunk) {
    const std::size_t j1 = j0 + kValueChunk < b.keys ? j0 + kValueChunk : b.keys;
    std::size_t c = 0;
    for (; c + 8 <= out.cols; c += 8) value_tile<R, 2>(w, v, out, b.i0, c, j0, j1);
    for (; c + 4 <= out.cols; c += 4) value_tile<R, 1>(w, v, out, b.i0, c, j0, j1);
    for (; c < out.cols; ++c)
      for (int r = 0; r < R; ++r)
        for (std::size_t j = j0; j < j1; ++j) out.at(b.i0 + r, c) += w.at(b.i0 + r, j) * v.at(j, c);
  }
}

// One block of R rows: 1. scores, 2. softmax, 3. weights · V.
template <int R>
void attend_block(ConstMatrixView q, const float* packed_k, ConstMatrixView v, const Mask& mask, float scale,
                  MatrixView w, MatrixView out, std::size_t i0) {
  Block b{i0, 0};
  for (int r = 0; r < R; ++r) {
    const std::size_t end = mask.prefix_end(i0 + r, w.cols);
    b.keys = end > b.keys ? end : b.keys;
  }
  for (std::size_t j = 0; j < b.keys; j += kPanel) score_tile<R>(q, packed_k + j * q.cols, scale, w, i0, j);
  for (int r = 0; r < R; ++r) softmax_prefix(w.row(i0 + r), mask.prefix_end(i0 + r, w.cols), w.cols);
  pool_block<R>(w, v, out, b);
}

Status check_shapes(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask, MatrixView weights,
                    MatrixView out) {
  if (q.cols != k.cols || k.rows != v.rows) return Status::shape_mismatch;
  if (weights.rows != q.rows || weights.cols != k.rows) return Status::shape_mismatch;
  if (out.rows != q.rows || out.cols != v.cols) return Status::shape_mismatch;
  return check_mask(mask, q.rows, k.rows);
}

}  // namespace

std::size_t blocked_attention_scratch_floats(std::size_t m, std::size_t d) { return packed_floats(d, m); }

Status blocked_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask, float scale,
                         MatrixView weights, MatrixView out, float* scratch) {
  if (!mask.is_prefix()) return scaled_dot_product_attention(q, k, v, mask, scale, weights, out);
  if (Status s = check_shapes(q, k, v, mask, weights, out); s != Status::ok) return s;
  if (k.rows > 0 && q.cols > 0 && scratch == nullptr) return Status::bad_argument;
  if (k.rows > 0 && q.cols > 0) pack_transposed(k, scratch);
  std::size_t i = 0;
  for (; i + kBlockRows <= q.rows; i += kBlockRows) attend_block<kBlockRows>(q, scratch, v, mask, scale, weights, out, i);
  for (; i < q.rows; ++i) attend_block<1>(q, scratch, v, mask, scale, weights, out, i);
  return Status::ok;
}

}  // namespace attn
