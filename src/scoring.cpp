#include "scoring.h"

#include <cmath>

#include "matmul.h"

namespace attn {

void dot_product_scores(ConstMatrixView q, ConstMatrixView k, float scale, MatrixView s) {
  matmul_transposed(q, k, scale, s);
}

void additive_scores(ConstMatrixView q, ConstMatrixView k, ConstMatrixView w_q, ConstMatrixView w_k,
                     const float* w_v, MatrixView q_hidden, MatrixView k_hidden, MatrixView s) {
  // 1. project queries and keys into the shared hidden space of width h
  matmul(q, w_q, q_hidden);
  matmul(k, w_k, k_hidden);
  // 2. score every pair: w_v · tanh(q_hidden_i + k_hidden_j), summed in double
  const std::size_t h = q_hidden.cols;
  for (std::size_t i = 0; i < s.rows; ++i) {
    const float* qh = q_hidden.row(i);
    for (std::size_t j = 0; j < s.cols; ++j) {
      const float* kh = k_hidden.row(j);
      double sum = 0.0;
      for (std::size_t t = 0; t < h; ++t) sum += static_cast<double>(w_v[t]) * std::tanh(qh[t] + kh[t]);
      s.at(i, j) = static_cast<float>(sum);
    }
  }
}

}  // namespace attn
