// The position-wise feed-forward network: FFN(x) = act(x W₁ + b₁) W₂ + b₂,
// the same two layers applied to every position (row), with ReLU or GELU
// (the tanh approximation, as GPT-2 and BERT use it).
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

enum class Activation : int { relu = 0, gelu = 1 };

// pre, post: n×h (post may alias pre only in the forward).
void activation_forward(Activation act, ConstMatrixView pre, MatrixView post);
// d_pre = d_post ∘ act'(pre); d_pre may alias d_post.
void activation_backward(Activation act, ConstMatrixView pre, ConstMatrixView d_post, MatrixView d_pre);

struct FeedForwardWeights {
  ConstMatrixView w1;         // d×h
  const float* b1 = nullptr;  // h
  ConstMatrixView w2;         // h×d_out
  const float* b2 = nullptr;  // d_out
};

struct FeedForwardGradients {  // accumulated
  MatrixView dw1;
  float* db1 = nullptr;
  MatrixView dw2;
  float* db2 = nullptr;
};

// Saved activations: hidden_pre = x W₁ + b₁, hidden = act(hidden_pre), both n×h.
struct FeedForwardActivations {
  MatrixView hidden_pre;
  MatrixView hidden;
};

// pack (both): nullptr, or scratch for either layer's weights, linear_pack_floats (linear.h) of W₁ and of W₂.
// x: n×d, y: n×d_out.
Status feed_forward_forward(ConstMatrixView x, const FeedForwardWeights& weights, Activation act,
                            const FeedForwardActivations& saved, MatrixView y, float* pack = nullptr);

// dy: n×d_out; dx: n×d, overwritten (data == nullptr: not computed);
// d_hidden: n×h scratch.
Status feed_forward_backward(ConstMatrixView x, const FeedForwardWeights& weights, Activation act,
                             const FeedForwardActivations& saved, ConstMatrixView dy, MatrixView dx,
                             const FeedForwardGradients& grads, MatrixView d_hidden, float* pack = nullptr);

}  // namespace attn
