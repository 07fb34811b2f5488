// Linformer attention (Wang et al., 2020): project the m keys and values down
// to p rows with given matrices E and F (p×m; "k" in the paper), then do
// scaled dot-product attention against the p projected rows:
//   K' = E K   (p×d),   V' = F V   (p×d_v)
//   out = softmax(scale · Q K'ᵀ) V'
// Cost O(m·p·(d + d_v)) for the projections and O(n·p·(d + d_v)) for the
// attention: linear in the sequence length for a fixed p. No n×m buffer.
// With p = m and E = F = identity it is exactly full attention.
// Shapes: Q n×d, K m×d, V m×d_v, E p×m, F p×m, output n×d_v.
#pragma once

#include <cstddef>

#include "matrix.h"
#include "status.h"

namespace attn {

// Floats of scratch linformer_attention needs: K' (p×d), V' (p×d_v) and one
// row of scores (p).
constexpr std::size_t linformer_attention_scratch_size(std::size_t p, std::size_t d, std::size_t d_v) {
  return p * (d + d_v + 1);
}

// scale: 1/√d is the usual choice (default_scale(d) in attention.h).
// scratch: linformer_attention_scratch_size(p, d, d_v) floats, contents
// ignored. weights: null, or a dense row-major n×p buffer (softmax over the p
// projected keys; rows sum to 1).
// Returns shape_mismatch if K's width is not Q's, K and V differ in rows,
// E or F is not p×m (or they differ), or out is not n×d_v; bad_argument if
// p is 0 or scratch is null.
Status linformer_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView e,
                           ConstMatrixView f, float scale, MatrixView out, float* scratch,
                           float* weights /* n×p or null */);

}  // namespace attn
