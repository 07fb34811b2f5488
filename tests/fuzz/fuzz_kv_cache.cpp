// libFuzzer target: attn::kv_cache_forward, a sequence of up to 6 prefill or
// decode calls on one cache: batch ≤ 3, kv heads 1..3 and query heads a
// multiple, capacity ≤ 90 (crossing the fused path's 64-key blocks), d_k,
// d_v ≤ 12, scale, soft cap, window, each call on the weights-kept or the
// fused path. Now and then a call is broken on purpose (k with one head too
// many, v one column too wide, q heads that do not divide, q rows differing
// from k rows, a negative cap, more tokens than the capacity left) and must
// be refused without writing anything. After an accepted call: the planes
// hold every token so far in order and nothing past the length, the outputs
// and weights are bit for bit those of batched_attention /
// batched_fused_attention over a dense copy of all the tokens (causal offset
// = the past length), weights in [0, 1] with the keys outside the causal
// window exactly 0, and kv_cache_work equals the count key by key.
#include <cmath>
#include <cstring>

#include "fuzz_common.h"
#include "kv_cache.h"
#include "kv_cache_cost.h"

namespace {

constexpr float kSentinel = -12345.625f;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t t = 0; t < a.size(); ++t)
    if (std::memcmp(&a[t], &b[t], sizeof(float)) != 0 && !(std::isnan(a[t]) && std::isnan(b[t]))) return false;
  return true;
}

// The tokens so far, dense [batch, kv_heads, length, width], with `fresh` [batch, kv_heads, n, width] appended.
std::vector<float> appended(const std::vector<float>& all, const std::vector<float>& fresh, std::size_t heads,
                            std::size_t length, std::size_t n, std::size_t width) {
  std::vector<float> out;
  for (std::size_t h = 0; h < heads; ++h) {
    out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(h * length * width),
               all.begin() + static_cast<std::ptrdiff_t>((h + 1) * length * width));
    out.insert(out.end(), fresh.begin() + static_cast<std::ptrdiff_t>(h * n * width),
               fresh.begin() + static_cast<std::ptrdiff_t>((h + 1) * n * width));
  }
  return out;
}

// Rows 0 … length − 1 of each head of a plane of `capacity` rows equal `dense`; the rest hold the sentinel.
bool plane_holds(const std::vector<float>& plane, const std::vector<float>& dense, std::size_t heads,
                 std::size_t capacity, std::size_t length, std::size_t width) {
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < capacity; ++i)
      for (std::size_t t = 0; t < width; ++t) {
        const float got = plane[(h * capacity + i) * width + t];
        const float want = i < length ? dense[(h * length + i) * width + t] : kSentinel;
        if (std::memcmp(&got, &want, sizeof(float)) != 0) return false;
      }
  return true;
}

double counted_work(std::size_t batch, std::size_t heads, std::size_t d_k, std::size_t d_v, std::size_t window,
                    std::size_t from, std::size_t to) {
  double keys = 0.0;
  for (std::size_t t = from; t < to; ++t) keys += static_cast<double>(window > 0 && window < t + 1 ? window : t + 1);
  return keys * static_cast<double>(batch * heads * (d_k + d_v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t B = in.dim(0, 3), G = in.dim(1, 3), H = G * in.dim(1, 3), dk = in.dim(0, 12), dv = in.dim(0, 12);
  const std::size_t C = in.dim(0, 90);
  attn::KVCacheRules rules;
  rules.scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(dk > 0 ? dk : 1)) : in.scalar();
  rules.softcap = in.flag() ? static_cast<float>(in.dim(1, 50)) / 4.0f : 0.0f;
  rules.window = in.flag() ? static_cast<std::uint32_t>(in.dim(1, 10)) : 0;
  std::vector<float> keys(B * G * C * dk, kSentinel), values(B * G * C * dv, kSentinel);
  std::vector<float> all_k, all_v;  // every token so far, dense
  attn::KVCache cache{keys.data(), values.data(), B, G, C, dk, dv, 0};
  std::vector<float> scratch(attn::batched_fused_scratch_floats(dv));
  const std::size_t calls = in.dim(1, 6);
  for (std::size_t call = 0; call < calls; ++call) {
    const std::size_t n = in.dim(0, 20), past = cache.length;
    const int broken = in.in_range<int>(0, 15);  // 1 k heads, 2 v width, 3 q heads, 4 q rows, 5 cap < 0
    const std::size_t qh = broken == 3 ? H + 1 : H, kh = broken == 1 ? G + 1 : G, vw = broken == 2 ? dv + 1 : dv;
    const std::size_t qn = broken == 4 ? n + 1 : n;
    const std::vector<float> q = in.matrix(B * qh * qn, dk), k = in.matrix(B * kh * n, dk), v = in.matrix(B * kh * n, vw);
    const bool fused = in.flag();
    attn::KVCacheRules call_rules = rules;
    if (broken == 5) call_rules.softcap = -1.0f;
    const bool consistent = (broken == 0 || broken > 5 || (broken == 3 && qh % G == 0)) && past + n <= C &&
                            std::isfinite(rules.scale);
    const std::size_t total = past + qn;
    std::vector<float> out(B * qh * qn * dv, kSentinel), weights(B * qh * qn * total, kSentinel);
    fuzz::report({{"q", q, B * qh * qn, dk}, {"k", k, B * kh * n, dk}, {"v", v, B * kh * n, vw}},
                 "call %zu: B=%zu H=%zu G=%zu past=%zu n=%zu C=%zu dk=%zu dv=%zu broken=%d fused=%d scale=%.9g cap=%.9g window=%u",
                 call, B, qh, G, past, n, C, dk, dv, broken, fused, static_cast<double>(rules.scale),
                 static_cast<double>(call_rules.softcap), rules.window);
    if (in.skip_call()) return 0;
#if defined(ATTN_FORCE_SCALAR)
    if (!in.moderate()) return 0;  // as fuzz_batched_attention: the scalar exp2_integral UB on huge scores (reported)
#endif
    const attn::Status s = attn::kv_cache_forward(
        cache, call_rules, attn::heads_major(q.data(), B, qh, qn, dk), attn::heads_major(k.data(), B, kh, n, dk),
        attn::heads_major(v.data(), B, kh, n, vw), attn::heads_major(out.data(), B, qh, qn, dv),
        fused ? nullptr : weights.data(), scratch.data());
    if (!FUZZ_CHECK_STATUS(s, consistent)) {
      FUZZ_CHECK(cache.length == past, "a refused call changed the length");
      FUZZ_CHECK(plane_holds(keys, all_k, B * G, C, past, dk) && plane_holds(values, all_v, B * G, C, past, dv),
                 "a refused call wrote into the cache");
      for (float x : out) FUZZ_CHECK(std::memcmp(&x, &kSentinel, sizeof x) == 0, "a refused call wrote an output");
      continue;
    }
    FUZZ_CHECK(cache.length == past + n, "the length did not advance by n");
    all_k = appended(all_k, k, B * G, past, n, dk);
    all_v = appended(all_v, v, B * G, past, n, dv);
    FUZZ_CHECK(plane_holds(keys, all_k, B * G, C, cache.length, dk), "the key plane does not hold the tokens in order");
    FUZZ_CHECK(plane_holds(values, all_v, B * G, C, cache.length, dv), "the value plane does not hold the tokens in order");

    // the same call as batched attention over a dense copy of every token
    attn::ScoreRules score;
    score.scale = rules.scale;
    score.softcap = rules.softcap;
    score.causal = true;
    score.causal_offset = static_cast<std::int32_t>(past);
    score.window = rules.window;
    std::vector<float> dense_out(out.size(), kSentinel), dense_weights(weights.size(), kSentinel);
    const auto dq = attn::heads_major(q.data(), B, qh, n, dk);
    const auto dk_ = attn::heads_major(all_k.data(), B, G, total, dk), dv_ = attn::heads_major(all_v.data(), B, G, total, dv);
    const auto dout = attn::heads_major(dense_out.data(), B, qh, n, dv);
    const attn::Status ds = fused ? attn::batched_fused_attention(dq, dk_, dv_, score, dout, scratch.data())
                                  : attn::batched_attention(dq, dk_, dv_, score, dout, dense_weights.data(), nullptr);
    FUZZ_CHECK(ds == attn::Status::ok, "batched attention refused what the cache accepted");
    FUZZ_CHECK(same_bits(out, dense_out), "the cache's output differs from batched attention over the same tokens");
    if (!fused) FUZZ_CHECK(same_bits(weights, dense_weights), "the cache's weights differ from batched attention's");

    const attn::KVWork work = attn::kv_cache_work({B, qh, dk, dv, rules.window}, past, n);
    FUZZ_CHECK(work.with_cache == counted_work(B, qh, dk, dv, rules.window, past, past + n), "with_cache miscounted");
    FUZZ_CHECK(work.without_cache == counted_work(B, qh, dk, dv, rules.window, 0, past + n), "without_cache miscounted");

    if (fused || !in.check_values() || !in.moderate() || !std::isfinite(rules.scale) || !fuzz::all_finite(out)) continue;
    for (std::size_t row = 0; row < B * qh * n; ++row) {  // weights: in [0, 1], 0 outside [frontier − w + 1, frontier]
      const std::size_t frontier = past + row % n;
      double sum = 0.0;
      for (std::size_t j = 0; j < total; ++j) {
        const float w = weights[row * total + j];
        FUZZ_CHECK(w >= 0.0f && w <= 1.0f, "a weight outside [0, 1]");
        const bool hidden = j > frontier || (rules.window > 0 && j + rules.window <= frontier);
        if (hidden) FUZZ_CHECK(w == 0.0f, "a key outside the causal window has a weight");
        sum += w;
      }
      FUZZ_CHECK(std::fabs(sum - 1.0) < 1e-4, "a row's weights do not sum to 1");
    }
  }
  return 0;
}
