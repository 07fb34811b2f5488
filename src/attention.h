// Attention pooling: scores, mask, softmax, weighted sum of values.
//   scaled dot-product:  softmax(Q Kᵀ · scale) V, scale = 1/√d_k by default
//   additive:            softmax(w_vᵀ tanh(W_q q + W_k k)) V
//   self-attention:      Q, K, V = X W_Q, X W_K, X W_V, then scaled dot-product
// Shapes: Q n×d, K m×d, V m×d_v, weights n×m, output n×d_v. n may differ from
// m (cross-attention). Every function checks its shapes and returns a Status.
#pragma once

#include "mask.h"
#include "matrix.h"
#include "status.h"
#include "trace.h"

namespace attn {

// 1/√d_k, computed in double and rounded once; 1 when d_k is 0.
float default_scale(std::size_t d_k);

Status scaled_dot_product_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask,
                                    float scale, MatrixView weights, MatrixView out,
                                    const AttentionTrace* trace = nullptr);

struct AdditiveParams {
  ConstMatrixView w_q;          // d_q × h
  ConstMatrixView w_k;          // d_k × h
  const float* w_v = nullptr;   // h
  MatrixView q_hidden;          // scratch, n × h
  MatrixView k_hidden;          // scratch, m × h
};

Status additive_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const AdditiveParams& params,
                          const Mask& mask, MatrixView weights, MatrixView out,
                          const AttentionTrace* trace = nullptr);

// Projections written by self-attention (and multi-head): the Q, K, V steps.
struct Projections {
  MatrixView q;  // n × d_k
  MatrixView k;  // n × d_k
  MatrixView v;  // n × d_v
};

// X: n×d_model, W_Q and W_K: d_model×d_k, W_V: d_model×d_v. Scale 1/√d_k.
Status self_attention(ConstMatrixView x, ConstMatrixView w_q, ConstMatrixView w_k, ConstMatrixView w_v,
                      const Mask& mask, const Projections& qkv, MatrixView weights, MatrixView out,
                      const AttentionTrace* trace = nullptr);

}  // namespace attn
