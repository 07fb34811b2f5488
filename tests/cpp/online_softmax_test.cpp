// The online-softmax trace (online_softmax.h): for one query row, the running
// max m, sum ℓ, rescale e^(m_old − m_new) and output after each key block.
// Every recorded step is checked against the float64 reference restricted to
// the keys seen so far (after block b the output must be softmax attention
// over keys [0, end_b)), the final row against the reference and the fused
// kernel, and the final ℓ against Σ_j e^(s_j − m), for every mask kind, at
// block sizes below, equal to and above the key count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attention.h"
#include "flash_attention.h"
#include "online_softmax.h"
#include "reference.h"
#include "test_util.h"

namespace {

using attn::MaskKind;
using attn::Status;
using attn_test::kSentinel;
using attn_test::Mat;
using attn_test::Rng;

// The trace's buffers, filled with the sentinel.
struct Buffers {
  std::size_t nb;
  std::vector<float> scores, block_max, running_max, rescale, running_sum, accumulator, partial, output, weights,
      totals;
  Buffers(std::size_t m, std::size_t d_v, std::size_t block)
      : nb(attn::online_softmax_blocks(m, block)), scores(m, kSentinel), block_max(nb, kSentinel),
        running_max(nb, kSentinel), rescale(nb, kSentinel), running_sum(nb, kSentinel),
        accumulator(nb * d_v, kSentinel), partial(nb * d_v, kSentinel), output(d_v, kSentinel),
        weights(m, kSentinel), totals(3, kSentinel) {}
  attn::OnlineSoftmaxTrace view() {
    return {scores.data(),  block_max.data(), running_max.data(), rescale.data(), running_sum.data(),
            accumulator.data(), partial.data(), output.data(), weights.data(), totals.data()};
  }
};

// Query row `row` of softmax(scale·QKᵀ)V over the keys j < end that vis allows, in float64.
ref::MatD prefix_output(const Mat& q, const Mat& k, const Mat& v, const ref::Visibility& vis, std::size_t row,
                        std::size_t end, double scale) {
  ref::Visibility cut = vis;
  for (auto& r : cut)
    for (std::size_t j = end; j < r.size(); ++j) r[j] = false;
  const ref::Attention a = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), cut, scale);
  ref::MatD out(1, v.cols);
  for (std::size_t t = 0; t < v.cols; ++t) out.at(0, t) = a.output.at(row, t);
  return out;
}

void check_case(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v, std::size_t block, MaskKind kind,
                std::uint64_t seed, float amplitude = 2.0f) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
               ", block = " + std::to_string(block) + ", mask " + attn_test::kind_name(kind));
  Rng rng(seed);
  const Mat q = attn_test::random_mat(n, d, rng, -amplitude, amplitude);
  const Mat k = attn_test::random_mat(m, d, rng, -amplitude, amplitude);
  const Mat v = attn_test::random_mat(m, d_v, rng);
  const attn_test::MaskCase mc = attn_test::make_mask(kind, n, m, rng);
  const float scale = attn::default_scale(d);
  const ref::Attention full = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
  // The fused path's output, to compare with at float32 rounding.
  Mat fused_out(n, d_v);
  std::vector<float> scratch(attn::fused_attention_scratch_floats(m, d, d_v));
  ASSERT_EQ(attn::fused_attention(q.cview(), k.cview(), v.cview(), mc.mask(), scale, fused_out.view(), scratch.data()),
            Status::ok);
  for (std::size_t row = 0; row < n; row += std::max<std::size_t>(1, n / 3)) {
    SCOPED_TRACE("row " + std::to_string(row));
    Buffers b(m, d_v, block);
    ASSERT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), row, mc.mask(), scale, block, b.view()),
              Status::ok);
    double m_prev = -INFINITY;
    for (std::size_t blk = 0; blk < b.nb; ++blk) {
      const std::size_t end = std::min(m, (blk + 1) * block);
      // the reference running max over the visible scores of keys [0, end)
      double m_ref = -INFINITY, block_ref = -INFINITY;
      for (std::size_t j = 0; j < end; ++j)
        if (mc.vis[row][j]) {
          m_ref = std::max(m_ref, full.scaled.at(row, j));
          if (j >= blk * block) block_ref = std::max(block_ref, full.scaled.at(row, j));
        }
      double l_ref = 0.0;
      for (std::size_t j = 0; j < end; ++j)
        if (mc.vis[row][j]) l_ref += std::exp(full.scaled.at(row, j) - m_ref);
      const double alpha_ref = m_ref > m_prev ? std::exp(m_prev - m_ref) : 1.0;
      if (std::isinf(m_ref)) {
        EXPECT_EQ(b.running_max[blk], -INFINITY);
      } else {
        EXPECT_NEAR(b.running_max[blk], m_ref, 1e-5 * (1 + std::fabs(m_ref))) << "m after block " << blk;
      }
      if (!std::isinf(block_ref)) EXPECT_NEAR(b.block_max[blk], block_ref, 1e-5 * (1 + std::fabs(block_ref)));
      EXPECT_NEAR(b.rescale[blk], alpha_ref, 1e-5 * (1 + alpha_ref)) << "rescale of block " << blk;
      EXPECT_NEAR(b.running_sum[blk], l_ref, 1e-5 * l_ref + 1e-6) << "ℓ after block " << blk;
      EXPECT_TRUE(attn_test::all_close(attn::dense(b.partial.data() + blk * d_v, 1, d_v),
                                       prefix_output(q, k, v, mc.vis, row, end, scale), 1e-5 * (d + 1), 1e-4))
          << "output after block " << blk;
      m_prev = m_ref;
    }
    ref::MatD out_ref(1, d_v), w_ref(1, m);
    for (std::size_t t = 0; t < d_v; ++t) out_ref.at(0, t) = full.output.at(row, t);
    for (std::size_t j = 0; j < m; ++j) w_ref.at(0, j) = full.weights.at(row, j);
    EXPECT_TRUE(attn_test::all_close(attn::dense(b.output.data(), 1, d_v), out_ref, 1e-5 * (d + 1), 1e-4));
    EXPECT_TRUE(attn_test::all_close(attn::dense(b.weights.data(), 1, m), w_ref, 1e-6, 1e-4));
    // the fused kernel's row, to float32 rounding
    for (std::size_t t = 0; t < d_v; ++t)
      EXPECT_NEAR(b.output[t], fused_out.at(row, t), 2e-6 + 1e-5 * std::fabs(fused_out.at(row, t)));
    // the final ℓ is Σ_j e^(s_j − m) over the trace's own scores, and the weights sum to 1
    double l = 0.0;
    bool any = false;
    for (std::size_t j = 0; j < m; ++j)
      if (b.scores[j] != -INFINITY) {
        l += std::exp(static_cast<double>(b.scores[j]) - b.totals[0]);
        any = true;
      }
    EXPECT_NEAR(b.totals[1], l, 1e-6 * l);
    EXPECT_NEAR(b.totals[2], any ? 1.0 : 0.0, 1e-6);
    if (b.nb > 0) EXPECT_EQ(b.totals[1], b.running_sum[b.nb - 1]);
  }
}

TEST(OnlineSoftmaxTrace, EveryStepMatchesTheReferenceForEveryMaskAndBlockSize) {
  std::size_t salt = 0;
  for (std::size_t m : {1, 3, 4, 5, 8, 17, 65})
    for (std::size_t block : {1, 2, 4, 7, 128})
      for (MaskKind kind : attn_test::all_kinds()) check_case(6, m, 4, 5, block, kind, attn_test::seed_for(m, block, 0, ++salt));
}

TEST(OnlineSoftmaxTrace, ScoresWhereNaiveExpOverflowsStayFinite) {
  // scores up to about 8²·16/4 = 256: e^256 is beyond float32 (and e^710 beyond double at larger widths)
  check_case(3, 9, 16, 3, 2, MaskKind::none, 77, 8.0f);
  check_case(3, 9, 64, 3, 4, MaskKind::causal, 78, 12.0f);
}

TEST(OnlineSoftmaxTrace, TheMaxMovesOnlyUpAndTheRescaleIsOneWhenItStays) {
  // Scores 0, 2, 1, 3 with block 1: the max moves at keys 1 and 3, stays at key 2.
  const Mat q = Mat::filled(1, 1, {1.0f});
  const Mat k = Mat::filled(4, 1, {0.0f, 2.0f, 1.0f, 3.0f});
  const Mat v = Mat::filled(4, 1, {1.0f, 2.0f, 3.0f, 4.0f});
  Buffers b(4, 1, 1);
  ASSERT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 0, attn::Mask{}, 1.0f, 1, b.view()), Status::ok);
  EXPECT_EQ(b.running_max, (std::vector<float>{0.0f, 2.0f, 2.0f, 3.0f}));
  EXPECT_EQ(b.rescale[0], 0.0f);  // e^(−∞ − 0): nothing was accumulated yet
  EXPECT_FLOAT_EQ(b.rescale[1], std::exp(-2.0f));
  EXPECT_EQ(b.rescale[2], 1.0f);
  EXPECT_FLOAT_EQ(b.rescale[3], std::exp(-1.0f));
  EXPECT_FLOAT_EQ(b.running_sum[0], 1.0f);
  EXPECT_FLOAT_EQ(b.running_sum[1], static_cast<float>(std::exp(-2.0) + 1.0));
}

TEST(OnlineSoftmaxTrace, AFullyMaskedRowHasZeroOutputZeroSumAndNoRescale) {
  Rng rng(5);
  const Mat q = attn_test::random_mat(2, 3, rng), k = attn_test::random_mat(5, 3, rng), v = attn_test::random_mat(5, 2, rng);
  const std::vector<std::int32_t> lens = {0, 5};
  Buffers b(5, 2, 2);
  ASSERT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 0, attn::Mask::lengths(lens.data()), 0.5f, 2, b.view()),
            Status::ok);
  for (std::size_t blk = 0; blk < b.nb; ++blk) {
    EXPECT_EQ(b.running_max[blk], -INFINITY);
    EXPECT_EQ(b.rescale[blk], 1.0f);
    EXPECT_EQ(b.running_sum[blk], 0.0f);
  }
  EXPECT_EQ(b.output, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(b.totals[1], 0.0f);
  EXPECT_EQ(b.totals[2], 0.0f);
  for (float w : b.weights) EXPECT_EQ(w, 0.0f);
}

TEST(OnlineSoftmaxTrace, RejectsBadArguments) {
  Rng rng(9);
  const Mat q = attn_test::random_mat(2, 3, rng), k = attn_test::random_mat(4, 3, rng), v = attn_test::random_mat(4, 2, rng);
  const Mat k_wide = attn_test::random_mat(4, 4, rng), v_short = attn_test::random_mat(3, 2, rng);
  Buffers b(4, 2, 2);
  const attn::Mask none;
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 2, none, 1.0f, 2, b.view()), Status::bad_argument);
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 0, none, 1.0f, 0, b.view()), Status::bad_argument);
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k_wide.cview(), v.cview(), 0, none, 1.0f, 2, b.view()), Status::shape_mismatch);
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v_short.cview(), 0, none, 1.0f, 2, b.view()), Status::shape_mismatch);
  attn::OnlineSoftmaxTrace missing = b.view();
  missing.partial = nullptr;
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 0, none, 1.0f, 2, missing), Status::bad_argument);
  const std::vector<std::int32_t> lens = {1, 9};
  EXPECT_EQ(attn::online_softmax_trace(q.cview(), k.cview(), v.cview(), 0, attn::Mask::lengths(lens.data()), 1.0f, 2, b.view()),
            Status::bad_mask);
  EXPECT_EQ(attn::online_softmax_blocks(5, 2), 3u);
  EXPECT_EQ(attn::online_softmax_blocks(4, 2), 2u);
  EXPECT_EQ(attn::online_softmax_blocks(3, static_cast<std::size_t>(-1)), 1u);
  EXPECT_EQ(attn::online_softmax_blocks(3, 0), 0u);
}

}  // namespace
