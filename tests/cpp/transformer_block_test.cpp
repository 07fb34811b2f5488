// The Transformer encoder block: add & norm, the position-wise feed-forward
// network and the whole block against the float64 reference (every mask kind,
// several head counts), LayerNorm's known answer and row statistics, ReLU's
// zeros, permutation equivariance without positions or mask, and every
// Status path.
#include "transformer_block.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace {

using attn::Status;
using attn_test::kSentinel;
using attn_test::Mat;
using attn_test::Rng;

std::vector<float> random_vec(std::size_t n, Rng& rng, float lo, float hi) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}
std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

struct Block {
  std::size_t heads, d_model, d_ff;
  Mat x, w_q, w_k, w_v, w_o, w1, w2;
  std::vector<float> b1, b2, gamma1, beta1, gamma2, beta2;
  float eps = 1e-5f;

  attn::TransformerWeights weights() const {
    return {heads, w_q.cview(), w_k.cview(), w_v.cview(), w_o.cview(), w1.cview(), w2.cview(), b1.data(), b2.data(),
            gamma1.data(), beta1.data(), gamma2.data(), beta2.data(), eps};
  }
  ref::TransformerParams reference() const {
    return {heads, w_q.to_double(), w_k.to_double(), w_v.to_double(), w_o.to_double(), w1.to_double(),
            w2.to_double(), to_double(b1), to_double(b2), to_double(gamma1), to_double(beta1), to_double(gamma2),
            to_double(beta2), static_cast<double>(eps)};
  }
};

Block random_block(std::size_t n, std::size_t d_model, std::size_t heads, std::size_t d_k, std::size_t d_ff, Rng& rng) {
  const float a = 1.0f / std::sqrt(static_cast<float>(d_model));
  const float o = 1.0f / std::sqrt(static_cast<float>(heads * d_k));
  const float f = 1.0f / std::sqrt(static_cast<float>(d_ff));
  Block b{heads, d_model, d_ff,
          attn_test::random_mat(n, d_model, rng, -2.0f, 2.0f),
          attn_test::random_mat(d_model, heads * d_k, rng, -a, a),
          attn_test::random_mat(d_model, heads * d_k, rng, -a, a),
          attn_test::random_mat(d_model, heads * d_k, rng, -a, a),
          attn_test::random_mat(heads * d_k, d_model, rng, -o, o),
          attn_test::random_mat(d_model, d_ff, rng, -a, a),
          attn_test::random_mat(d_ff, d_model, rng, -f, f),
          random_vec(d_ff, rng, -0.5f, 0.5f), random_vec(d_model, rng, -0.5f, 0.5f),
          random_vec(d_model, rng, 0.5f, 1.5f), random_vec(d_model, rng, -0.5f, 0.5f),
          random_vec(d_model, rng, 0.5f, 1.5f), random_vec(d_model, rng, -0.5f, 0.5f)};
  return b;
}

struct Outputs {
  std::size_t n, heads;
  Mat q, k, v, concat, attn_out, sum1, norm1, hidden, ffn, sum2, out;
  std::vector<float> weights;
  Outputs(std::size_t n_, std::size_t heads_, std::size_t hk, std::size_t d_model, std::size_t d_ff)
      : n(n_), heads(heads_), q(n_, hk, kSentinel), k(n_, hk, kSentinel), v(n_, hk, kSentinel),
        concat(n_, hk, kSentinel), attn_out(n_, d_model, kSentinel), sum1(n_, d_model, kSentinel),
        norm1(n_, d_model, kSentinel), hidden(n_, d_ff, kSentinel), ffn(n_, d_model, kSentinel),
        sum2(n_, d_model, kSentinel), out(n_, d_model, kSentinel), weights(heads_ * n_ * n_, kSentinel) {}
  attn::TransformerBuffers view() {
    return {{{q.view(), k.view(), v.view()}, weights.data(), concat.view(), attn_out.view(), {}},
            sum1.view(), norm1.view(), hidden.view(), ffn.view(), sum2.view(), out.view()};
  }
};

constexpr double kTol = 2e-5;

TEST(AddAndNorm, KnownAnswer) {
  // LayerNorm([1, 2, 3]) with ε = 0: mean 2, variance 2/3 → (−√1.5, 0, √1.5).
  const Mat x = Mat::filled(1, 3, {0.5f, 1.0f, 1.5f}), y = Mat::filled(1, 3, {0.5f, 1.0f, 1.5f});
  const std::vector<float> gamma(3, 1.0f), beta(3, 0.0f);
  Mat sum(1, 3), out(1, 3);
  ASSERT_EQ(attn::add_and_norm(x.cview(), y.cview(), gamma.data(), beta.data(), 1e-30f, sum.view(), out.view()),
            Status::ok);
  EXPECT_EQ(sum.at(0, 0), 1.0f);
  EXPECT_EQ(sum.at(0, 2), 3.0f);
  EXPECT_FLOAT_EQ(out.at(0, 0), -1.2247449f);
  EXPECT_FLOAT_EQ(out.at(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(out.at(0, 2), 1.2247449f);
}

TEST(AddAndNorm, MatchesReferenceAndNormalisesRows) {
  Rng rng(21);
  for (std::size_t n : {1u, 4u, 33u})
    for (std::size_t d : {1u, 2u, 7u, 64u}) {
      const Mat x = attn_test::random_mat(n, d, rng, -5.0f, 5.0f, 1), y = attn_test::random_mat(n, d, rng, -5.0f, 5.0f);
      const std::vector<float> ones(d, 1.0f), zeros(d, 0.0f), gamma = random_vec(d, rng, 0.5f, 2.0f),
                               beta = random_vec(d, rng, -1.0f, 1.0f);
      Mat sum(n, d, kSentinel, 2), out(n, d, kSentinel, 1);
      ASSERT_EQ(attn::add_and_norm(x.cview(), y.cview(), gamma.data(), beta.data(), 1e-5f, sum.view(), out.view()),
                Status::ok);
      const ref::MatD want = ref::layer_norm(ref::plus(x.to_double(), y.to_double()), to_double(gamma), to_double(beta), 1e-5);
      EXPECT_TRUE(attn_test::all_close(out.cview(), want, kTol, kTol)) << n << "×" << d;
      EXPECT_TRUE(attn_test::padding_untouched(sum));
      EXPECT_TRUE(attn_test::padding_untouched(out));
      // With γ = 1, β = 0 each row has mean 0 and variance var/(var + ε) ≈ 1.
      ASSERT_EQ(attn::add_and_norm(x.cview(), y.cview(), ones.data(), zeros.data(), 1e-5f, sum.view(), out.view()),
                Status::ok);
      for (std::size_t i = 0; i < n && d > 1; ++i) {
        double mean = 0.0, var = 0.0;
        for (std::size_t j = 0; j < d; ++j) mean += out.at(i, j) / static_cast<double>(d);
        for (std::size_t j = 0; j < d; ++j) var += (out.at(i, j) - mean) * (out.at(i, j) - mean) / static_cast<double>(d);
        EXPECT_NEAR(mean, 0.0, 1e-6);
        EXPECT_NEAR(var, 1.0, 1e-3);
      }
    }
}

TEST(FeedForward, MatchesReferenceWithReluZeros) {
  Rng rng(5);
  for (std::size_t n : {1u, 6u, 40u})
    for (std::size_t d_ff : {1u, 8u, 65u}) {
      const std::size_t d = 12;
      const Mat x = attn_test::random_mat(n, d, rng), w1 = attn_test::random_mat(d, d_ff, rng),
                w2 = attn_test::random_mat(d_ff, d, rng);
      const std::vector<float> b1 = random_vec(d_ff, rng, -1, 1), b2 = random_vec(d, rng, -1, 1);
      Mat hidden(n, d_ff, kSentinel), out(n, d, kSentinel);
      ASSERT_EQ(attn::feed_forward(x.cview(), w1.cview(), b1.data(), w2.cview(), b2.data(), hidden.view(), out.view()),
                Status::ok);
      const ref::MatD h = ref::plus_row(ref::matmul(x.to_double(), w1.to_double()), to_double(b1), true);
      EXPECT_TRUE(attn_test::all_close(hidden.cview(), h, kTol, kTol));
      EXPECT_TRUE(attn_test::all_close(out.cview(), ref::plus_row(ref::matmul(h, w2.to_double()), to_double(b2), false), kTol, kTol));
      std::size_t zeros = 0;
      for (float v : hidden.data) zeros += v == 0.0f;
      if (n * d_ff >= 64) EXPECT_GT(zeros, 0u) << "ReLU should clip some of " << n * d_ff << " entries";
      for (float v : hidden.data) ASSERT_GE(v, 0.0f);
    }
}

TEST(TransformerBlock, MatchesReferenceForEveryMaskAndHeadCount) {
  Rng rng(2017);
  for (std::size_t heads : {1u, 2u, 4u})
    for (std::size_t n : {1u, 5u, 17u})
      for (attn::MaskKind kind : attn_test::all_kinds()) {
        const std::size_t d_model = 8, d_k = 8 / heads, d_ff = 16;
        const Block blk = random_block(n, d_model, heads, d_k, d_ff, rng);
        const attn_test::MaskCase mc = attn_test::make_mask(kind, n, n, rng);
        Outputs o(n, heads, heads * d_k, d_model, d_ff);
        ASSERT_EQ(attn::transformer_encoder_block(blk.x.cview(), blk.weights(), mc.mask(), o.view()), Status::ok);
        const ref::Transformer want = ref::transformer_block(blk.x.to_double(), blk.reference(), mc.vis);
        const auto label = ::testing::Message() << "heads=" << heads << " n=" << n << " mask=" << attn_test::kind_name(kind);
        EXPECT_TRUE(attn_test::all_close(o.attn_out.cview(), want.attention.output, kTol, kTol)) << label;
        EXPECT_TRUE(attn_test::all_close(o.sum1.cview(), want.sum1, kTol, kTol)) << label;
        EXPECT_TRUE(attn_test::all_close(o.norm1.cview(), want.norm1, 1e-4, 1e-4)) << label;
        EXPECT_TRUE(attn_test::all_close(o.hidden.cview(), want.hidden, 1e-4, 1e-4)) << label;
        EXPECT_TRUE(attn_test::all_close(o.ffn.cview(), want.ffn, 1e-4, 1e-4)) << label;
        EXPECT_TRUE(attn_test::all_close(o.out.cview(), want.out, 1e-4, 1e-4)) << label;
      }
}

TEST(TransformerBlock, IsPermutationEquivariantWithoutMask) {
  Rng rng(9);
  const std::size_t n = 7, d_model = 8, heads = 2;
  const Block blk = random_block(n, d_model, heads, 4, 16, rng);
  Block swapped = blk;
  const std::vector<std::size_t> order = {3, 0, 6, 1, 5, 2, 4};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d_model; ++j) swapped.x.at(i, j) = blk.x.at(order[i], j);
  Outputs a(n, heads, 8, d_model, 16), b(n, heads, 8, d_model, 16);
  ASSERT_EQ(attn::transformer_encoder_block(blk.x.cview(), blk.weights(), attn::Mask{}, a.view()), Status::ok);
  ASSERT_EQ(attn::transformer_encoder_block(swapped.x.cview(), swapped.weights(), attn::Mask{}, b.view()), Status::ok);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d_model; ++j) EXPECT_NEAR(b.out.at(i, j), a.out.at(order[i], j), 1e-5);
}

TEST(TransformerBlock, RejectsBadShapesAndEpsilon) {
  Rng rng(3);
  const Block good = random_block(4, 8, 2, 4, 16, rng);
  Outputs o(4, 2, 8, 8, 16);
  const attn::Mask none{};
  {
    Block b = good;
    b.eps = 0.0f;
    EXPECT_EQ(attn::transformer_encoder_block(b.x.cview(), b.weights(), none, o.view()), Status::bad_argument);
    b.eps = std::nanf("");
    EXPECT_EQ(attn::transformer_encoder_block(b.x.cview(), b.weights(), none, o.view()), Status::bad_argument);
  }
  {
    Block b = good;
    b.w_o = attn_test::random_mat(8, 6, rng);  // W_O must map back to d_model = 8
    EXPECT_EQ(attn::transformer_encoder_block(b.x.cview(), b.weights(), none, o.view()), Status::shape_mismatch);
  }
  {
    Block b = good;
    b.w2 = attn_test::random_mat(16, 5, rng);  // W_2 must map back to d_model
    EXPECT_EQ(attn::transformer_encoder_block(b.x.cview(), b.weights(), none, o.view()), Status::shape_mismatch);
  }
  {
    Block b = good;
    b.w2 = attn_test::random_mat(12, 8, rng);  // W_2.rows must equal d_ff
    EXPECT_EQ(attn::transformer_encoder_block(b.x.cview(), b.weights(), none, o.view()), Status::shape_mismatch);
  }
  Mat x(2, 3), y(2, 4), s(2, 3), out(2, 3);
  const std::vector<float> g(4, 1.0f);
  EXPECT_EQ(attn::add_and_norm(x.cview(), y.cview(), g.data(), g.data(), 1e-5f, s.view(), out.view()), Status::shape_mismatch);
  EXPECT_EQ(attn::add_and_norm(x.cview(), x.cview(), g.data(), g.data(), -1.0f, s.view(), out.view()), Status::bad_argument);
}

}  // namespace
