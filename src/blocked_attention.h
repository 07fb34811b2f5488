// Scaled dot-product attention with the n×m weights returned, the untraced
// path (scaledDotProductAttention as users call it): the results of
// scaled_dot_product_attention up to rounding in the scores, in fewer passes
// over memory. Four query rows at a time:
//   1. their scores against every key any of them sees, from a packed copy of
//      Kᵀ (8-key panels: no horizontal sums), scaled as they are stored;
//   2. softmax of each row in place (max, exp and sum in one pass, normalise),
//      the row still in cache;
//   3. output = weights · V for the four rows, 64 keys at a time so that those
//      rows of V stay in L1 for every column tile.
// Causal and valid-length rows skip the key tiles no row of the block sees in
// both products. A matrix mask goes to scaled_dot_product_attention.
// Shapes: Q n×d, K m×d, V m×d_v, weights n×m, output n×d_v.
#pragma once

#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace attn {

// Floats of scratch blocked_attention needs for m keys of width d (the packed Kᵀ).
std::size_t blocked_attention_scratch_floats(std::size_t m, std::size_t d);

Status blocked_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask, float scale,
                         MatrixView weights, MatrixView out, float* scratch);

}  // namespace attn
