// Fused attention with a backward pass, FlashAttention-2 style: the forward
// keeps, besides O, each query row's log-sum-exp of its scaled, masked scores
//   lse_i = max_j s_ij + log Σ_j e^(s_ij − max_j s_ij)
// and the backward recomputes P block by block as e^(s_ij − lse_i), so neither
// pass forms an n×m matrix:
//   D_i = rowsum(dO ∘ O)_i,  dS_ij = P_ij (dP_ij − D_i),  dP_ij = dO_i · v_j
//   dV += Pᵀ dO,  dQ += dS K · scale,  dK += dSᵀ Q · scale.
// A fully masked row has lse = −∞, an all-zero output and zero gradients.
#pragma once

#include <cstddef>

#include "mask.h"
#include "matrix.h"
#include "status.h"
#include "train/attention_backward.h"

namespace attn {

// Q: n×d, K: m×d, V: m×d_v, out: n×d_v, row_lse: n floats (written).
// scratch: fused_forward_scratch_floats(m, d, d_v) floats.
std::size_t fused_forward_scratch_floats(std::size_t m, std::size_t d, std::size_t d_v);
Status fused_attention_forward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask,
                               float scale, MatrixView out, float* row_lse, float* scratch);

// out and row_lse from fused_attention_forward on the same inputs; grads overwritten.
// scratch: fused_backward_scratch_floats(n, m, d, d_v) floats (no n×m term).
std::size_t fused_backward_scratch_floats(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v);
Status fused_attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView out,
                                ConstMatrixView d_out, const float* row_lse, const Mask& mask, float scale,
                                const AttentionGradients& grads, float* scratch);

}  // namespace attn
