// The online softmax of the fused path, written out for one query row so that
// every intermediate can be shown: the keys are visited in blocks of `block`,
// and after each block the running max m, the running sum ℓ, the factor that
// rescaled what was accumulated and the accumulated output are recorded.
//   block b covers keys [b·block, min((b + 1)·block, m)):
//     s_j   = scale · q_row · k_j                 (masked keys: −∞)
//     m_b   = max(m_(b−1), max_j s_j)             (m_(−1) = −∞)
//     α_b   = e^(m_(b−1) − m_b)                   (1 when the max did not move,
//                                                  0 on the first visible block)
//     ℓ_b   = α_b ℓ_(b−1) + Σ_j e^(s_j − m_b)
//     acc_b = α_b acc_(b−1) + Σ_j e^(s_j − m_b) v_j     (d_v)
//     out_b = acc_b / ℓ_b                         (the output if the keys ended here)
// After the last block out is softmax(scale · q_row Kᵀ) V: the row the fused
// and the step-by-step paths give. The weights e^(s_j − m) / ℓ of the final m
// and ℓ are written too, and their sum. This is a teaching trace (plain
// scalar code, sums in double); fused_attention (flash_attention.h) is the
// fast path with the same recurrence on blocks of 128 keys.
// A row with no visible key: m stays −∞, every α is 1, ℓ = 0, zero output
// and zero weights.
#pragma once

#include <cstddef>

#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace attn {

// Caller-owned buffers, nb = ceil(m / block) blocks.
struct OnlineSoftmaxTrace {
  float* scores;       // m: s_j (−∞ where masked)
  float* block_max;    // nb: max_j s_j over the block (−∞ if all masked)
  float* running_max;  // nb: m_b
  float* rescale;      // nb: α_b
  float* running_sum;  // nb: ℓ_b
  float* accumulator;  // nb × d_v: acc_b
  float* partial;      // nb × d_v: acc_b / ℓ_b (0 while ℓ_b = 0)
  float* output;       // d_v: the final output row
  float* weights;      // m: e^(s_j − m) / ℓ
  float* totals;       // 3: final m, final ℓ, Σ_j weights_j
};

inline std::size_t online_softmax_blocks(std::size_t m, std::size_t block) {
  if (block == 0) return 0;
  return m / block + (m % block != 0 ? 1 : 0);  // no m + block − 1: it may wrap
}

// Q n×d, K m×d, V m×d_v; row < n; block >= 1. Returns shape_mismatch for
// disagreeing shapes, bad_argument for row >= n, block 0 or a missing buffer,
// bad_mask for a mask that does not fit n×m.
Status online_softmax_trace(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, std::size_t row,
                            const Mask& mask, float scale, std::size_t block, const OnlineSoftmaxTrace& out);

}  // namespace attn
