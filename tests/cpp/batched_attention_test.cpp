// Batched heads (4-D and 3-D layouts), grouped-query heads, and every score
// rule (soft cap, causal with offsets, sliding window, per-batch key lengths,
// a boolean plane and an additive bias, broadcast and short) on both paths,
// the weights-kept one with its trace and the fused one, against the float64
// reference in batched_reference.h at every size in sizes().
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "batched_attention.h"
#include "batched_reference.h"
#include "test_util.h"

namespace {

using attn::Status;
using attn_test::Rng;

enum class Rule { none, causal, bottom_right, negative_offset, window, lengths, keep, keep_short, bias, bias_neginf, softcap, all };
const std::vector<Rule> kRules = {Rule::none, Rule::causal, Rule::bottom_right, Rule::negative_offset, Rule::window,
                                  Rule::lengths, Rule::keep, Rule::keep_short, Rule::bias, Rule::bias_neginf,
                                  Rule::softcap, Rule::all};
struct Heads { std::size_t heads, kv_heads; };
const std::vector<Heads> kGroupings = {{1, 1}, {3, 3}, {4, 2}, {6, 3}, {4, 1}};

std::vector<float> random_vec(std::size_t count, Rng& rng, float lo = -2.0f, float hi = 2.0f) {
  std::vector<float> x(count);
  for (float& e : x) e = rng.uniform(lo, hi);
  return x;
}

// A [pb, ph, n, cols] plane (pb ∈ {1, B}, ph ∈ {1, H}) and its expansion to
// the full [B, H, n, m] the reference reads; missing columns are `fill`.
template <class T>
struct Plane {
  std::vector<T> data;
  attn::ScorePlane<T> view;
  std::vector<T> full;
};
template <class T, class Gen>
Plane<T> make_plane(const ref::BatchedCase& c, std::size_t pb, std::size_t ph, std::size_t cols, T fill, Gen gen) {
  Plane<T> p;
  p.data.resize(pb * ph * c.n * cols);
  for (std::size_t b = 0; b < pb; ++b)
    for (std::size_t h = 0; h < ph; ++h)
      for (std::size_t i = 0; i < c.n; ++i)
        for (std::size_t j = 0; j < cols; ++j) p.data[((b * ph + h) * c.n + i) * cols + j] = gen(b, h, i, j);
  p.view = {p.data.data(), pb == 1 ? 0 : ph * c.n * cols, ph == 1 ? 0 : c.n * cols, cols, cols};
  p.full.assign(c.batch * c.heads * c.n * c.m, fill);
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t h = 0; h < c.heads; ++h)
      for (std::size_t i = 0; i < c.n; ++i)
        for (std::size_t j = 0; j < cols; ++j)
          p.full[((b * c.heads + h) * c.n + i) * c.m + j] = *(p.view.row(b, h, i) + j);
  return p;
}

// Heads-major data → rows-major [B, rows, H·cols] (the 3-D layout).
std::vector<float> to_rows_major(const std::vector<float>& x, std::size_t B, std::size_t H, std::size_t rows,
                                 std::size_t cols) {
  std::vector<float> y(x.size());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t t = 0; t < cols; ++t)
          y[((b * rows + i) * H + h) * cols + t] = x[((b * H + h) * rows + i) * cols + t];
  return y;
}

struct Setup {
  ref::BatchedCase c;
  attn::ScoreRules rules;
  Plane<std::uint8_t> keep;
  Plane<float> bias;
};

void add_rule(Rule rule, Setup& s, Rng& rng) {
  ref::BatchedCase& c = s.c;
  const auto m = static_cast<std::int32_t>(c.m), n = static_cast<std::int32_t>(c.n);
  if (rule == Rule::causal || rule == Rule::all) c.causal = true;
  if (rule == Rule::bottom_right || rule == Rule::window || rule == Rule::all) {
    c.causal = true;
    c.offsets = {m - n, m / 2};  // batch 0 bottom-right, batch 1 halfway
  }
  if (rule == Rule::negative_offset) {
    c.causal = true;
    c.offsets = {-2, -n};  // the first rows (batch 1: all rows) see nothing
  }
  if (rule == Rule::window || rule == Rule::all) c.window = 1 + c.m / 3;
  if (rule == Rule::lengths || rule == Rule::all) c.kv_lengths = {m, m / 2};
  if (rule == Rule::keep || rule == Rule::keep_short || rule == Rule::all) {
    const std::size_t cols = rule == Rule::keep_short ? c.m - c.m / 3 : c.m;
    s.keep = make_plane<std::uint8_t>(c, rule == Rule::keep ? c.batch : 1, 1, cols, 0,
                                      [&](auto, auto, auto, auto) { return static_cast<std::uint8_t>(rng.below(4) != 0); });
    c.keep = s.keep.full;
  }
  if (rule == Rule::bias || rule == Rule::bias_neginf || rule == Rule::all) {
    const bool neginf = rule == Rule::bias_neginf;
    s.bias = make_plane<float>(c, 1, c.heads, c.m, -INFINITY, [&](auto, std::size_t h, std::size_t i, std::size_t j) {
      if (neginf && rng.below(3) == 0) return -INFINITY;
      const double slope = std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(c.heads));  // ALiBi
      return static_cast<float>(-slope * std::fabs(static_cast<double>(i) - static_cast<double>(j)));
    });
    c.bias.assign(s.bias.full.begin(), s.bias.full.end());
  }
  if (rule == Rule::softcap || rule == Rule::all) c.softcap = 1.5;
  s.rules.scale = static_cast<float>(c.scale);
  s.rules.softcap = static_cast<float>(c.softcap);
  s.rules.causal = c.causal;
  s.rules.causal_offsets = c.offsets.empty() ? nullptr : c.offsets.data();
  s.rules.window = static_cast<std::uint32_t>(c.window);
  s.rules.kv_lengths = c.kv_lengths.empty() ? nullptr : c.kv_lengths.data();
  if (!s.keep.data.empty()) s.rules.keep = s.keep.view;
  if (!s.bias.data.empty()) s.rules.bias = s.bias.view;
}

::testing::AssertionResult trace_close(const std::vector<float>& actual, std::vector<double> expected, double atol) {
  for (double& e : expected)
    if (e == -INFINITY) e = -FLT_MAX;
  return attn_test::all_close(actual, expected, atol, 1e-4);
}

void check_case(std::size_t n, std::size_t m, std::size_t d, std::size_t dv, Heads hg, Rule rule, bool three_d,
                std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
               ", dv = " + std::to_string(dv) + ", heads " + std::to_string(hg.heads) + "/" +
               std::to_string(hg.kv_heads) + ", rule " + std::to_string(static_cast<int>(rule)) +
               (three_d ? ", 3-D" : ", 4-D"));
  Rng rng(seed);
  Setup s;
  s.c.batch = 2;
  s.c.heads = hg.heads;
  s.c.kv_heads = hg.kv_heads;
  s.c.n = n;
  s.c.m = m;
  s.c.d = d;
  s.c.dv = dv;
  s.c.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));  // the float32 scale the core uses
  add_rule(rule, s, rng);
  const std::size_t B = 2, H = hg.heads, G = hg.kv_heads;
  const auto q = random_vec(B * H * n * d, rng), k = random_vec(B * G * m * d, rng), v = random_vec(B * G * m * dv, rng, -1, 1);
  const ref::BatchedResult r = ref::batched_attention(s.c, q, k, v);
  const auto q3 = to_rows_major(q, B, H, n, d), k3 = to_rows_major(k, B, G, m, d), v3 = to_rows_major(v, B, G, m, dv);
  const attn::HeadTensor qt = three_d ? attn::rows_major(q3.data(), B, H, n, d) : attn::heads_major(q.data(), B, H, n, d);
  const attn::HeadTensor kt = three_d ? attn::rows_major(k3.data(), B, G, m, d) : attn::heads_major(k.data(), B, G, m, d);
  const attn::HeadTensor vt = three_d ? attn::rows_major(v3.data(), B, G, m, dv) : attn::heads_major(v.data(), B, G, m, dv);
  std::vector<float> out(B * H * n * dv, attn_test::kSentinel), fused(out), weights(B * H * n * m, attn_test::kSentinel);
  std::vector<float> scores(weights), capped(weights), biased(weights), scratch(attn::batched_fused_scratch_floats(dv));
  const attn::BatchedTrace trace{scores.data(), capped.data(), biased.data()};
  auto out_view = [&](std::vector<float>& o) {
    return three_d ? attn::rows_major(o.data(), B, H, n, dv) : attn::heads_major(o.data(), B, H, n, dv);
  };
  ASSERT_EQ(attn::batched_attention(qt, kt, vt, s.rules, out_view(out), weights.data(), &trace), Status::ok);
  ASSERT_EQ(attn::batched_fused_attention(qt, kt, vt, s.rules, out_view(fused), scratch.data()), Status::ok);
  std::vector<double> expected = r.output;  // in the 3-D layout when the call used it
  if (three_d)
    for (std::size_t bh = 0; bh < B * H; ++bh)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < dv; ++t)
          expected[((bh / H * n + i) * H + bh % H) * dv + t] = r.output[(bh * n + i) * dv + t];
  const double atol = 1e-5 * static_cast<double>(d + 1);
  EXPECT_TRUE(attn_test::all_close(out, expected, atol, 1e-4)) << "weights kept";
  EXPECT_TRUE(attn_test::all_close(fused, expected, atol, 1e-4)) << "fused";
  EXPECT_TRUE(attn_test::all_close(weights, r.weights, 1e-6, 1e-4)) << "weights";
  EXPECT_TRUE(trace_close(scores, r.scores, atol)) << "scores";
  EXPECT_TRUE(trace_close(capped, r.capped, atol)) << "capped";
  EXPECT_TRUE(trace_close(biased, r.biased, atol)) << "biased";
  for (std::size_t b = 0; b < B; ++b)  // a row that sees nothing is exactly zero on both paths
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < n; ++i) {
        bool any = false;
        for (std::size_t j = 0; j < m; ++j) any = any || r.biased[((b * H + h) * n + i) * m + j] != -INFINITY;
        if (any) continue;
        for (std::size_t t = 0; t < dv; ++t) {
          const std::size_t at = three_d ? ((b * n + i) * H + h) * dv + t : ((b * H + h) * n + i) * dv + t;
          ASSERT_EQ(out[at], 0.0f);
          ASSERT_EQ(fused[at], 0.0f);
        }
      }
}

class BatchedAttentionSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(BatchedAttentionSizes, BothPathsMatchReferenceForEveryRule) {
  const auto [n, m] = GetParam();
  const auto& sz = attn_test::sizes();
  for (std::size_t r = 0; r < kRules.size(); ++r) {
    const std::size_t d = sz[(n + r) % sz.size()], dv = sz[(m + 2 * r) % sz.size()];
    check_case(n, m, d, dv, kGroupings[(r + n) % kGroupings.size()], kRules[r], (r + m) % 2 == 1,
               attn_test::seed_for(n, m, r, 400));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, BatchedAttentionSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(BatchedAttention, EveryGroupingAndLayoutWithEveryRule) {
  for (const Heads& hg : kGroupings)
    for (Rule rule : kRules)
      for (bool three_d : {false, true}) check_case(5, 17, 8, 5, hg, rule, three_d, attn_test::seed_for(hg.heads, hg.kv_heads, static_cast<std::size_t>(rule), 401));
}

TEST(BatchedAttention, KeyCountsAcrossFusedBlocks) {
  for (std::size_t m : {63, 64, 65, 129})
    for (Rule rule : {Rule::none, Rule::bottom_right, Rule::all}) check_case(3, m, 4, 8, {4, 2}, rule, false, attn_test::seed_for(m, 402));
}

// The blocked fused kernel's own edges: a GQA group's rows (n × heads/kvHeads) in blocks of 128
// and tiles of 4, key blocks of 64 (fewer for wide keys: d = 300 packs 48), values in strips of
// 8 columns (and the columns left over), and keys too wide to pack (d > 2048, scored unpacked).
TEST(BatchedAttention, FusedRowAndKeyBlocks) {
  check_case(17, 130, 3, 9, {8, 2}, Rule::all, false, attn_test::seed_for(17, 403));      // 68 rows per group
  check_case(33, 70, 8, 12, {8, 2}, Rule::all, true, attn_test::seed_for(33, 408));       // 132 rows per group
  check_case(67, 257, 64, 64, {1, 1}, Rule::causal, false, attn_test::seed_for(67, 404));
  check_case(17, 129, 64, 16, {4, 1}, Rule::bottom_right, true, attn_test::seed_for(17, 405));
  check_case(5, 161, 300, 8, {2, 1}, Rule::window, false, attn_test::seed_for(5, 406));
  check_case(3, 11, 2049, 4, {2, 2}, Rule::bias, false, attn_test::seed_for(3, 407));
}

// Scores that overflow, in rows with no rule (the fused kernel's fast path: no rules pass, the
// overflow check folded into its max pass), in the second of three key blocks: a +∞ or NaN score
// makes its row NaN on both paths; a −∞ score counts as a hidden key (the row stays finite and
// equal on both paths); every other row is finite and equal on both paths.
TEST(BatchedAttention, OverflowingScoresInRowsWithoutRules) {
  const std::size_t H = 4, G = 2, n = 6, m = 130, d = 8, j = 70;  // key 70: block 2 of 64
  Rng rng(409);
  auto q = random_vec(H * n * d, rng), k = random_vec(G * m * d, rng), v = random_vec(G * m * d, rng);
  auto row = [&](std::size_t h, std::size_t i) { return q.data() + (h * n + i) * d; };
  for (std::size_t g = 0; g < G; ++g) k[(g * m + j) * d] = k[(g * m + j) * d + 1] = 1e30f;
  row(1, 2)[0] = 1e30f;                         // q·k = +∞ at key 70 (head 1 reads kv head 0)
  row(2, 3)[0] = 1e30f, row(2, 3)[1] = -3e30f;  // +∞ + −∞ = NaN (head 2 reads kv head 1)
  row(3, 4)[0] = -1e30f, row(3, 4)[1] = -1e30f; // −∞: a hidden key, nothing else is large
  for (std::size_t t = 0; t < 2; ++t)           // … so every other key's score stays small
    for (std::size_t c = 0; c < m; ++c)
      if (c != j) k[(1 * m + c) * d + t] = 0.0f;
  attn::ScoreRules rules;
  rules.scale = 0.25f;
  std::vector<float> out(H * n * d), fused(out), weights(H * n * m), scratch(attn::batched_fused_scratch_floats(d));
  const auto qt = attn::heads_major(q.data(), 1, H, n, d), kt = attn::heads_major(k.data(), 1, G, m, d);
  const auto vt = attn::heads_major(v.data(), 1, G, m, d);
  ASSERT_EQ(attn::batched_attention(qt, kt, vt, rules, attn::heads_major(out.data(), 1, H, n, d), weights.data(), nullptr),
            Status::ok);
  ASSERT_EQ(attn::batched_fused_attention(qt, kt, vt, rules, attn::heads_major(fused.data(), 1, H, n, d), scratch.data()),
            Status::ok);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t t = 0; t < d; ++t) {
        const std::size_t at = (h * n + i) * d + t;
        if ((h == 1 && i == 2) || (h == 2 && i == 3)) {
          EXPECT_TRUE(std::isnan(out[at]) && std::isnan(fused[at])) << "row " << h << "/" << i << ": " << fused[at];
        } else {
          ASSERT_TRUE(std::isfinite(fused[at])) << "row " << h << "/" << i;
          EXPECT_NEAR(fused[at], out[at], 1e-5) << "row " << h << "/" << i;
        }
      }
}

// A decode step against a cache: the new rows attend to past ++ new with the
// bottom-right offset, and equal the matching rows of full causal attention.
TEST(BatchedAttention, CacheAppendPlusOffsetEqualsFullCausal) {
  const std::size_t B = 2, H = 4, G = 2, past = 5, fresh = 3, T = past + fresh, d = 8;
  Rng rng(403);
  const auto q = random_vec(B * H * T * d, rng), k = random_vec(B * G * T * d, rng), v = random_vec(B * G * T * d, rng);
  std::vector<float> pk, pv, fk, fv;
  for (std::size_t bg = 0; bg < B * G; ++bg) {
    pk.insert(pk.end(), k.begin() + bg * T * d, k.begin() + (bg * T + past) * d);
    pv.insert(pv.end(), v.begin() + bg * T * d, v.begin() + (bg * T + past) * d);
    fk.insert(fk.end(), k.begin() + (bg * T + past) * d, k.begin() + (bg + 1) * T * d);
    fv.insert(fv.end(), v.begin() + (bg * T + past) * d, v.begin() + (bg + 1) * T * d);
  }
  const auto fk3 = to_rows_major(fk, B, G, fresh, d);
  std::vector<float> present_k(k.size(), attn_test::kSentinel), present_v(v.size(), attn_test::kSentinel);
  ASSERT_EQ(attn::append_to_cache(attn::heads_major(pk.data(), B, G, past, d), attn::rows_major(fk3.data(), B, G, fresh, d),
                                  attn::heads_major(present_k.data(), B, G, T, d)), Status::ok);
  ASSERT_EQ(attn::append_to_cache(attn::heads_major(pv.data(), B, G, past, d), attn::heads_major(fv.data(), B, G, fresh, d),
                                  attn::heads_major(present_v.data(), B, G, T, d)), Status::ok);
  EXPECT_EQ(present_k, k);
  EXPECT_EQ(present_v, v);
  std::vector<float> qn;  // the last `fresh` query rows of each head
  for (std::size_t bh = 0; bh < B * H; ++bh) qn.insert(qn.end(), q.begin() + (bh * T + past) * d, q.begin() + (bh + 1) * T * d);
  attn::ScoreRules full, step;
  full.scale = step.scale = 0.25f;
  full.causal = step.causal = true;
  step.causal_offset = static_cast<std::int32_t>(past);
  std::vector<float> y_full(B * H * T * d), y_step(B * H * fresh * d), w_full(B * H * T * T), scratch(attn::batched_fused_scratch_floats(d));
  ASSERT_EQ(attn::batched_attention(attn::heads_major(q.data(), B, H, T, d), attn::heads_major(k.data(), B, G, T, d),
                                    attn::heads_major(v.data(), B, G, T, d), full, attn::heads_major(y_full.data(), B, H, T, d),
                                    w_full.data(), nullptr), Status::ok);
  ASSERT_EQ(attn::batched_fused_attention(attn::heads_major(qn.data(), B, H, fresh, d), attn::heads_major(present_k.data(), B, G, T, d),
                                          attn::heads_major(present_v.data(), B, G, T, d), step,
                                          attn::heads_major(y_step.data(), B, H, fresh, d), scratch.data()), Status::ok);
  for (std::size_t bh = 0; bh < B * H; ++bh)
    for (std::size_t i = 0; i < fresh; ++i)
      for (std::size_t t = 0; t < d; ++t)
        EXPECT_NEAR(y_step[(bh * fresh + i) * d + t], y_full[(bh * T + past + i) * d + t], 2e-6);
}

TEST(BatchedAttention, RejectsWhatDoesNotFit) {
  std::vector<float> x(2 * 6 * 4 * 4, 0.5f), out(x.size()), w(2 * 6 * 4 * 4), scratch(attn::batched_fused_scratch_floats(4));
  const auto q = attn::heads_major(x.data(), 2, 6, 4, 4), kv4 = attn::heads_major(x.data(), 2, 4, 4, 4);
  const auto kv3 = attn::heads_major(x.data(), 2, 3, 4, 4);
  const auto o = attn::heads_major(out.data(), 2, 6, 4, 4);
  attn::ScoreRules rules;
  EXPECT_EQ(attn::batched_attention(q, kv4, kv4, rules, o, w.data(), nullptr), Status::shape_mismatch);  // 6 % 4 != 0
  EXPECT_EQ(attn::batched_fused_attention(q, kv4, kv4, rules, o, scratch.data()), Status::shape_mismatch);
  EXPECT_EQ(attn::batched_attention(q, kv3, kv3, rules, o, w.data(), nullptr), Status::ok);
  const std::int32_t too_long[2] = {4, 5};
  rules.kv_lengths = too_long;
  EXPECT_EQ(attn::batched_attention(q, kv3, kv3, rules, o, w.data(), nullptr), Status::bad_mask);
  rules.kv_lengths = nullptr;
  rules.softcap = -1.0f;
  EXPECT_EQ(attn::batched_fused_attention(q, kv3, kv3, rules, o, scratch.data()), Status::bad_argument);
  rules.softcap = 0.0f;
  const float wide[5] = {};
  rules.bias = {wide, 0, 0, 0, 5};
  EXPECT_EQ(attn::batched_attention(q, kv3, kv3, rules, o, w.data(), nullptr), Status::bad_mask);
}

}  // namespace
