#include "attention.h"

#include <cmath>
#include <cstring>

#include "matmul.h"
#include "scoring.h"
#include "softmax.h"

namespace attn {
namespace {

bool has_shape(ConstMatrixView m, std::size_t rows, std::size_t cols) { return m.rows == rows && m.cols == cols; }

// Shared by both scoring functions: K and V pair up, weights are n×m, the
// output n×d_v, and the mask fits.
Status check_pooling(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask,
                     ConstMatrixView weights, ConstMatrixView out) {
  if (k.rows != v.rows) return Status::shape_mismatch;
  if (!has_shape(weights, q.rows, k.rows) || !has_shape(out, q.rows, v.cols)) return Status::shape_mismatch;
  return check_mask(mask, q.rows, k.rows);
}

void copy_matrix(ConstMatrixView from, MatrixView to) {
  for (std::size_t i = 0; i < from.rows; ++i) std::memcpy(to.row(i), from.row(i), from.cols * sizeof(float));
}

// Steps shared after scoring: 3. record the mask, 4. softmax, 5. weights · V.
void normalise_and_pool(MatrixView scores, ConstMatrixView v, const Mask& mask, MatrixView weights, MatrixView out,
                        const AttentionTrace* trace) {
  if (trace && trace->masked && mask.kind != MaskKind::none)
    apply_mask_for_trace(scores, mask, dense(trace->masked, scores.rows, scores.cols));
  softmax_rows(scores, mask, weights);
  matmul(weights, v, out);
}

}  // namespace

float default_scale(std::size_t d_k) {
  return d_k > 0 ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_k))) : 1.0f;
}

Status scaled_dot_product_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask,
                                    float scale, MatrixView weights, MatrixView out, const AttentionTrace* trace) {
  if (q.cols != k.cols) return Status::shape_mismatch;
  if (Status s = check_pooling(q, k, v, mask, weights, out); s != Status::ok) return s;
  // 1. scores Q Kᵀ, 2. scaled: written straight into weights when not traced
  if (trace && trace->scores) {
    MatrixView scores = dense(trace->scores, q.rows, k.rows);
    dot_product_scores(q, k, 1.0f, scores);
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t j = 0; j < k.rows; ++j) weights.at(i, j) = scores.at(i, j) * scale;
  } else {
    dot_product_scores(q, k, scale, weights);
  }
  if (trace && trace->scaled) copy_matrix(weights, dense(trace->scaled, q.rows, k.rows));
  normalise_and_pool(weights, v, mask, weights, out, trace);
  return Status::ok;
}

Status additive_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const AdditiveParams& p,
                          const Mask& mask, MatrixView weights, MatrixView out, const AttentionTrace* trace) {
  const std::size_t h = p.w_q.cols;
  if (p.w_q.rows != q.cols || p.w_k.rows != k.cols || p.w_k.cols != h) return Status::shape_mismatch;
  if (!has_shape(p.q_hidden, q.rows, h) || !has_shape(p.k_hidden, k.rows, h)) return Status::shape_mismatch;
  if (h > 0 && p.w_v == nullptr) return Status::bad_argument;
  if (Status s = check_pooling(q, k, v, mask, weights, out); s != Status::ok) return s;
  // 1. scores w_vᵀ tanh(W_q q + W_k k)
  additive_scores(q, k, p.w_q, p.w_k, p.w_v, p.q_hidden, p.k_hidden, weights);
  if (trace && trace->scores) copy_matrix(weights, dense(trace->scores, q.rows, k.rows));
  normalise_and_pool(weights, v, mask, weights, out, trace);
  return Status::ok;
}

Status self_attention(ConstMatrixView x, ConstMatrixView w_q, ConstMatrixView w_k, ConstMatrixView w_v,
                      const Mask& mask, const Projections& qkv, MatrixView weights, MatrixView out,
                      const AttentionTrace* trace) {
  const std::size_t n = x.rows, d_k = w_q.cols;
  if (w_q.rows != x.cols || w_k.rows != x.cols || w_v.rows != x.cols) return Status::shape_mismatch;
  if (w_k.cols != d_k) return Status::shape_mismatch;
  if (!has_shape(qkv.q, n, d_k) || !has_shape(qkv.k, n, d_k) || !has_shape(qkv.v, n, w_v.cols))
    return Status::shape_mismatch;
  // Q, K, V = X W_Q, X W_K, X W_V
  matmul(x, w_q, qkv.q);
  matmul(x, w_k, qkv.k);
  matmul(x, w_v, qkv.v);
  const float scale = default_scale(d_k);
  return scaled_dot_product_attention(qkv.q, qkv.k, qkv.v, mask, scale, weights, out, trace);
}

}  // namespace attn
