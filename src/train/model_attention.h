// The model's multi-head attention over a batch of sequences, forward and
// backward. Rows of X are batch-major (sequence b's rows are b·n … b·n + n − 1):
//   Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V          (B·n × d, B·m × d, B·m × d)
//   head h of sequence b: O_bh = attention(Q_bh, K_bh, V_bh) under the mask
//       Q_bh = rows of b, columns [h·d_k, (h+1)·d_k) of Q (a strided view, no copy)
//   concat = [O_b1 … O_bH] (B·n × d),  out = concat W_O
// attention is scaled dot-product (scale given) or additive with per-head
// score weights. Self-attention passes X_q = X_kv (n = m).
// The backward runs the same steps in reverse:
//   d_concat = d_out W_Oᵀ, dW_O += concatᵀ d_out;  per (b, h) the attention
//   backward gives dQ_bh, dK_bh, dV_bh;  dW_Q += X_qᵀ dQ, dX_q = dQ W_Qᵀ, and the
//   same for K and V into dX_kv.
#pragma once

#include <cstddef>
#include <cstdint>

#include "matrix.h"
#include "status.h"

namespace attn {

struct HeadShape {
  std::size_t batch = 0, n = 0, m = 0;  // sequences, query rows and key rows per sequence
  std::size_t heads = 0, d_model = 0;
  float scale = 1.0f;                   // dot-product only
  bool additive = false;
};

struct AttentionParams {  // d×d projections; additive: score_q, score_k heads·d_k × d_k, score_v heads × d_k
  ConstMatrixView w_q, w_k, w_v, w_o;
  const float* score_q = nullptr;
  const float* score_k = nullptr;
  const float* score_v = nullptr;
};

struct AttentionParamGrads {  // accumulated
  MatrixView dw_q, dw_k, dw_v, dw_o;
  float* dscore_q = nullptr;
  float* dscore_k = nullptr;
  float* dscore_v = nullptr;
};

// What the forward keeps for the backward.
struct AttentionSaved {
  MatrixView q, k, v, concat;  // B·n × d, B·m × d, B·m × d, B·n × d
  float* weights = nullptr;    // batch × heads × n × m
};

// Scratch floats of one forward / backward call (beside the buffers below), the
// projections' packed weights included.
std::size_t attention_forward_scratch_floats(const HeadShape& shape);
std::size_t attention_backward_scratch_floats(const HeadShape& shape);

// bits: batch × n × m mask bytes (non-zero: visible). out: B·n × d.
Status model_attention_forward(ConstMatrixView x_q, ConstMatrixView x_kv, const AttentionParams& params,
                               const HeadShape& shape, const std::uint8_t* bits, const AttentionSaved& saved,
                               float* scratch, MatrixView out);

struct AttentionLayerBuffers {
  MatrixView d_concat, dq, dk, dv;  // B·n × d, B·m × d, B·m × d (dq B·n × d)
  MatrixView tmp;                   // max(B·n, B·m) × d
};

// dx_q (B·n × d) overwritten; dx_kv (B·m × d) accumulated, and may be dx_q
// itself for self-attention (then it ends as the sum of the three paths).
Status model_attention_backward(ConstMatrixView x_q, ConstMatrixView x_kv, const AttentionParams& params,
                                const HeadShape& shape, const AttentionSaved& saved, ConstMatrixView d_out,
                                MatrixView dx_q, MatrixView dx_kv, const AttentionParamGrads& grads,
                                const AttentionLayerBuffers& buffers, float* scratch);

}  // namespace attn
