// ALiBi: the slopes against the paper's values (8 heads: 1/2 … 1/256) and its
// reference code for other head counts (6, 12, …), the bias against a plain
// reference (offsets of either sign, symmetric or causal with the future
// hidden), batched attention with that bias against the float64 reference,
// and every Status path.
#include "alibi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "batched_attention.h"
#include "batched_reference.h"
#include "test_util.h"

namespace {

using attn::Status;

// get_slopes from the paper's reference code (ofirpress/attention_with_linear_biases), transcribed.
std::vector<double> paper_slopes(std::size_t n) {
  const auto power_of_2 = [](std::size_t p) {
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(p)) - 3.0)));
    std::vector<double> s;
    for (std::size_t i = 0; i < p; ++i) s.push_back(start * std::pow(start, static_cast<double>(i)));
    return s;
  };
  const double l = std::log2(static_cast<double>(n));
  if (l == std::floor(l)) return power_of_2(n);
  const std::size_t closest = static_cast<std::size_t>(std::pow(2.0, std::floor(l)));
  std::vector<double> s = power_of_2(closest);
  const std::vector<double> twice = paper_slopes(2 * closest);
  for (std::size_t i = 0; i < twice.size() && s.size() < n; i += 2) s.push_back(twice[i]);
  return s;
}

std::vector<float> slopes(std::size_t heads) {
  std::vector<float> s(heads, attn_test::kSentinel);
  EXPECT_EQ(attn::alibi_slopes(heads, s.data()), Status::ok);
  return s;
}

TEST(AlibiSlopes, EightHeadsAreTheHalvingsOfThePaper) {
  const std::vector<float> want = {1 / 2.0f, 1 / 4.0f, 1 / 8.0f, 1 / 16.0f, 1 / 32.0f, 1 / 64.0f, 1 / 128.0f, 1 / 256.0f};
  EXPECT_EQ(slopes(8), want);
}

TEST(AlibiSlopes, OtherHeadCountsFollowTheReferenceCode) {
  // 6 = 4 + 2: the slopes of 4 heads (2^-2 … 2^-8), then slopes 1 and 3 of 8 heads (2^-1, 2^-3).
  const std::vector<float> six = {1 / 4.0f, 1 / 16.0f, 1 / 64.0f, 1 / 256.0f, 1 / 2.0f, 1 / 8.0f};
  EXPECT_EQ(slopes(6), six);
  // 12 = 8 + 4: 2^-1 … 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  const auto twelve = slopes(12);
  for (std::size_t h = 0; h < 8; ++h) EXPECT_EQ(twelve[h], std::ldexp(1.0f, -static_cast<int>(h + 1)));
  for (std::size_t k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(twelve[8 + k], static_cast<float>(std::exp2(-0.5 - static_cast<double>(k))));
  for (std::size_t heads = 1; heads <= 80; ++heads) {
    const auto got = slopes(heads);
    const auto want = paper_slopes(heads);
    ASSERT_EQ(want.size(), heads);
    for (std::size_t h = 0; h < heads; ++h)
      ASSERT_NEAR(got[h], want[h], 1e-7 * want[h]) << heads << " heads, head " << h;
  }
}

TEST(AlibiSlopes, PowersOfTwoAreGeometric) {
  for (std::size_t heads : {1u, 2u, 4u, 16u, 32u, 64u}) {
    const auto s = slopes(heads);
    EXPECT_FLOAT_EQ(s[0], static_cast<float>(std::exp2(-8.0 / static_cast<double>(heads))));
    for (std::size_t h = 1; h < heads; ++h) EXPECT_NEAR(s[h] / s[h - 1], s[0], 1e-6);
  }
}

// The bias written from its definition: −m_h·(i + offset − j), −∞ for the future unless symmetric.
std::vector<double> reference_bias(std::size_t heads, std::size_t n, std::size_t m, long long offset, bool symmetric) {
  std::vector<double> b;
  const auto s = paper_slopes(heads);
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        const double distance = static_cast<double>(static_cast<long long>(i) + offset - static_cast<long long>(j));
        b.push_back(symmetric || distance >= 0 ? -s[h] * std::fabs(distance) : -std::numeric_limits<double>::infinity());
      }
  return b;
}

std::vector<float> bias(std::size_t heads, std::size_t n, std::size_t m, long long offset, bool symmetric) {
  std::vector<float> out(heads * n * m, attn_test::kSentinel);
  EXPECT_EQ(attn::alibi_bias({offset, symmetric}, attn::heads_major(out.data(), 1, heads, n, m)), Status::ok);
  return out;
}

TEST(AlibiBias, MatchesThePlainDefinition) {
  for (std::size_t heads : {1u, 3u, 8u, 12u})
    for (std::size_t n : {0u, 1u, 4u, 9u})
      for (std::size_t m : {0u, 1u, 4u, 13u})
        for (long long offset : {0LL, 3LL, -2LL, 100LL})
          for (bool symmetric : {false, true}) {
            const auto got = bias(heads, n, m, offset, symmetric);
            EXPECT_TRUE(attn_test::all_close(got, reference_bias(heads, n, m, offset, symmetric), 0.0, 1e-7))
                << heads << " heads, " << n << "×" << m << ", offset " << offset << ", symmetric " << symmetric;
          }
}

TEST(AlibiBias, KnownValuesAndAPositiveZeroDiagonal) {
  // 2 heads (slopes 1/16, 1/256), 2 queries at positions 1 and 2 (offset 1) over 3 keys.
  const auto b = bias(2, 2, 3, 1, false);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> want = {-1 / 16.0f, 0.0f, -inf, -2 / 16.0f, -1 / 16.0f, 0.0f,
                                   -1 / 256.0f, 0.0f, -inf, -2 / 256.0f, -1 / 256.0f, 0.0f};
  EXPECT_EQ(b, want);
  EXPECT_FALSE(std::signbit(b[1]));
  EXPECT_EQ(bias(1, 1, 3, 0, true), (std::vector<float>{0.0f, -1 / 256.0f, -2 / 256.0f}));
}

// As the bias of batched attention (both paths), ALiBi gives the float64 reference's weights and output.
TEST(AlibiBias, BatchedAttentionWithTheBiasMatchesTheReference) {
  attn_test::Rng rng(8);
  for (bool symmetric : {false, true})
    for (long long offset : {0LL, 4LL}) {
      ref::BatchedCase c;
      c.batch = 2, c.heads = 4, c.kv_heads = 2, c.n = 5, c.m = 9, c.d = 8, c.dv = 3, c.scale = 1.0 / std::sqrt(8.0);
      const auto b = bias(c.heads, c.n, c.m, offset, symmetric);
      for (std::size_t rep = 0; rep < c.batch; ++rep) c.bias.insert(c.bias.end(), b.begin(), b.end());
      std::vector<float> q(c.batch * c.heads * c.n * c.d), k(c.batch * c.kv_heads * c.m * c.d), v(c.batch * c.kv_heads * c.m * c.dv);
      for (auto* t : {&q, &k, &v})
        for (float& x : *t) x = rng.uniform(-2.0f, 2.0f);
      // the reference adds the −∞ of future keys like any bias: they get weight 0, as in the core
      const auto want = ref::batched_attention(c, q, k, v);
      attn::ScoreRules rules;
      rules.scale = static_cast<float>(c.scale);
      rules.bias = {b.data(), 0, c.n * c.m, c.m, c.m};  // [1, heads, n, m] broadcast over the batch
      const auto qt = attn::heads_major(q.data(), c.batch, c.heads, c.n, c.d);
      const auto kt = attn::heads_major(k.data(), c.batch, c.kv_heads, c.m, c.d);
      const auto vt = attn::heads_major(v.data(), c.batch, c.kv_heads, c.m, c.dv);
      std::vector<float> out(want.output.size()), weights(want.weights.size()), fused(want.output.size());
      ASSERT_EQ(attn::batched_attention(qt, kt, vt, rules, attn::heads_major(out.data(), c.batch, c.heads, c.n, c.dv), weights.data(), nullptr), Status::ok);
      std::vector<float> scratch(attn::batched_fused_scratch_floats(c.dv));
      ASSERT_EQ(attn::batched_fused_attention(qt, kt, vt, rules, attn::heads_major(fused.data(), c.batch, c.heads, c.n, c.dv), scratch.data()), Status::ok);
      EXPECT_TRUE(attn_test::all_close(weights, want.weights, 1e-6, 1e-5));
      EXPECT_TRUE(attn_test::all_close(out, want.output, 1e-5, 1e-5));
      EXPECT_TRUE(attn_test::all_close(fused, want.output, 1e-5, 1e-4));
    }
}

TEST(AlibiBias, RefusesNoHeadsAndABatch) {
  std::vector<float> out(12);
  EXPECT_EQ(attn::alibi_slopes(0, out.data()), Status::bad_argument);
  EXPECT_EQ(attn::alibi_slopes(3, nullptr), Status::bad_argument);
  EXPECT_EQ(attn::alibi_bias({}, attn::heads_major(out.data(), 1, 0, 3, 4)), Status::bad_argument);
  EXPECT_EQ(attn::alibi_bias({}, attn::heads_major(out.data(), 2, 1, 2, 3)), Status::bad_argument);
}

}  // namespace
