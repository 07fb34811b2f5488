// The backward pass of a row softmax. With P = softmax(S) row by row and the
// upstream gradient dP = ∂L/∂P, the gradient of the scores is
//   dS = P ∘ (dP − rowsum(P ∘ dP))
// (∘ is the elementwise product; rowsum is broadcast along the row). A masked
// score has P = 0 and so dS = 0: every mask kind is handled by the forward's
// weights alone, and a fully masked row gets an all-zero dS.
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

// p, dp, ds: n×m (ds may alias dp). Shapes must agree, else shape_mismatch.
Status softmax_backward(ConstMatrixView p, ConstMatrixView dp, MatrixView ds);

}  // namespace attn
