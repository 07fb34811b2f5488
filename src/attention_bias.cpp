#include "attention_bias.h"

namespace attn {
namespace {

std::int64_t clamp(std::int64_t x, std::int64_t lo, std::int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

}  // namespace

KeyRange key_range(const ScoreRules& rules, std::size_t b, std::size_t i, std::size_t m) {
  const std::int64_t keys = static_cast<std::int64_t>(m);
  std::int64_t begin = 0, end = keys;
  const std::int64_t offset = rules.causal_offsets ? rules.causal_offsets[b] : rules.causal_offset;
  const std::int64_t frontier = static_cast<std::int64_t>(i) + offset;  // the last key query i may see
  if (rules.causal) end = frontier + 1;
  if (rules.window > 0) begin = frontier - static_cast<std::int64_t>(rules.window) + 1;
  if (rules.kv_lengths && rules.kv_lengths[b] < end) end = rules.kv_lengths[b];
  if (rules.keep.data && static_cast<std::int64_t>(rules.keep.cols) < end) end = static_cast<std::int64_t>(rules.keep.cols);
  if (rules.bias.data && static_cast<std::int64_t>(rules.bias.cols) < end) end = static_cast<std::int64_t>(rules.bias.cols);
  begin = clamp(begin, 0, keys);
  end = clamp(end, begin, keys);
  return {static_cast<std::size_t>(begin), static_cast<std::size_t>(end)};
}

void apply_rules(const ScoreRules& rules, std::size_t b, std::size_t h, std::size_t i, KeyRange range, float* s) {
  const std::size_t width = range.end - range.begin;
  if (rules.keep.data) {
    const std::uint8_t* keep = rules.keep.row(b, h, i) + range.begin;
    for (std::size_t c = 0; c < width; ++c)
      if (!keep[c]) s[c] = -INFINITY;
  }
  if (rules.bias.data) {
    const float* bias = rules.bias.row(b, h, i) + range.begin;
    for (std::size_t c = 0; c < width; ++c) s[c] += bias[c];  // −∞ + finite = −∞; hidden stays hidden
  }
}

Status check_rules(const ScoreRules& rules, std::size_t batch, std::size_t m) {
  if (!std::isfinite(rules.scale) || !(rules.softcap >= 0.0f) || !std::isfinite(rules.softcap))
    return Status::bad_argument;
  if (rules.kv_lengths)
    for (std::size_t b = 0; b < batch; ++b)
      if (rules.kv_lengths[b] < 0 || static_cast<std::size_t>(rules.kv_lengths[b]) > m) return Status::bad_mask;
  if (rules.keep.data && rules.keep.cols > m) return Status::bad_mask;
  if (rules.bias.data && rules.bias.cols > m) return Status::bad_mask;
  return Status::ok;
}

}  // namespace attn
