// Multi-head attention: projections, every head's weights and traced
// intermediates, the concatenation and the W_O output against the float64
// reference, for every mask kind at every size in sizes(); properties
// (heads attend independently, one head is self-attention, permutation
// equivariance); every Status path.
#include "multi_head.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "attention.h"
#include "reference.h"
#include "test_util.h"

namespace {

using attn::Mask;
using attn::MaskKind;
using attn::Status;
using attn_test::kSentinel;
using attn_test::MaskCase;
using attn_test::Mat;
using attn_test::Rng;

// Everything a multi-head call writes, filled with the sentinel.
struct Buffers {
  std::size_t n, heads;
  Mat q, k, v, concat, out;
  std::vector<float> weights, scores, scaled, masked;  // heads × n × n
  Buffers(std::size_t n_, std::size_t heads_, std::size_t hk, std::size_t hv, std::size_t d_out)
      : n(n_),
        heads(heads_),
        q(n_, hk, kSentinel),
        k(n_, hk, kSentinel),
        v(n_, hv, kSentinel),
        concat(n_, hv, kSentinel),
        out(n_, d_out, kSentinel),
        weights(heads_ * n_ * n_, kSentinel),
        scores(weights),
        scaled(weights),
        masked(weights) {}
  attn::MultiHeadBuffers view(bool traced = true) {
    attn::MultiHeadBuffers b{{q.view(), k.view(), v.view()}, weights.data(), concat.view(), out.view(), {}};
    if (traced) b.trace = {scores.data(), scaled.data(), masked.data()};
    return b;
  }
  attn::ConstMatrixView head(const std::vector<float>& all, std::size_t h) const {
    return attn::dense(all.data() + h * n * n, n, n);
  }
  ::testing::AssertionResult untouched() const {
    for (const auto* buf : {&q.data, &k.data, &v.data, &concat.data, &out.data, &weights, &scores, &scaled, &masked})
      if (auto r = attn_test::untouched(*buf, "multi-head buffer"); !r) return r;
    return ::testing::AssertionSuccess();
  }
};

struct Layer {
  Mat x, w_q, w_k, w_v, w_o;
};

Layer random_layer(std::size_t n, std::size_t d_model, std::size_t hk, std::size_t hv, std::size_t d_out, Rng& rng) {
  const float a = 1.0f / std::sqrt(static_cast<float>(d_model)), o = 1.0f / std::sqrt(static_cast<float>(hv));
  return {attn_test::random_mat(n, d_model, rng), attn_test::random_mat(d_model, hk, rng, -a, a),
          attn_test::random_mat(d_model, hk, rng, -a, a), attn_test::random_mat(d_model, hv, rng, -a, a),
          attn_test::random_mat(hv, d_out, rng, -o, o)};
}

Status run(const Layer& l, std::size_t heads, const Mask& mask, Buffers& b, bool traced = true) {
  return attn::multi_head_attention(l.x.cview(), heads, l.w_q.cview(), l.w_k.cview(), l.w_v.cview(), l.w_o.cview(),
                                    mask, b.view(traced));
}

std::size_t other_size(std::size_t d, std::size_t shift) {
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    if (s[t] == d) return s[(t + shift) % s.size()];
  return d;
}

// n tokens of width d_model (the two parameters); per-head d_k over every
// size, per-head d_v and d_out other sizes, 1 to 4 heads, every mask kind.
class MultiHeadSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(MultiHeadSizes, MatchesReferenceWithEveryIntermediate) {
  const auto [n, d_model] = GetParam();
  for (std::size_t d_k : attn_test::sizes()) {
    for (MaskKind kind : attn_test::all_kinds()) {
      const std::size_t heads = 1 + (d_k + static_cast<std::size_t>(kind)) % 4;
      const std::size_t d_v = other_size(d_k, 5), d_out = other_size(d_k, 2);
      SCOPED_TRACE("heads = " + std::to_string(heads) + ", d_k = " + std::to_string(d_k) + ", d_v = " +
                   std::to_string(d_v) + ", d_out = " + std::to_string(d_out) + ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, d_model, d_k, 70 + static_cast<std::size_t>(kind)));
      const Layer l = random_layer(n, d_model, heads * d_k, heads * d_v, d_out, rng);
      const MaskCase mc = attn_test::make_mask(kind, n, n, rng);
      Buffers b(n, heads, heads * d_k, heads * d_v, d_out);
      ASSERT_EQ(run(l, heads, mc.mask(), b), Status::ok);
      const ref::MultiHead r = ref::multi_head_attention(l.x.to_double(), heads, l.w_q.to_double(), l.w_k.to_double(),
                                                         l.w_v.to_double(), l.w_o.to_double(), mc.vis);
      const double atol = 2e-6 * static_cast<double>(d_model + d_k + 1);
      EXPECT_TRUE(attn_test::all_close(b.q.cview(), r.q, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(b.k.cview(), r.k, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(b.v.cview(), r.v, atol, 1e-5));
      for (std::size_t h = 0; h < heads; ++h) {
        SCOPED_TRACE("head " + std::to_string(h));
        const ref::Attention& rh = r.heads[h];
        EXPECT_TRUE(attn_test::all_close(b.head(b.scores, h), rh.scores, atol, 1e-5));
        EXPECT_TRUE(attn_test::all_close(b.head(b.scaled, h), rh.scaled, atol, 1e-5));
        if (kind != MaskKind::none) {
          EXPECT_TRUE(attn_test::all_close(b.head(b.masked, h), rh.masked, atol, 1e-5));
        }
        EXPECT_TRUE(attn_test::all_close(b.head(b.weights, h), rh.weights, 2.0 * atol, 2e-5));
        // masked weights exactly 0, rows summing to 1 or all zero
        for (std::size_t i = 0; i < n; ++i) {
          double sum = 0.0;
          bool any = false;
          for (std::size_t j = 0; j < n; ++j) {
            const float w = b.head(b.weights, h).at(i, j);
            if (!mc.vis[i][j]) {
              ASSERT_EQ(w, 0.0f) << i << "," << j;
            }
            any = any || mc.vis[i][j];
            sum += w;
          }
          EXPECT_NEAR(sum, any ? 1.0 : 0.0, 1e-5) << "row " << i;
        }
      }
      if (kind == MaskKind::none) {
        EXPECT_TRUE(attn_test::untouched(b.masked, "masked trace without a mask"));
      }
      EXPECT_TRUE(attn_test::all_close(b.concat.cview(), r.concat, 4.0 * atol, 1e-4));
      EXPECT_TRUE(attn_test::all_close(b.out.cview(), r.output, 8.0 * atol, 1e-4));
      // A fully masked query (valid length 0, matrix row 1) has an all-zero concat row.
      for (std::size_t i = 0; i < n; ++i)
        if (std::none_of(mc.vis[i].begin(), mc.vis[i].end(), [](bool s) { return s; })) {
          for (std::size_t j = 0; j < heads * d_v; ++j) ASSERT_EQ(b.concat.at(i, j), 0.0f) << i << "," << j;
        }

      // Without a trace: the same results, bit for bit.
      Buffers plain(n, heads, heads * d_k, heads * d_v, d_out);
      ASSERT_EQ(run(l, heads, mc.mask(), plain, false), Status::ok);
      EXPECT_EQ(plain.out.data, b.out.data);
      EXPECT_EQ(plain.weights, b.weights);
    }
  }
}

// The packed layer (weights packed once, fused per-head attention): the same
// concat and output as the reference, for every mask kind.
TEST_P(MultiHeadSizes, PackedLayerMatchesReference) {
  const auto [n, d_model] = GetParam();
  for (std::size_t d_k : attn_test::sizes()) {
    for (MaskKind kind : attn_test::all_kinds()) {
      const std::size_t heads = 1 + (d_k + static_cast<std::size_t>(kind) + 1) % 4;
      const std::size_t d_v = other_size(d_k, 3), d_out = other_size(d_k, 6);
      SCOPED_TRACE("heads = " + std::to_string(heads) + ", d_k = " + std::to_string(d_k) + ", d_v = " +
                   std::to_string(d_v) + ", d_out = " + std::to_string(d_out) + ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, d_model, d_k, 75 + static_cast<std::size_t>(kind)));
      const Layer l = random_layer(n, d_model, heads * d_k, heads * d_v, d_out, rng);
      const MaskCase mc = attn_test::make_mask(kind, n, n, rng);
      std::vector<float> storage(attn::multi_head_layer_floats(d_model, heads, d_k, d_v, d_out));
      attn::MultiHeadLayer layer;
      ASSERT_EQ(attn::pack_multi_head(l.w_q.cview(), l.w_k.cview(), l.w_v.cview(), l.w_o.cview(), heads, storage.data(),
                                      layer),
                Status::ok);
      EXPECT_EQ(layer.d_model, d_model);
      EXPECT_EQ(layer.heads, heads);
      EXPECT_EQ(layer.d_k, d_k);
      EXPECT_EQ(layer.d_v, d_v);
      EXPECT_EQ(layer.d_out, d_out);
      std::vector<float> scratch(attn::multi_head_forward_floats(layer, n), kSentinel);
      Mat concat(n, heads * d_v, kSentinel, 1), out(n, d_out, kSentinel, 2);
      ASSERT_EQ(attn::multi_head_forward(layer, l.x.cview(), mc.mask(), concat.view(), out.view(), scratch.data()),
                Status::ok);
      const ref::MultiHead r = ref::multi_head_attention(l.x.to_double(), heads, l.w_q.to_double(), l.w_k.to_double(),
                                                         l.w_v.to_double(), l.w_o.to_double(), mc.vis);
      const double atol = 2e-6 * static_cast<double>(d_model + d_k + 1);
      EXPECT_TRUE(attn_test::all_close(concat.cview(), r.concat, 4.0 * atol, 1e-4));
      EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 8.0 * atol, 1e-4));
      EXPECT_TRUE(attn_test::padding_untouched(concat));
      EXPECT_TRUE(attn_test::padding_untouched(out));
      for (std::size_t i = 0; i < n; ++i)
        if (std::none_of(mc.vis[i].begin(), mc.vis[i].end(), [](bool s) { return s; })) {
          for (std::size_t j = 0; j < heads * d_v; ++j) ASSERT_EQ(concat.at(i, j), 0.0f) << i << "," << j;
        }
      // A second forward pass through the same packed weights gives the same result.
      Mat out2(n, d_out, kSentinel, 2), concat2(n, heads * d_v, kSentinel, 1);
      ASSERT_EQ(attn::multi_head_forward(layer, l.x.cview(), mc.mask(), concat2.view(), out2.view(), scratch.data()),
                Status::ok);
      EXPECT_EQ(out2.data, out.data);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, MultiHeadSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(MultiHead, OneHeadIsSelfAttentionThenWo) {
  for (std::size_t n : {1u, 4u, 17u}) {
    Rng rng(attn_test::seed_for(n, 0, 0, 80));
    const Layer l = random_layer(n, 6, 5, 3, 4, rng);
    Buffers b(n, 1, 5, 3, 4);
    ASSERT_EQ(run(l, 1, Mask::causal(), b), Status::ok);
    Mat pq(n, 5), pk(n, 5), pv(n, 3), w(n, n), out(n, 3);
    ASSERT_EQ(attn::self_attention(l.x.cview(), l.w_q.cview(), l.w_k.cview(), l.w_v.cview(), Mask::causal(),
                                   {pq.view(), pk.view(), pv.view()}, w.view(), out.view()),
              Status::ok);
    EXPECT_EQ(b.concat.data, out.data) << "n = " << n;
    EXPECT_EQ(b.weights, w.data) << "n = " << n;
  }
}

TEST(MultiHead, HeadsAttendIndependently) {
  // Changing head 1's query weights changes head 1's block of concat only.
  const std::size_t n = 9, d_model = 8, heads = 2, d_k = 4, d_v = 3;
  Rng rng(81);
  Layer l = random_layer(n, d_model, heads * d_k, heads * d_v, 5, rng);
  Buffers before(n, heads, heads * d_k, heads * d_v, 5), after(n, heads, heads * d_k, heads * d_v, 5);
  ASSERT_EQ(run(l, heads, Mask{}, before), Status::ok);
  for (std::size_t p = 0; p < d_model; ++p)
    for (std::size_t j = d_k; j < 2 * d_k; ++j) l.w_q.at(p, j) *= 3.0f;
  ASSERT_EQ(run(l, heads, Mask{}, after), Status::ok);
  bool head1_changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d_v; ++j) EXPECT_EQ(after.concat.at(i, j), before.concat.at(i, j)) << i << "," << j;
    for (std::size_t j = d_v; j < 2 * d_v; ++j) head1_changed |= after.concat.at(i, j) != before.concat.at(i, j);
  }
  EXPECT_TRUE(head1_changed);
}

TEST(MultiHead, PermutationEquivariantWithoutMask) {
  const std::size_t n = 17, d_model = 8, heads = 4, d_k = 2, d_v = 3, d_out = 5;
  Rng rng(82);
  const Layer l = random_layer(n, d_model, heads * d_k, heads * d_v, d_out, rng);
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  Layer pl = l;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d_model; ++j) pl.x.at(i, j) = l.x.at(perm[i], j);
  Buffers b(n, heads, heads * d_k, heads * d_v, d_out), pb(n, heads, heads * d_k, heads * d_v, d_out);
  ASSERT_EQ(run(l, heads, Mask{}, b), Status::ok);
  ASSERT_EQ(run(pl, heads, Mask{}, pb), Status::ok);
  ref::MatD expected(n, d_out);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d_out; ++j) expected.at(i, j) = b.out.at(perm[i], j);
  EXPECT_TRUE(attn_test::all_close(pb.out.cview(), expected, 1e-6, 1e-5));
}

// ---- every Status path: the right code and nothing written

TEST(MultiHeadStatus, ZeroHeadsIsBadArgument) {
  Rng rng(83);
  const Layer l = random_layer(4, 6, 4, 4, 3, rng);
  Buffers b(4, 1, 4, 4, 3);
  EXPECT_EQ(run(l, 0, Mask{}, b), Status::bad_argument);
  EXPECT_TRUE(b.untouched());
}

TEST(MultiHeadStatus, HeadsNotDividingTheWidths) {
  Rng rng(84);
  {
    const Layer l = random_layer(4, 6, 6, 8, 3, rng);  // 4 heads: 6 query columns do not split
    Buffers b(4, 4, 6, 8, 3);
    EXPECT_EQ(run(l, 4, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
  {
    const Layer l = random_layer(4, 6, 6, 8, 3, rng);  // 3 heads: 8 value columns do not split
    Buffers b(4, 3, 6, 8, 3);
    EXPECT_EQ(run(l, 3, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
  {
    const Layer l = random_layer(4, 6, 6, 8, 3, rng);  // 7 heads: more heads than columns
    Buffers b(4, 7, 6, 8, 3);
    EXPECT_EQ(run(l, 7, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
}

TEST(MultiHeadStatus, WeightShapeMismatches) {
  const std::size_t n = 4, d_model = 6, heads = 2, hk = 4, hv = 6, d_out = 3;
  Rng rng(85);
  const Layer good = random_layer(n, d_model, hk, hv, d_out, rng);
  struct Case {
    const char* what;
    Layer layer;
  };
  std::vector<Case> cases;
  cases.push_back({"W_Q rows", good});
  cases.back().layer.w_q = Mat(d_model + 1, hk);
  cases.push_back({"W_K rows", good});
  cases.back().layer.w_k = Mat(d_model - 1, hk);
  cases.push_back({"W_V rows", good});
  cases.back().layer.w_v = Mat(d_model + 1, hv);
  cases.push_back({"W_K cols differ from W_Q cols", good});
  cases.back().layer.w_k = Mat(d_model, hk + 2);
  cases.push_back({"W_O rows differ from W_V cols", good});
  cases.back().layer.w_o = Mat(hv + 2, d_out);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Buffers b(n, heads, hk, hv, d_out);
    EXPECT_EQ(run(c.layer, heads, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
  Buffers ok(n, heads, hk, hv, d_out);
  EXPECT_EQ(run(good, heads, Mask{}, ok), Status::ok);
}

TEST(MultiHeadStatus, BufferShapeMismatches) {
  const std::size_t n = 4, d_model = 6, heads = 2, hk = 4, hv = 6, d_out = 3;
  Rng rng(86);
  const Layer l = random_layer(n, d_model, hk, hv, d_out, rng);
  for (int which = 0; which < 5; ++which) {
    SCOPED_TRACE("buffer " + std::to_string(which));
    Buffers b(n, heads, hk, hv, d_out);
    Mat wrong(n + 1, 8, kSentinel);
    attn::MultiHeadBuffers views = b.view();
    attn::MatrixView* target[] = {&views.qkv.q, &views.qkv.k, &views.qkv.v, &views.concat, &views.out};
    *target[which] = attn::dense(wrong.ptr(), which % 2 ? n : n + 1, which % 2 ? 7 : (which == 4 ? d_out : hk));
    EXPECT_EQ(attn::multi_head_attention(l.x.cview(), heads, l.w_q.cview(), l.w_k.cview(), l.w_v.cview(), l.w_o.cview(),
                                         Mask{}, views),
              Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
    EXPECT_TRUE(attn_test::untouched(wrong.data, "wrong-shaped buffer"));
  }
}

TEST(MultiHeadStatus, BadMasks) {
  const std::size_t n = 4;
  Rng rng(87);
  const Layer l = random_layer(n, 6, 4, 4, 3, rng);
  const std::vector<std::int32_t> too_long = {1, 5, 2, 0}, negative = {1, 2, -3, 0};
  const std::vector<std::uint8_t> bits(n * 5, 1);
  Mask unknown;
  unknown.kind = static_cast<MaskKind>(4);
  for (const Mask& mask : {Mask::lengths(too_long.data()), Mask::lengths(negative.data()), Mask::lengths(nullptr),
                           Mask::matrix(bits.data(), n, n + 1), Mask::matrix(bits.data(), n + 1, n), unknown}) {
    Buffers b(n, 2, 4, 4, 3);
    EXPECT_EQ(run(l, 2, mask, b), Status::bad_mask) << "kind " << static_cast<int>(mask.kind);
    EXPECT_TRUE(b.untouched());
  }
}

TEST(MultiHeadLayerStatus, PackRejectsBadHeadsAndShapes) {
  const std::size_t d_model = 6, hk = 4, hv = 6, d_out = 3;
  Rng rng(88);
  const Layer good = random_layer(2, d_model, hk, hv, d_out, rng);
  struct Case {
    const char* what;
    Layer layer;
    std::size_t heads;
    Status expected;
  };
  std::vector<Case> cases;
  cases.push_back({"zero heads", good, 0, Status::bad_argument});
  cases.push_back({"heads not dividing W_Q cols", good, 3, Status::shape_mismatch});
  cases.push_back({"heads not dividing W_V cols", good, 4, Status::shape_mismatch});
  cases.push_back({"W_K rows", good, 2, Status::shape_mismatch});
  cases.back().layer.w_k = Mat(d_model + 1, hk);
  cases.push_back({"W_V rows", good, 2, Status::shape_mismatch});
  cases.back().layer.w_v = Mat(d_model - 1, hv);
  cases.push_back({"W_K cols", good, 2, Status::shape_mismatch});
  cases.back().layer.w_k = Mat(d_model, hk + 2);
  cases.push_back({"W_O rows", good, 2, Status::shape_mismatch});
  cases.back().layer.w_o = Mat(hv + 1, d_out);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<float> storage(attn::multi_head_layer_floats(d_model, 2, 2, 3, d_out) + 64, kSentinel);
    attn::MultiHeadLayer layer;
    EXPECT_EQ(attn::pack_multi_head(c.layer.w_q.cview(), c.layer.w_k.cview(), c.layer.w_v.cview(), c.layer.w_o.cview(),
                                    c.heads, storage.data(), layer),
              c.expected);
    EXPECT_TRUE(attn_test::untouched(storage, "packed storage"));
  }
}

TEST(MultiHeadLayerStatus, ForwardRejectsBadShapesAndMasks) {
  const std::size_t n = 4, d_model = 6, heads = 2, d_k = 2, d_v = 3, d_out = 5;
  Rng rng(89);
  const Layer l = random_layer(n, d_model, heads * d_k, heads * d_v, d_out, rng);
  std::vector<float> storage(attn::multi_head_layer_floats(d_model, heads, d_k, d_v, d_out));
  attn::MultiHeadLayer layer;
  ASSERT_EQ(
      attn::pack_multi_head(l.w_q.cview(), l.w_k.cview(), l.w_v.cview(), l.w_o.cview(), heads, storage.data(), layer),
      Status::ok);
  const Mat x_wide(n, d_model + 1, 1.0f);
  const std::vector<std::int32_t> too_long = {1, 5, 2, 0};
  const std::vector<std::uint8_t> bits(n * (n + 1), 1);
  struct Case {
    const char* what;
    const Mat* x;
    std::size_t concat_rows, concat_cols, out_rows, out_cols;
    Mask mask;
    Status expected;
  };
  const Case cases[] = {
      {"X cols != d_model", &x_wide, n, heads * d_v, n, d_out, Mask{}, Status::shape_mismatch},
      {"concat rows", &l.x, n + 1, heads * d_v, n, d_out, Mask{}, Status::shape_mismatch},
      {"concat cols", &l.x, n, heads * d_v + 1, n, d_out, Mask{}, Status::shape_mismatch},
      {"out rows", &l.x, n, heads * d_v, n - 1, d_out, Mask{}, Status::shape_mismatch},
      {"out cols", &l.x, n, heads * d_v, n, d_out + 1, Mask{}, Status::shape_mismatch},
      {"valid length > n", &l.x, n, heads * d_v, n, d_out, Mask::lengths(too_long.data()), Status::bad_mask},
      {"matrix mask n×(n+1)", &l.x, n, heads * d_v, n, d_out, Mask::matrix(bits.data(), n, n + 1), Status::bad_mask},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat concat(c.concat_rows, c.concat_cols, kSentinel), out(c.out_rows, c.out_cols, kSentinel);
    std::vector<float> scratch(attn::multi_head_forward_floats(layer, n + 1), kSentinel);
    EXPECT_EQ(attn::multi_head_forward(layer, c.x->cview(), c.mask, concat.view(), out.view(), scratch.data()),
              c.expected);
    EXPECT_TRUE(attn_test::untouched(concat.data, "concat"));
    EXPECT_TRUE(attn_test::untouched(out.data, "output"));
  }
}

}  // namespace
