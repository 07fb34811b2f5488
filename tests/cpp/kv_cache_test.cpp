// The KV cache (src/kv_cache.h): a prefill and then decode steps give what
// full causal attention over every token gives (batched_reference.h, float64)
// for MHA, GQA and MQA, batch 1 and 2, with a soft cap and a window, on both
// paths and at every width in sizes(); appends land at their rows and nowhere
// else; every refusal writes nothing; the work and the memory of
// kv_cache_cost.h against kv_cache_reference.h.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "batched_reference.h"
#include "kv_cache.h"
#include "kv_cache_cost.h"
#include "kv_cache_reference.h"
#include "test_util.h"

namespace {

using attn::Status;
using attn_test::Rng;
using attn_test::kSentinel;

struct Shape {
  std::size_t batch, heads, kv_heads, d_k, d_v, tokens;
  float softcap = 0.0f;
  std::uint32_t window = 0;
};

std::vector<float> random_vec(std::size_t count, Rng& rng) {
  std::vector<float> x(count);
  for (float& e : x) e = rng.uniform(-2.0f, 2.0f);
  return x;
}

// Rows [from, to) of every head of a dense [batch, heads, T, width] tensor.
std::vector<float> rows(const std::vector<float>& x, std::size_t heads_total, std::size_t T, std::size_t width,
                        std::size_t from, std::size_t to) {
  std::vector<float> y;
  for (std::size_t h = 0; h < heads_total; ++h)
    y.insert(y.end(), x.begin() + static_cast<std::ptrdiff_t>((h * T + from) * width),
             x.begin() + static_cast<std::ptrdiff_t>((h * T + to) * width));
  return y;
}
std::vector<double> rows(const std::vector<double>& x, std::size_t heads_total, std::size_t T, std::size_t width,
                         std::size_t from, std::size_t to) {
  std::vector<double> y;
  for (std::size_t h = 0; h < heads_total; ++h)
    for (std::size_t i = from; i < to; ++i)
      for (std::size_t t = 0; t < width; ++t) y.push_back(x[(h * T + i) * width + t]);
  return y;
}

// Weights rows [from, to) of the reference's [.., T, T] planes, restricted to the first `to` keys.
std::vector<double> weight_rows(const std::vector<double>& w, std::size_t heads_total, std::size_t T,
                                std::size_t from, std::size_t to) {
  std::vector<double> y;
  for (std::size_t h = 0; h < heads_total; ++h)
    for (std::size_t i = from; i < to; ++i)
      for (std::size_t j = 0; j < to; ++j) y.push_back(w[(h * T + i) * T + j]);
  return y;
}

// A prefill of `prompt` tokens, then one step per remaining token, against the full causal reference.
void check_decoding(const Shape& s, std::size_t prompt, std::uint64_t seed) {
  SCOPED_TRACE("batch " + std::to_string(s.batch) + ", heads " + std::to_string(s.heads) + "/" +
               std::to_string(s.kv_heads) + ", d_k " + std::to_string(s.d_k) + ", d_v " + std::to_string(s.d_v) +
               ", T " + std::to_string(s.tokens) + ", cap " + std::to_string(s.softcap) + ", window " +
               std::to_string(s.window));
  Rng rng(seed);
  const std::size_t T = s.tokens, BH = s.batch * s.heads, BG = s.batch * s.kv_heads;
  const std::vector<float> q = random_vec(BH * T * s.d_k, rng), k = random_vec(BG * T * s.d_k, rng),
                           v = random_vec(BG * T * s.d_v, rng);
  ref::BatchedCase c;
  c.batch = s.batch, c.heads = s.heads, c.kv_heads = s.kv_heads, c.n = T, c.m = T, c.d = s.d_k, c.dv = s.d_v;
  c.scale = static_cast<double>(1.0f / std::sqrt(static_cast<float>(s.d_k)));
  c.softcap = static_cast<double>(s.softcap), c.causal = true, c.window = s.window;
  const ref::BatchedResult expected = ref::batched_attention(c, q, k, v);

  std::vector<float> keys(BG * T * s.d_k, kSentinel), values(BG * T * s.d_v, kSentinel);
  attn::KVCache cache{keys.data(), values.data(), s.batch, s.kv_heads, T, s.d_k, s.d_v, 0};
  const attn::KVCacheRules rules{static_cast<float>(c.scale), s.softcap, s.window};
  std::vector<float> scratch(attn::batched_fused_scratch_floats(s.d_v));
  for (std::size_t from = 0; from < T;) {
    const std::size_t to = from == 0 ? prompt : from + 1, n = to - from;
    const bool fused = from % 2 == 1;
    SCOPED_TRACE("tokens " + std::to_string(from) + " … " + std::to_string(to - 1) + (fused ? ", fused" : ""));
    const std::vector<float> qn = rows(q, BH, T, s.d_k, from, to), kn = rows(k, BG, T, s.d_k, from, to),
                             vn = rows(v, BG, T, s.d_v, from, to);
    std::vector<float> out(BH * n * s.d_v, kSentinel), weights(BH * n * to, kSentinel);
    const Status st = attn::kv_cache_forward(
        cache, rules, attn::heads_major(qn.data(), s.batch, s.heads, n, s.d_k),
        attn::heads_major(kn.data(), s.batch, s.kv_heads, n, s.d_k), attn::heads_major(vn.data(), s.batch, s.kv_heads, n, s.d_v),
        attn::heads_major(out.data(), s.batch, s.heads, n, s.d_v), fused ? nullptr : weights.data(), scratch.data());
    ASSERT_EQ(st, Status::ok);
    ASSERT_EQ(cache.length, to);
    const double atol = 2e-5 * static_cast<double>(s.d_k + 1);
    EXPECT_TRUE(attn_test::all_close(out, rows(expected.output, BH, T, s.d_v, from, to), atol, 2e-4));
    if (!fused) EXPECT_TRUE(attn_test::all_close(weights, weight_rows(expected.weights, BH, T, from, to), 1e-6, 2e-4));
    from = to;
  }
  // the planes hold every token's keys and values, in order
  EXPECT_EQ(keys, k);
  EXPECT_EQ(values, v);
}

TEST(KVCache, PrefillThenStepsEqualFullCausalAttention) {
  const std::vector<std::array<std::size_t, 2>> groupings = {{4, 4}, {4, 2}, {4, 1}};  // MHA, GQA, MQA
  const std::vector<std::pair<float, std::uint32_t>> rules = {{0.0f, 0}, {1.5f, 0}, {0.0f, 5}, {2.0f, 7}};
  std::size_t salt = 0;
  for (const auto& [heads, kv_heads] : groupings)
    for (std::size_t batch : {1, 2})
      for (const auto& [cap, window] : rules)
        for (std::size_t width : attn_test::sizes()) {
          const std::size_t T = width == 65 ? 70 : 12;  // 70 crosses the fused path's 64-key blocks
          check_decoding({batch, heads, kv_heads, width, 1 + width % 6, T, cap, window}, T / 2, attn_test::seed_for(++salt));
        }
}

TEST(KVCache, AppendWritesOnlyItsRows) {
  // batch 2, 2 kv heads, capacity 5, widths 3 and 2: rows 1 and 2 appended after row 0
  std::vector<float> keys(2 * 2 * 5 * 3, kSentinel), values(2 * 2 * 5 * 2, kSentinel);
  attn::KVCache cache{keys.data(), values.data(), 2, 2, 5, 3, 2, 1};
  std::vector<float> k(2 * 2 * 2 * 3), v(2 * 2 * 2 * 2);
  for (std::size_t t = 0; t < k.size(); ++t) k[t] = static_cast<float>(t);
  for (std::size_t t = 0; t < v.size(); ++t) v[t] = static_cast<float>(100 + t);
  ASSERT_EQ(attn::kv_cache_append(cache, attn::heads_major(k.data(), 2, 2, 2, 3), attn::heads_major(v.data(), 2, 2, 2, 2)),
            Status::ok);
  EXPECT_EQ(cache.length, 3u);
  for (std::size_t head = 0; head < 4; ++head)
    for (std::size_t row = 0; row < 5; ++row) {
      const bool fresh = row == 1 || row == 2;
      for (std::size_t t = 0; t < 3; ++t)
        EXPECT_EQ(keys[(head * 5 + row) * 3 + t], fresh ? k[(head * 2 + row - 1) * 3 + t] : kSentinel) << head << " " << row;
      for (std::size_t t = 0; t < 2; ++t)
        EXPECT_EQ(values[(head * 5 + row) * 2 + t], fresh ? v[(head * 2 + row - 1) * 2 + t] : kSentinel) << head << " " << row;
    }
  const attn::HeadTensor cached = cache.cached_keys();
  EXPECT_EQ(cached.rows, 3u);
  EXPECT_EQ(cached.head(1, 1).at(2, 0), k[(3 * 2 + 1) * 3]);
}

TEST(KVCache, RefusalsWriteNothing) {
  const std::size_t B = 1, H = 2, G = 1, C = 3, dk = 2, dv = 2;
  std::vector<float> keys(B * G * C * dk, kSentinel), values(B * G * C * dv, kSentinel);
  attn::KVCache cache{keys.data(), values.data(), B, G, C, dk, dv, 2};
  const std::vector<float> data(64, 0.5f);
  std::vector<float> out(64, kSentinel), weights(64, kSentinel), scratch(attn::batched_fused_scratch_floats(dv));
  const attn::KVCacheRules ok_rules{1.0f, 0.0f, 0};
  const auto t = [&](std::size_t b, std::size_t h, std::size_t n, std::size_t w) { return attn::heads_major(data.data(), b, h, n, w); };
  const auto o = [&](std::size_t b, std::size_t h, std::size_t n, std::size_t w) { return attn::heads_major(out.data(), b, h, n, w); };
  struct Case {
    const char* what;
    attn::KVCacheRules rules;
    attn::HeadTensor q, k, v;
    attn::MutHeadTensor out;
    Status want;
  };
  const std::vector<Case> cases = {
      {"past the capacity", ok_rules, t(B, H, 2, dk), t(B, G, 2, dk), t(B, G, 2, dv), o(B, H, 2, dv), Status::bad_argument},
      {"k with the wrong heads", ok_rules, t(B, H, 1, dk), t(B, 2, 1, dk), t(B, 2, 1, dv), o(B, H, 1, dv), Status::shape_mismatch},
      {"v of the wrong width", ok_rules, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, 3), o(B, H, 1, dv), Status::shape_mismatch},
      {"q of the wrong width", ok_rules, t(B, H, 1, 3), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 1, dv), Status::shape_mismatch},
      {"q of another batch", ok_rules, t(2, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(2, H, 1, dv), Status::shape_mismatch},
      {"q rows differing from k rows", ok_rules, t(B, H, 2, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 2, dv), Status::shape_mismatch},
      {"k and v rows differing", ok_rules, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 0, dv), o(B, H, 1, dv), Status::shape_mismatch},
      {"out of the wrong width", ok_rules, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 1, 3), Status::shape_mismatch},
      {"a negative cap", {1.0f, -1.0f, 0}, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 1, dv), Status::bad_argument},
      {"a NaN scale", {NAN, 0.0f, 0}, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 1, dv), Status::bad_argument},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(attn::kv_cache_forward(cache, c.rules, c.q, c.k, c.v, c.out, weights.data(), scratch.data()), c.want);
    EXPECT_EQ(cache.length, 2u);
    EXPECT_TRUE(attn_test::untouched(keys, "keys"));
    EXPECT_TRUE(attn_test::untouched(values, "values"));
    EXPECT_TRUE(attn_test::untouched(out, "out"));
  }
  // query heads that are not a multiple of the kv heads (2 kv heads, 3 query heads)
  attn::KVCache two{keys.data(), values.data(), 1, 2, 1, 1, 1, 0};
  EXPECT_EQ(attn::kv_cache_forward(two, ok_rules, t(1, 3, 1, 1), t(1, 2, 1, 1), t(1, 2, 1, 1), o(1, 3, 1, 1), nullptr, scratch.data()),
            Status::shape_mismatch);
  // neither weights nor scratch, and planes missing
  EXPECT_EQ(attn::kv_cache_forward(cache, ok_rules, t(B, H, 1, dk), t(B, G, 1, dk), t(B, G, 1, dv), o(B, H, 1, dv), nullptr, nullptr),
            Status::bad_argument);
  attn::KVCache empty{nullptr, nullptr, B, G, C, dk, dv, 0};
  EXPECT_EQ(attn::kv_cache_append(empty, t(B, G, 1, dk), t(B, G, 1, dv)), Status::bad_argument);
  EXPECT_TRUE(attn_test::untouched(keys, "keys"));
  EXPECT_EQ(cache.length, 2u);
}

TEST(KVCacheCost, WorkMatchesTheCountKeyByKey) {
  for (std::size_t window : {0, 1, 3, 8})
    for (std::size_t past : {0, 1, 2, 7, 30})
      for (std::size_t n : {1, 2, 5, 17}) {
        const attn::KVWork got = attn::kv_cache_work({2, 3, 5, 4, static_cast<std::uint32_t>(window)}, past, n);
        const ref::KVWorkCount want = ref::kv_cache_work(2, 3, 5, 4, window, past, n);
        EXPECT_EQ(got.with_cache, want.with_cache) << window << " " << past << " " << n;
        EXPECT_EQ(got.without_cache, want.without_cache) << window << " " << past << " " << n;
      }
  // one decode step at past p, no window: (p + 1) keys with the cache, (p + 1)(p + 2)/2 without
  const attn::KVWork step = attn::kv_cache_work({1, 1, 64, 64, 0}, 999, 1);
  EXPECT_EQ(step.with_cache, 128.0 * 1000.0);
  EXPECT_EQ(step.without_cache, 128.0 * 1000.0 * 1001.0 / 2.0);
}

TEST(KVCacheCost, BytesAreTheProductOfTheShape) {
  EXPECT_EQ(attn::kv_cache_bytes(32, 1, 32, 128, 128, 4096, 2), 2.0 * 1024 * 1024 * 1024);  // Llama 2 7B, float16
  for (double layers : {1.0, 3.0, 80.0})
    for (double kv_heads : {1.0, 8.0})
      for (double bytes : {0.5, 2.0, 4.0})
        EXPECT_EQ(attn::kv_cache_bytes(layers, 2, kv_heads, 7, 5, 1000, bytes),
                  ref::kv_cache_bytes(layers, 2, kv_heads, 7, 5, 1000, bytes));
}

}  // namespace
