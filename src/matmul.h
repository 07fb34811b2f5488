// Matrix products, the workhorse of every attention form.
#pragma once

#include "matrix.h"

namespace attn {

// C = A · B.          A: n×k, B: k×m, C: n×m.
void matmul(ConstMatrixView a, ConstMatrixView b, MatrixView c);

// C = alpha · A · Bᵀ. A: n×k, B: m×k, C: n×m. Bᵀ is never formed: each entry
// is a dot product of a row of A with a row of B (QKᵀ is this with A = Q, B = K).
void matmul_transposed(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c);

}  // namespace attn
