#include "local_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "matmul.h"
#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

constexpr std::size_t kBlock = 64;  // keys scored at once (a stack buffer)

// Rows [first, first + count) of m, sharing m's memory.
ConstMatrixView row_slice(ConstMatrixView m, std::size_t first, std::size_t count) {
  return {m.row(first), count, m.cols, m.stride};
}

// Query i against keys [lo, hi), lo < hi, one block of keys at a time:
// softmax(scale · q_i K[lo:hi]ᵀ) V[lo:hi] into out_row (d_v), weights into
// w_row (n entries) when traced.
void local_row(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, std::size_t i, std::size_t lo,
               std::size_t hi, float scale, float* out_row, float* w_row) {
  const std::size_t d_v = v.cols;
  float s[kBlock];
  float row_max = -INFINITY;
  double sum = 0.0;
  std::fill(out_row, out_row + d_v, 0.0f);
  for (std::size_t j0 = lo; j0 < hi; j0 += kBlock) {
    const std::size_t c = std::min(kBlock, hi - j0);
    // 1. scores of this block: scale · q_i · k_j
    matmul_transposed(row_slice(q, i, 1), row_slice(k, j0, c), scale, dense(s, 1, c));
    if (w_row) std::memcpy(w_row + j0, s, c * sizeof(float));
    // 2. block max; if it raises the running max, rescale what is accumulated
    float block_max = -INFINITY;
    for (std::size_t t = 0; t < c; ++t) block_max = std::max(block_max, s[t]);
    if (block_max > row_max) {
      const float f = std::exp(row_max - block_max);
      sum *= f;
      scale_in_place(out_row, f, d_v);
      row_max = block_max;
    }
    // 3. exp, sum, and the weighted sum of this block's values
    for (std::size_t t = 0; t < c; ++t) {
      const float p = std::exp(s[t] - row_max);
      sum += p;
      add_scaled(out_row, p, v.row(j0 + t), d_v);
    }
  }
  // 4. normalise (sum >= 1: the max entry contributes exp(0) = 1)
  const float inv = static_cast<float>(1.0 / sum);
  scale_in_place(out_row, inv, d_v);
  // 5. trace: the weights row, exactly 0 outside the window
  if (w_row) {
    const std::size_t n = k.rows;
    std::fill(w_row, w_row + lo, 0.0f);
    for (std::size_t j = lo; j < hi; ++j) w_row[j] = std::exp(w_row[j] - row_max) * inv;
    std::fill(w_row + hi, w_row + n, 0.0f);
  }
}

}  // namespace

Status local_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, std::size_t window, bool causal,
                       float scale, MatrixView out, float* weights) {
  const std::size_t n = q.rows;
  if (k.rows != n || v.rows != n || k.cols != q.cols) return Status::shape_mismatch;
  if (out.rows != n || out.cols != v.cols) return Status::shape_mismatch;
  if (window == 0) return Status::bad_argument;
  for (std::size_t i = 0; i < n; ++i) {
    // keys [lo, hi): i − (w − 1) ... i (causal) or i + (w − 1), clipped to [0, n)
    const std::size_t lo = i - std::min(i, window - 1);
    const std::size_t hi = causal ? i + 1 : i + std::min(window, n - i);
    local_row(q, k, v, i, lo, hi, scale, out.row(i), weights ? weights + i * n : nullptr);
  }
  return Status::ok;
}

}  // namespace attn
