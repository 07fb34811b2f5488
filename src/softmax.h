// Row-wise masked softmax: each row of the result is a probability
// distribution over the visible keys (weights >= 0, summing to 1).
#pragma once

#include "mask.h"
#include "matrix.h"

namespace attn {

// W[i, :] = softmax over the visible entries of S[i, :]; masked entries of W
// are exactly 0; a row with no visible entry is all zeros; a row with a
// visible NaN or infinity (an overflow upstream) is all NaN. W may alias S.
// Numerically stable: the row max is subtracted before exp (so every
// exponential is <= 1 and the sum is >= 1); exp is the SIMD layer's.
void softmax_rows(ConstMatrixView s, const Mask& mask, MatrixView w);

// The "masked" trace step: S with every masked entry replaced by -FLT_MAX,
// float32's most negative finite value, standing in for -infinity (so traces
// never hold an infinity). out may alias s.
void apply_mask_for_trace(ConstMatrixView s, const Mask& mask, MatrixView out);

}  // namespace attn
