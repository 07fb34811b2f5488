// The backward pass of scaled dot-product attention, O = P V with
// P = softmax(mask(S)), S = Q Kᵀ · scale, given the forward's weights P:
//   dV = Pᵀ dO                       (m×d_v)
//   dP = dO Vᵀ                       (n×m)
//   dS = P ∘ (dP − rowsum(P ∘ dP))   (n×m, softmax_backward)
//   dQ = dS K · scale                (n×d)
//   dK = dSᵀ Q · scale               (m×d)
// and the same for additive attention, whose scores are
// s_ij = w_vᵀ tanh(W_q q_i + W_k k_j).
// Every gradient is overwritten (never accumulated). The n×m buffers dp and ds
// are the caller's: they are the backward trace's steps.
#pragma once

#include "attention.h"
#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace attn {

struct AttentionGradients {
  MatrixView dq;  // n×d
  MatrixView dk;  // m×d
  MatrixView dv;  // m×d_v
};

// The intermediate n×m matrices of the backward pass (both required).
struct AttentionBackwardBuffers {
  MatrixView dp;  // dO Vᵀ
  MatrixView ds;  // P ∘ (dP − rowsum(P ∘ dP))
};

// q: n×d, k: m×d, v: m×d_v, weights: the forward's P (n×m), d_out: n×d_v.
Status attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView weights,
                          ConstMatrixView d_out, float scale, const AttentionGradients& grads,
                          const AttentionBackwardBuffers& buffers);

struct AdditiveGradients {
  MatrixView dq;                // n×d_q
  MatrixView dk;                // m×d_k
  MatrixView dv;                // m×d_v
  MatrixView dw_q;              // d_q×h, overwritten
  MatrixView dw_k;              // d_k×h, overwritten
  float* dw_v = nullptr;        // h, overwritten
};

// params as for additive_attention (its q_hidden/k_hidden scratch is
// recomputed here); weights: the forward's P. scratch: additive_backward_scratch_floats(n, m, h).
std::size_t additive_backward_scratch_floats(std::size_t n, std::size_t m, std::size_t h);
Status additive_attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                                   const AdditiveParams& params, ConstMatrixView weights, ConstMatrixView d_out,
                                   const AdditiveGradients& grads, const AttentionBackwardBuffers& buffers,
                                   float* scratch);

}  // namespace attn
