#include "train/feed_forward.h"

#include <cmath>

#include "simd.h"
#include "train/linear.h"

namespace attn {
namespace {

// GELU, tanh form: 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³).
constexpr float kGeluScale = 0.7978845608028654f;  // √(2/π)
constexpr float kGeluCubic = 0.044715f;

inline float gelu(float x) {
  const float u = kGeluScale * (x + kGeluCubic * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(u));
}

// d/dx: 0.5·(1 + t) + 0.5·x·(1 − t²)·√(2/π)·(1 + 3·0.044715·x²), t = tanh(u).
inline float gelu_derivative(float x) {
  const float u = kGeluScale * (x + kGeluCubic * x * x * x);
  const float t = std::tanh(u);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kGeluScale * (1.0f + 3.0f * kGeluCubic * x * x);
}

bool same_shape(ConstMatrixView a, ConstMatrixView b) { return a.rows == b.rows && a.cols == b.cols; }

}  // namespace

void activation_forward(Activation act, ConstMatrixView pre, MatrixView post) {
  if (!same_shape(pre, post)) return;  // the callers below check shapes and report them
  for (std::size_t i = 0; i < pre.rows; ++i) {
    const float* in = pre.row(i);
    float* out = post.row(i);
    if (act == Activation::relu) {
      const simd::f32x4 zero = simd::zero();
      std::size_t j = 0;
      for (; j + 4 <= pre.cols; j += 4) simd::store(out + j, simd::max(simd::load(in + j), zero));
      for (; j < pre.cols; ++j) out[j] = in[j] > 0.0f ? in[j] : 0.0f;
    } else {
      for (std::size_t j = 0; j < pre.cols; ++j) out[j] = gelu(in[j]);
    }
  }
}

void activation_backward(Activation act, ConstMatrixView pre, ConstMatrixView d_post, MatrixView d_pre) {
  if (!same_shape(pre, d_post) || !same_shape(pre, d_pre)) return;
  for (std::size_t i = 0; i < pre.rows; ++i) {
    const float* in = pre.row(i);
    const float* g = d_post.row(i);
    float* out = d_pre.row(i);
    if (act == Activation::relu) {
      // ReLU'(0) = 0: a unit exactly at the kink passes no gradient.
      const simd::f32x4 zero = simd::zero();
      std::size_t j = 0;
      for (; j + 4 <= pre.cols; j += 4)
        simd::store(out + j, simd::keep_where_greater(simd::load(in + j), zero, simd::load(g + j)));
      for (; j < pre.cols; ++j) out[j] = in[j] > 0.0f ? g[j] : 0.0f;
    } else {
      for (std::size_t j = 0; j < pre.cols; ++j) out[j] = g[j] * gelu_derivative(in[j]);
    }
  }
}

namespace {

// x: n×d, W₁: d×h, W₂: h×d_out, both saved activations n×h.
Status check_shapes(ConstMatrixView x, const FeedForwardWeights& weights, Activation act,
                    const FeedForwardActivations& saved) {
  if (act != Activation::relu && act != Activation::gelu) return Status::bad_argument;
  const std::size_t n = x.rows, h = weights.w1.cols;
  if (weights.w1.rows != x.cols || weights.w2.rows != h) return Status::shape_mismatch;
  if (saved.hidden_pre.rows != n || saved.hidden_pre.cols != h || saved.hidden.rows != n || saved.hidden.cols != h)
    return Status::shape_mismatch;
  if (n > 0 && h > 0 && (saved.hidden_pre.data == nullptr || saved.hidden.data == nullptr))
    return Status::bad_argument;
  return Status::ok;
}

}  // namespace

Status feed_forward_forward(ConstMatrixView x, const FeedForwardWeights& weights, Activation act,
                            const FeedForwardActivations& saved, MatrixView y, float* pack) {
  if (Status s = check_shapes(x, weights, act, saved); s != Status::ok) return s;
  if (y.rows != x.rows || y.cols != weights.w2.cols) return Status::shape_mismatch;
  // 1. hidden_pre = x W₁ + b₁.
  if (Status s = linear_forward(x, weights.w1, weights.b1, saved.hidden_pre, pack); s != Status::ok) return s;
  // 2. hidden = act(hidden_pre).
  activation_forward(act, saved.hidden_pre, saved.hidden);
  // 3. y = hidden W₂ + b₂.
  return linear_forward(saved.hidden, weights.w2, weights.b2, y, pack);
}

Status feed_forward_backward(ConstMatrixView x, const FeedForwardWeights& weights, Activation act,
                             const FeedForwardActivations& saved, ConstMatrixView dy, MatrixView dx,
                             const FeedForwardGradients& grads, MatrixView d_hidden, float* pack) {
  if (Status s = check_shapes(x, weights, act, saved); s != Status::ok) return s;
  const std::size_t n = x.rows, h = weights.w1.cols;
  if (dy.rows != n || dy.cols != weights.w2.cols) return Status::shape_mismatch;
  if (d_hidden.rows != n || d_hidden.cols != h) return Status::shape_mismatch;
  if (n > 0 && h > 0 && d_hidden.data == nullptr) return Status::bad_argument;
  if (dx.data != nullptr && (dx.rows != n || dx.cols != x.cols)) return Status::shape_mismatch;
  if (grads.dw1.data != nullptr && (grads.dw1.rows != x.cols || grads.dw1.cols != h)) return Status::shape_mismatch;
  if (grads.dw2.data != nullptr && (grads.dw2.rows != h || grads.dw2.cols != dy.cols)) return Status::shape_mismatch;
  // 1. Second layer: d_hidden = dy W₂ᵀ, dW₂ += hiddenᵀ dy, db₂ += Σ dy.
  if (Status s = linear_backward(saved.hidden, weights.w2, dy, d_hidden, grads.dw2, grads.db2, pack); s != Status::ok)
    return s;
  // 2. Through the activation, in place: d_pre = d_hidden ∘ act'(hidden_pre).
  activation_backward(act, saved.hidden_pre, d_hidden, d_hidden);
  // 3. First layer: dx = d_pre W₁ᵀ, dW₁ += xᵀ d_pre, db₁ += Σ d_pre.
  return linear_backward(x, weights.w1, d_hidden, dx, grads.dw1, grads.db1, pack);
}

}  // namespace attn
