// Matrix products, the workhorse of every attention form.
#pragma once

#include "matrix.h"

namespace attn {

// C = A · B.          A: n×k, B: k×m, C: n×m.
void matmul(ConstMatrixView a, ConstMatrixView b, MatrixView c);

// C = alpha · A · Bᵀ. A: n×k, B: m×k, C: n×m (QKᵀ is this with A = Q, B = K).
// A small B (k·m up to 4096) is packed transposed on the stack for the packed
// product; otherwise Bᵀ is never formed: each entry is a dot product of a row
// of A with a row of B.
void matmul_transposed(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c);

// Packed right-hand sides, for a B used many times (a layer's weights): B is
// stored as panels of 8 columns, each panel k rows × 8 contiguous floats, so
// the product streams it sequentially. Columns past m are zero padding.
constexpr std::size_t kPackedPanel = 8;
std::size_t packed_floats(std::size_t k, std::size_t m);
void pack_columns(ConstMatrixView b, float* packed);

// C = A · B with B given packed (k = A.cols, m = C.cols).
void matmul_packed(ConstMatrixView a, const float* packed_b, MatrixView c);

// Packs Bᵀ for B: m×k (packed_floats(k, m) floats), so that matmul_packed
// gives C = A · Bᵀ: a layer's dx = dy Wᵀ, or scores Q Kᵀ, without the
// horizontal sums of matmul_transposed's dot products.
void pack_transposed(ConstMatrixView b, float* packed);

// C = alpha · Aᵀ B (overwritten) and C += Aᵀ B. A: n×k, B: n×m, C: k×m: the
// products with a transposed left operand (dV = Pᵀ dO, dK = dSᵀ Q, a weight
// gradient xᵀ dy). Each entry is summed from zero over the rows of A and B in
// order, then scaled or added to C once, so a second identical accumulation
// adds exactly the same amount.
void matmul_transposed_a(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c);
void matmul_transposed_a_accumulate(ConstMatrixView a, ConstMatrixView b, MatrixView c);

}  // namespace attn
