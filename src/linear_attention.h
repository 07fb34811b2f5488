// Linear attention (Katharopoulos et al., 2020, "Transformers are RNNs"):
// replace exp(q·k) by a kernel φ(q)·φ(k) with a positive feature map, here
// φ(x) = elu(x) + 1 (x + 1 for x > 0, eˣ otherwise, applied elementwise), so
// the sums over keys can be taken once and shared by every query:
//   S = Σ_j φ(k_j) v_jᵀ   (d×d_v),   z = Σ_j φ(k_j)   (d)
//   out_i = φ(q_i)ᵀ S / (φ(q_i)ᵀ z)
// Causal: S and z are prefix sums over j <= i, updated before query i reads
// them (an RNN whose state is S, z). Cost O(n·d·d_v) time, O(d·d_v) memory.
// The implied weights are a_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'): no
// softmax and no scale factor.
// Shapes: Q n×d, K m×d, V m×d_v, output n×d_v; causal needs m = n.
#pragma once

#include <cstddef>

#include "matrix.h"
#include "status.h"

namespace attn {

// Floats of scratch linear_attention needs: S (d×d_v), z (d) and the numerator
// φ(q_i)ᵀS (d_v) in double (two floats each, one more float to align them),
// and two feature rows φ(q_i), φ(k_j) (d floats each). 0 when d = 0.
constexpr std::size_t linear_attention_scratch_size(std::size_t d, std::size_t d_v) {
  return d == 0 ? 0 : 2 * (d * d_v + d + d_v) + 1 + 2 * d;
}

// scratch: linear_attention_scratch_size(d, d_v) floats, contents ignored
// (may be null only when that size is 0). weights: null, or a dense row-major
// n×m buffer (the traced, small case; costs O(n·m·d) more); causal entries
// j > i are exactly 0. A query whose denominator φ(q_i)ᵀz is 0 (no keys: m = 0,
// or every feature underflowed) gets an all-zero output and weights row.
// Returns shape_mismatch if K's width is not Q's, K and V differ in rows,
// out is not n×d_v, or causal with m != n; bad_argument if scratch is null
// but needed.
Status linear_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, bool causal, MatrixView out,
                        float* scratch, float* weights /* n×m or null */);

}  // namespace attn
