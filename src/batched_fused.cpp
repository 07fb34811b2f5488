// The fused path of batched_attention.h: for each query row, keys in blocks
// of kBlock with the online softmax (running max M, running sum L, output O):
//   M' = max(M, max_j s_j),  α = e^(M − M'),  L' = α L + Σ e^(s_j − M'),  O' = α O + Σ e^(s_j − M') v_j
// and at the end O / L. Only the keys key_range() leaves visible are scored,
// so a causal, windowed or padded row does only its own work.
#include <cmath>
#include <cstring>

#include "batched_attention.h"
#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

constexpr std::size_t kBlock = 64;  // keys scored at once

float dot(const float* a, const float* b, std::size_t len) {
  simd::f32x4 acc = simd::zero();
  std::size_t t = 0;
  for (; t + simd::kWidth <= len; t += simd::kWidth) acc = simd::madd(acc, simd::load(a + t), simd::load(b + t));
  float sum = simd::hsum(acc);
  for (; t < len; ++t) sum += a[t] * b[t];
  return sum;
}

struct RowState {
  float max = -INFINITY;
  double sum = 0.0;
  bool finite = true;
  float* o;  // d_v accumulated outputs
};

// 1-3: scores of one key block, capped, hidden and biased; 4: the online update.
void attend_block(ConstMatrixView k, ConstMatrixView v, const float* q_row, const ScoreRules& rules, std::size_t b,
                  std::size_t h, std::size_t i, KeyRange block, float* s, RowState& st) {
  const std::size_t width = block.end - block.begin;
  for (std::size_t c = 0; c < width; ++c)
    s[c] = soft_cap(dot(q_row, k.row(block.begin + c), k.cols) * rules.scale, rules.softcap);
  apply_rules(rules, b, h, i, block, s);
  float block_max = -INFINITY;
  for (std::size_t c = 0; c < width; ++c) {
    st.finite &= s[c] == -INFINITY || std::isfinite(s[c]);
    block_max = std::fmax(block_max, s[c]);
  }
  if (!st.finite || block_max == -INFINITY) return;
  if (block_max > st.max) {  // rescale what was accumulated under the old max
    const float alpha = st.max == -INFINITY ? 0.0f : std::exp(st.max - block_max);
    st.sum *= static_cast<double>(alpha);
    scale_in_place(st.o, alpha, v.cols);
    st.max = block_max;
  }
  std::size_t c = 0;
  const simd::f32x4 mv = simd::splat(st.max);
  for (; c + simd::kWidth <= width; c += simd::kWidth)
    simd::store(s + c, simd::exp_nonpositive(simd::sub(simd::load(s + c), mv)));
  for (; c < width; ++c) {
    alignas(16) float t[4] = {s[c] - st.max, -INFINITY, -INFINITY, -INFINITY};
    simd::store(t, simd::exp_nonpositive(simd::load(t)));
    s[c] = t[0];
  }
  for (c = 0; c < width; ++c) {
    if (s[c] == 0.0f) continue;
    st.sum += static_cast<double>(s[c]);
    add_scaled(st.o, s[c], v.row(block.begin + c), v.cols);
  }
}

void attend_row(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                const MutHeadTensor& out, std::size_t b, std::size_t h, std::size_t i, float* scratch) {
  const std::size_t g = kv_head_for(h, q.heads, k.heads);
  RowState st{};
  st.o = scratch + kBlock;
  std::memset(st.o, 0, v.cols * sizeof(float));
  const KeyRange range = key_range(rules, b, i, k.rows);
  for (std::size_t j0 = range.begin; j0 < range.end; j0 += kBlock) {
    const KeyRange block{j0, j0 + kBlock < range.end ? j0 + kBlock : range.end};
    attend_block(k.head(b, g), v.head(b, g), q.head(b, h).row(i), rules, b, h, i, block, scratch, st);
  }
  // 5. normalise once: zero for a row with nothing visible, NaN after an overflow
  const float inv = !st.finite ? NAN : st.sum > 0.0 ? static_cast<float>(1.0 / st.sum) : 0.0f;
  float* y = out.head(b, h).row(i);
  for (std::size_t t = 0; t < v.cols; ++t) y[t] = st.o[t] * inv;
}

}  // namespace

std::size_t batched_fused_scratch_floats(std::size_t d_v) { return kBlock + d_v; }

Status batched_fused_attention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                               const MutHeadTensor& out, float* scratch) {
  if (Status s = check_batched_shapes(q, k, v, out); s != Status::ok) return s;
  if (Status s = check_rules(rules, q.batch, k.rows); s != Status::ok) return s;
  for (std::size_t b = 0; b < q.batch; ++b)
    for (std::size_t h = 0; h < q.heads; ++h)
      for (std::size_t i = 0; i < q.rows; ++i) attend_row(q, k, v, rules, out, b, h, i, scratch);
  return Status::ok;
}

}  // namespace attn
