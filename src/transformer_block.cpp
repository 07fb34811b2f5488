#include "transformer_block.h"

#include <cmath>

#include "matmul.h"

namespace attn {
namespace {

bool same_shape(ConstMatrixView a, ConstMatrixView b) { return a.rows == b.rows && a.cols == b.cols; }

// out_row = γ ⊙ (row − mean) / √(var + ε) + β, in double.
void normalise_row(const float* row, std::size_t d, const float* gamma, const float* beta, double epsilon,
                   float* out) {
  double mean = 0.0;
  for (std::size_t j = 0; j < d; ++j) mean += row[j];
  mean /= static_cast<double>(d);
  double var = 0.0;
  for (std::size_t j = 0; j < d; ++j) var += (row[j] - mean) * (row[j] - mean);
  var /= static_cast<double>(d);
  const double inv = 1.0 / std::sqrt(var + epsilon);
  for (std::size_t j = 0; j < d; ++j)
    out[j] = static_cast<float>(static_cast<double>(gamma[j]) * ((row[j] - mean) * inv) + beta[j]);
}

// m += bias on every row, then max(0, ·) when relu (a NaN stays NaN, so it is reported, not hidden).
void add_bias(MatrixView m, const float* bias, bool relu) {
  for (std::size_t i = 0; i < m.rows; ++i) {
    float* r = m.row(i);
    for (std::size_t j = 0; j < m.cols; ++j) {
      const float v = r[j] + bias[j];
      r[j] = relu && v < 0.0f ? 0.0f : v;
    }
  }
}

}  // namespace

Status add_and_norm(ConstMatrixView x, ConstMatrixView y, const float* gamma, const float* beta, float epsilon,
                    MatrixView sum, MatrixView out) {
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon)) return Status::bad_argument;
  if (!same_shape(x, y) || !same_shape(x, sum) || !same_shape(x, out)) return Status::shape_mismatch;
  for (std::size_t i = 0; i < x.rows; ++i) {
    float* s = sum.row(i);
    for (std::size_t j = 0; j < x.cols; ++j) s[j] = x.at(i, j) + y.at(i, j);
    if (x.cols > 0) normalise_row(s, x.cols, gamma, beta, epsilon, out.row(i));
  }
  return Status::ok;
}

Status feed_forward(ConstMatrixView x, ConstMatrixView w1, const float* b1, ConstMatrixView w2, const float* b2,
                    MatrixView hidden, MatrixView out) {
  if (w1.rows != x.cols || w2.rows != w1.cols) return Status::shape_mismatch;
  if (hidden.rows != x.rows || hidden.cols != w1.cols || out.rows != x.rows || out.cols != w2.cols)
    return Status::shape_mismatch;
  if (x.rows == 0) return Status::ok;
  matmul(x, w1, hidden);
  add_bias(hidden, b1, true);
  matmul(hidden, w2, out);
  add_bias(out, b2, false);
  return Status::ok;
}

Status transformer_encoder_block(ConstMatrixView x, const TransformerWeights& w, const Mask& mask,
                                 const TransformerBuffers& b) {
  // The residual connections need every sublayer to keep the width d_model.
  if (w.w_o.cols != x.cols || w.w2.cols != x.cols) return Status::shape_mismatch;
  if (!(w.epsilon > 0.0f) || !std::isfinite(w.epsilon)) return Status::bad_argument;
  if (Status s = multi_head_attention(x, w.heads, w.w_q, w.w_k, w.w_v, w.w_o, mask, b.attention); s != Status::ok)
    return s;
  if (Status s = add_and_norm(x, b.attention.out, w.gamma1, w.beta1, w.epsilon, b.sum1, b.norm1); s != Status::ok)
    return s;
  if (Status s = feed_forward(b.norm1, w.w1, w.b1, w.w2, w.b2, b.hidden, b.ffn); s != Status::ok) return s;
  return add_and_norm(b.norm1, b.ffn, w.gamma2, w.beta2, w.epsilon, b.sum2, b.out);
}

}  // namespace attn
