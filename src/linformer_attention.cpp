#include "linformer_attention.h"

#include "matmul.h"
#include "softmax.h"

namespace attn {

Status linformer_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView e,
                           ConstMatrixView f, float scale, MatrixView out, float* scratch, float* weights) {
  const std::size_t n = q.rows, m = k.rows, p = e.rows, d = q.cols, d_v = v.cols;
  if (k.cols != d || v.rows != m || out.rows != n || out.cols != d_v) return Status::shape_mismatch;
  if (e.cols != m || f.rows != p || f.cols != m) return Status::shape_mismatch;
  if (p == 0 || scratch == nullptr) return Status::bad_argument;
  const MatrixView k_proj = dense(scratch, p, d);
  const MatrixView v_proj = dense(scratch + p * d, p, d_v);
  float* score_row = scratch + p * (d + d_v);
  // 1. project: K' = E K, V' = F V
  matmul(e, k, k_proj);
  matmul(f, v, v_proj);
  if (weights) {
    // 2-4 traced: all n×p scores at once in the weights buffer
    const MatrixView w = dense(weights, n, p);
    matmul_transposed(q, k_proj, scale, w);
    softmax_rows(w, Mask{}, w);
    matmul(w, v_proj, out);
    return Status::ok;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const ConstMatrixView q_i{q.row(i), 1, d, q.stride};
    const MatrixView s = dense(score_row, 1, p);
    const MatrixView out_i{out.row(i), 1, d_v, out.stride};
    // 2. scores scale · q_i K'ᵀ, 3. softmax over the p projected keys, 4. pool
    matmul_transposed(q_i, k_proj, scale, s);
    softmax_rows(s, Mask{}, s);
    matmul(s, v_proj, out_i);
  }
  return Status::ok;
}

}  // namespace attn
