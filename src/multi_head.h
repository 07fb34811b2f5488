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

namespace attn {

// A multi-head layer whose weights are packed once and reused by every
// forward pass (the fast path: no per-head weights are formed).
//   [W_Q | W_K | W_V] packed as one d_model × (2·h·d_k + h·d_v) matrix, and W_O.
struct MultiHeadLayer {
  std::size_t d_model = 0, heads = 0, d_k = 0, d_v = 0, d_out = 0;
  float* qkv_packed = nullptr;  // multi_head_layer_floats(…) floats in all, W_O packed after it
  float* o_packed = nullptr;
};

// Widths of the fused projection: Q, K and V side by side.
inline std::size_t qkv_width(const MultiHeadLayer& l) { return l.heads * (2 * l.d_k + l.d_v); }

// Floats needed to hold the packed weights of a layer.
std::size_t multi_head_layer_floats(std::size_t d_model, std::size_t heads, std::size_t d_k, std::size_t d_v,
                                    std::size_t d_out);

// Packs W_Q, W_K (d_model × h·d_k), W_V (d_model × h·d_v) and W_O (h·d_v × d_out)
// into `storage` and describes the layer.
Status pack_multi_head(ConstMatrixView w_q, ConstMatrixView w_k, ConstMatrixView w_v, ConstMatrixView w_o,
                       std::size_t heads, float* storage, MultiHeadLayer& layer);

// Scratch floats for a forward pass over n tokens.
std::size_t multi_head_forward_floats(const MultiHeadLayer& layer, std::size_t n);

// output (n × d_out) = concat(heads) · W_O; concat (n × h·d_v) is written too.
Status multi_head_forward(const MultiHeadLayer& layer, ConstMatrixView x, const Mask& mask, MatrixView concat,
                          MatrixView out, float* scratch);

}  // namespace attn
