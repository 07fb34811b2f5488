// What happens to a scaled score s = q·k · scale before the softmax, in order:
//   1. soft-capping   s ← c · tanh(s / c)        (c > 0; Gemma 2, Grok; before the mask,
//                                                  so a hidden key stays hidden)
//   2. visibility     key j is hidden from query i of batch b when
//        - causal: j > i + offset_b   (offset 0: top-left; offset = past length: bottom-right,
//          the KV-cache case; a negative offset hides whole rows)
//        - window w > 0: j <= i + offset_b − w   (a sliding window of w keys ending at the frontier)
//        - kv_lengths: j >= kv_lengths[b]        (padded keys of a batch entry)
//        - keep plane: keep[b, h, i, j] == 0, or j >= keep.cols (a short mask hides the rest)
//   3. bias           s ← s + bias[b, h, i, j]   (ALiBi, relative position bias, any additive
//                                                  mask; −∞ hides; j >= bias.cols hides)
// A hidden score is −∞; a row with every key hidden gets all-zero weights.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "status.h"

namespace attn {

// A [batch, heads, rows, cols] plane of per-score data; a stride of 0
// broadcasts that dimension (a [n, m] mask over every batch entry and head).
template <class T>
struct ScorePlane {
  const T* data = nullptr;  // null: no plane
  std::size_t batch_stride = 0, head_stride = 0, row_stride = 0;
  std::size_t cols = 0;  // keys it covers; keys at or past cols are hidden

  const T* row(std::size_t b, std::size_t h, std::size_t i) const {
    return data + b * batch_stride + h * head_stride + i * row_stride;
  }
};

struct ScoreRules {
  float scale = 1.0f;
  float softcap = 0.0f;                       // 0: no cap
  bool causal = false;
  std::int32_t causal_offset = 0;             // the offset for every batch entry …
  const std::int32_t* causal_offsets = nullptr;  // … or one per batch entry
  std::uint32_t window = 0;                   // 0: no window
  const std::int32_t* kv_lengths = nullptr;   // one per batch entry, or null
  ScorePlane<std::uint8_t> keep;              // 1 = may attend
  ScorePlane<float> bias;
};

// Keys [begin, end) that the causal, window and length rules and the planes'
// widths leave visible to query i of batch entry b, for m keys.
struct KeyRange {
  std::size_t begin = 0, end = 0;
};
KeyRange key_range(const ScoreRules& rules, std::size_t b, std::size_t i, std::size_t m);

inline float soft_cap(float s, float cap) { return cap > 0.0f ? cap * std::tanh(s / cap) : s; }

// Steps 2 and 3 for keys [range.begin, range.end) of row (b, h, i): s holds
// their capped scores, s[0] for key range.begin; hidden ones become −∞.
void apply_rules(const ScoreRules& rules, std::size_t b, std::size_t h, std::size_t i, KeyRange range, float* s);

// Checks the rules against a call's shapes: finite scale, cap >= 0, lengths
// within [0, m], planes no wider than m, data present.
Status check_rules(const ScoreRules& rules, std::size_t batch, std::size_t m);

}  // namespace attn
