// Local (sliding-window) attention: each query attends only to the keys near
// its own position, so the cost grows as O(n·w·d) instead of O(n²·d).
//   window w >= 1 is how far a query reaches, counting itself:
//     key j is visible to query i  iff  |i − j| < w            (causal = false)
//                                  iff  0 <= i − j < w         (causal = true)
//   so a causal query sees the w keys [i − w + 1, i] and a non-causal query
//   the 2w − 1 keys [i − w + 1, i + w − 1], both clipped to [0, n).
//   Within its window a query does scaled dot-product attention; a window
//   w >= n is exactly full (or, with causal, causal) attention.
// Shapes (self-attention): Q n×d, K n×d, V n×d_v, output n×d_v.
// Memory: no n×n buffer and no scratch. Keys are scored in blocks of 64 with
// an online softmax (a running max and sum; the output row is rescaled when
// the max grows), so a call never reads a key outside a query's window.
// weights: null, or a dense row-major n×n buffer (the traced, small case);
// every entry outside the window is written as exactly 0, rows sum to 1.
#pragma once

#include <cstddef>

#include "matrix.h"
#include "status.h"

namespace attn {

// scale: 1/√d is the usual choice (default_scale(d) in attention.h).
// Returns shape_mismatch if K or V do not have Q's n rows, K's width is not
// Q's, or out is not n×d_v; bad_argument if window is 0. n = 0 is ok.
Status local_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, std::size_t window, bool causal,
                       float scale, MatrixView out, float* weights /* n×n or null */);

}  // namespace attn
