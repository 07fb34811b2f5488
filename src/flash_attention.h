// Fused attention, FlashAttention-style: softmax(Q Kᵀ · scale) V computed
// block by block with an online softmax, never materialising the n×m score
// matrix. Exact (not an approximation): the same result as the step-by-step
// path up to float rounding. This is the fast path used when the caller does
// not ask for the weights.
//
// Per block of 32 query rows, keys are visited in blocks of 128. For each
// block: scores S = Q_rows · K_blockᵀ · scale, the mask applied, then the
// online softmax recurrence (running row max M, running sum L):
//   M' = max(M, rowmax S),  α = e^(M − M'),  P = e^(S − M'),
//   L' = α L + Σ P,         O' = α O + P V_block,
// and at the end O / L. Keys beyond a prefix mask's end (causal, valid
// lengths) are skipped entirely, so a causal call does half the work.
// With no mask, the call is one head of batched_fused_attention
// (batched_attention.h): the same recurrence with packed queries and values,
// in blocks of 128 rows × 64 keys, faster in WASM.
#pragma once

#include <cstddef>

#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace attn {

// Floats of scratch memory fused_attention needs for m keys of width d and
// values of width d_v (the packed keys plus one block's working set).
std::size_t fused_attention_scratch_floats(std::size_t m, std::size_t d, std::size_t d_v);

// Q: n×d, K: m×d, V: m×d_v, out: n×d_v. scratch: fused_attention_scratch_floats(m, d, d_v)
// floats. A query row with no visible key gets an all-zero output row; one
// with a visible NaN or infinite score (an overflow upstream) a NaN row.
Status fused_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask, float scale,
                       MatrixView out, float* scratch);

}  // namespace attn
