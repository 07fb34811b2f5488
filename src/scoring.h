// Attention scoring functions a(q, k): how well each query matches each key.
// Scoring is kept apart from normalisation (softmax) and pooling (weights · V),
// as the course teaches: swap the scoring function, keep the rest.
#pragma once

#include "matrix.h"

namespace attn {

// Dot-product scores S = scale · Q Kᵀ.  Q: n×d, K: m×d, S: n×m.
// scale = 1/√d gives scaled dot-product attention; scale = 1 the plain form.
void dot_product_scores(ConstMatrixView q, ConstMatrixView k, float scale, MatrixView s);

// Additive (Bahdanau) scores S[i][j] = w_vᵀ tanh(W_qᵀ q_i + W_kᵀ k_j), a
// one-hidden-layer MLP on the pair.  Q: n×d_q, K: m×d_k, W_q: d_q×h,
// W_k: d_k×h, w_v: h values, S: n×m. Query and key widths may differ.
// Scratch: q_hidden (n×h) and k_hidden (m×h) receive Q·W_q and K·W_k.
void additive_scores(ConstMatrixView q, ConstMatrixView k, ConstMatrixView w_q, ConstMatrixView w_k,
                     const float* w_v, MatrixView q_hidden, MatrixView k_hidden, MatrixView s);

}  // namespace attn
