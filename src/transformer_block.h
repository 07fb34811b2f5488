// The Transformer encoder block (Vaswani et al., 2017; Dive into Deep
// Learning 10.7), in its original post-norm form, built from the multi-head
// attention of multi_head.h and two small pieces defined here:
//   A = MultiHead(X)                        n × d_model   (W_O maps back to d_model)
//   Y = AddNorm(X, A) = LayerNorm(X + A)    residual connection, then layer norm
//   H = ReLU(Y W_1 + b_1)                   n × d_ff      position-wise feed-forward:
//   F = H W_2 + b_2                         n × d_model   the same MLP on every row
//   Z = AddNorm(Y, F)
// LayerNorm normalises each row over its d_model features:
//   LayerNorm(r) = γ ⊙ (r − mean(r)) / √(var(r) + ε) + β
// (biased variance, as in the paper and in PyTorch's nn.LayerNorm).
#pragma once

#include <cstddef>

#include "mask.h"
#include "matrix.h"
#include "multi_head.h"
#include "status.h"

namespace attn {

// sum = x + y (kept for the trace), out = LayerNorm(sum) with γ, β of x.cols
// entries; out may be sum. Rows are normalised in double. epsilon > 0 and
// finite, else bad_argument.
Status add_and_norm(ConstMatrixView x, ConstMatrixView y, const float* gamma, const float* beta, float epsilon,
                    MatrixView sum, MatrixView out);

// hidden = ReLU(x W_1 + b_1) (n × d_ff), out = hidden W_2 + b_2 (n × W_2.cols).
Status feed_forward(ConstMatrixView x, ConstMatrixView w1, const float* b1, ConstMatrixView w2, const float* b2,
                    MatrixView hidden, MatrixView out);

struct TransformerWeights {
  std::size_t heads = 0;
  ConstMatrixView w_q, w_k, w_v, w_o;  // as in multi_head_attention; W_O: h·d_v × d_model
  ConstMatrixView w1, w2;              // d_model × d_ff, d_ff × d_model
  const float* b1 = nullptr;           // d_ff
  const float* b2 = nullptr;           // d_model
  const float* gamma1 = nullptr;       // d_model each: the two layer norms' scale and shift
  const float* beta1 = nullptr;
  const float* gamma2 = nullptr;
  const float* beta2 = nullptr;
  float epsilon = 1e-5f;
};

struct TransformerBuffers {
  MultiHeadBuffers attention;  // its `out` is A (n × d_model)
  MatrixView sum1, norm1;      // X + A, Y
  MatrixView hidden, ffn;      // H, F
  MatrixView sum2, out;        // Y + F, Z
};

Status transformer_encoder_block(ConstMatrixView x, const TransformerWeights& w, const Mask& mask,
                                 const TransformerBuffers& b);

}  // namespace attn
