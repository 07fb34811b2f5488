// ALiBi, attention with linear biases (Press, Smith and Lewis, "Train Short,
// Test Long", 2022). No position vector at all: each head h adds a penalty
// proportional to the distance between query and key to the score,
//   bias[h][i][j] = −m_h · (i + offset − j)      for keys j <= i + offset
// so a head with a large slope m_h looks nearby and one with a small slope far.
// The slopes form a geometric sequence (for a power of two H):
//   m_h = 2^(−8h/H), h = 1 … H      (8 heads: 1/2, 1/4, …, 1/256)
// For other H, the paper's reference code takes the slopes of the closest lower
// power of two n, followed by every other slope of 2n (the odd ones) until H.
#pragma once

#include <cstddef>
#include <cstdint>

#include "head_tensor.h"
#include "status.h"

namespace attn {

// m_{h+1}, the slope of head h (0-based) of `heads` (h < heads), in double.
double alibi_slope(std::size_t h, std::size_t heads);

// slopes[0 … heads − 1] = m_1 … m_H. heads >= 1 and slopes given, else bad_argument.
Status alibi_slopes(std::size_t heads, float* slopes);

struct AlibiOptions {
  std::int64_t offset = 0;  // query i sits at position i + offset among the keys (a cache's past length)
  bool symmetric = false;   // −m_h · |i + offset − j| for every key (bidirectional use)
};

// out [1, heads, queries, keys] (out.batch must be 1, out.heads >= 1, else
// bad_argument) = −m_h · (i + offset − j) in double, rounded once to float32.
// Not symmetric: keys j > i + offset (the future) are −∞, hidden, as in the
// paper's causal setting: a bias of 0 there would favour the future over every past key.
Status alibi_bias(const AlibiOptions& options, const MutHeadTensor& out);

}  // namespace attn
