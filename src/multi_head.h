// Multi-head attention: h heads, each attending in its own subspace.
//   Q, K, V = X W_Q, X W_K, X W_V               (n × h·d_k, n × h·d_k, n × h·d_v)
//   head_i  = attention(Q_i, K_i, V_i)          Q_i: columns [i·d_k, (i+1)·d_k) of Q
//   concat  = [head_1 … head_h]                 (n × h·d_v)
//   output  = concat · W_O                      (n × d_out)
// The heads split the projected widths: d_k = W_Q.cols / h, d_v = W_V.cols / h.
#pragma once

#include "attention.h"

namespace attn {

struct MultiHeadBuffers {
  Projections qkv;        // n × h·d_k, n × h·d_k, n × h·d_v
  float* weights;         // heads × n × n, head-major
  MatrixView concat;      // n × h·d_v; head i's output is its column block i
  MatrixView out;         // n × d_out
  AttentionTrace trace;   // each pointer heads × n × n, or null
};

Status multi_head_attention(ConstMatrixView x, std::size_t heads, ConstMatrixView w_q, ConstMatrixView w_k,
                            ConstMatrixView w_v, ConstMatrixView w_o, const Mask& mask,
                            const MultiHeadBuffers& buffers);

}  // namespace attn
