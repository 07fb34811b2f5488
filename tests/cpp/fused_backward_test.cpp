// The fused forward (with the row log-sum-exp) and the FlashAttention-2-style
// backward of fused_backward.h, against a plain float64 reference backward
// written here from the formulas, and against float64 central finite
// differences of L = Σ dO ∘ O, for every mask kind at sizes below, at and
// above the 4-lane vectors, the 8-key panels, the 32-row and 64-key blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "attention.h"
#include "reference.h"
#include "test_util.h"
#include "train/attention_backward.h"
#include "train/fused_backward.h"

namespace {

using attn::Mask;
using attn::MaskKind;
using attn::Status;
using attn_test::kSentinel;
using attn_test::MaskCase;
using attn_test::Mat;
using attn_test::Rng;
using ref::MatD;

const std::vector<std::size_t>& row_sizes() {
  static const std::vector<std::size_t> s = {1, 3, 4, 5, 8, 17, 64, 65, 200};
  return s;
}

// ---- the float64 reference: forward and backward straight from the formulas

struct RefGrads {
  MatD dq, dk, dv;
};

MatD transpose(const MatD& a) {
  MatD t(a.cols, a.rows);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < a.cols; ++j) t.at(j, i) = a.at(i, j);
  return t;
}

// dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(P ∘ dP)), dQ = dS K · scale, dK = dSᵀ Q · scale.
RefGrads reference_backward(const MatD& q, const MatD& k, const MatD& v, const MatD& d_out, const ref::Visibility& vis,
                            double scale) {
  const MatD p = ref::dot_product_attention(q, k, v, vis, scale).weights;
  RefGrads g;
  g.dv = ref::matmul(transpose(p), d_out);
  const MatD dp = ref::matmul(d_out, transpose(v));
  MatD ds(p.rows, p.cols);
  for (std::size_t i = 0; i < p.rows; ++i) {
    double row = 0.0;
    for (std::size_t j = 0; j < p.cols; ++j) row += p.at(i, j) * dp.at(i, j);
    for (std::size_t j = 0; j < p.cols; ++j) ds.at(i, j) = p.at(i, j) * (dp.at(i, j) - row) * scale;
  }
  g.dq = ref::matmul(ds, k);
  g.dk = ref::matmul(transpose(ds), q);
  return g;
}

// L = Σ dO ∘ O, whose gradient the backward computes.
double loss(const MatD& q, const MatD& k, const MatD& v, const MatD& d_out, const ref::Visibility& vis, double scale) {
  const MatD o = ref::dot_product_attention(q, k, v, vis, scale).output;
  double sum = 0.0;
  for (std::size_t t = 0; t < o.data.size(); ++t) sum += o.data[t] * d_out.data[t];
  return sum;
}

// ---- the kernel under test

struct Fused {
  Mat out, dq, dk, dv;
  std::vector<float> lse;
};

Fused run_fused(const Mat& q, const Mat& k, const Mat& v, const Mat& d_out, const Mask& mask, float scale) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols, d_v = v.cols;
  Fused f{Mat(n, d_v, kSentinel, 1), Mat(n, d, kSentinel, 2), Mat(m, d, kSentinel, 1), Mat(m, d_v, kSentinel, 3),
          std::vector<float>(n, kSentinel)};
  std::vector<float> fwd(attn::fused_forward_scratch_floats(m, d, d_v), kSentinel);
  EXPECT_EQ(attn::fused_attention_forward(q.cview(), k.cview(), v.cview(), mask, scale, f.out.view(), f.lse.data(),
                                          fwd.data()),
            Status::ok);
  std::vector<float> bwd(attn::fused_backward_scratch_floats(n, m, d, d_v), kSentinel);
  EXPECT_EQ(attn::fused_attention_backward(q.cview(), k.cview(), v.cview(), f.out.cview(), d_out.cview(), f.lse.data(),
                                           mask, scale, {f.dq.view(), f.dk.view(), f.dv.view()}, bwd.data()),
            Status::ok);
  return f;
}

// The largest |a − e| / (1 + |e|) over a matrix: the error the summary reports.
double worst_error(attn::ConstMatrixView a, const MatD& e) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < a.cols; ++j)
      worst = std::max(worst, std::fabs(a.at(i, j) - e.at(i, j)) / (1.0 + std::fabs(e.at(i, j))));
  return worst;
}

double g_worst_reference = 0.0;  // over every case of CheckAgainstReference

void check_against_reference(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v, MaskKind kind,
                             std::uint64_t seed, float amplitude = 1.5f) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
               ", d_v = " + std::to_string(d_v) + ", mask " + attn_test::kind_name(kind));
  Rng rng(seed);
  const Mat q = attn_test::random_mat(n, d, rng, -amplitude, amplitude, 1);
  const Mat k = attn_test::random_mat(m, d, rng, -amplitude, amplitude, 2);
  const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 3);
  const Mat d_out = attn_test::random_mat(n, d_v, rng, -1.0f, 1.0f, 1);
  const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
  const float scale = attn::default_scale(d);
  const Fused f = run_fused(q, k, v, d_out, mc.mask(), scale);
  const ref::Attention fwd = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
  const RefGrads g = reference_backward(q.to_double(), k.to_double(), v.to_double(), d_out.to_double(), mc.vis, scale);
  const double atol = 2e-6 * static_cast<double>(std::max(d, d_v) + 1) * std::sqrt(static_cast<double>(n + m));
  EXPECT_TRUE(attn_test::all_close(f.out.cview(), fwd.output, atol, 1e-4));
  EXPECT_TRUE(attn_test::all_close(f.dq.cview(), g.dq, atol, 1e-4)) << "dQ";
  EXPECT_TRUE(attn_test::all_close(f.dk.cview(), g.dk, atol, 1e-4)) << "dK";
  EXPECT_TRUE(attn_test::all_close(f.dv.cview(), g.dv, atol, 1e-4)) << "dV";
  for (const Mat* x : {&f.out, &f.dq, &f.dk, &f.dv}) EXPECT_TRUE(attn_test::padding_untouched(*x));
  g_worst_reference = std::max({g_worst_reference, worst_error(f.dq.cview(), g.dq), worst_error(f.dk.cview(), g.dk),
                                worst_error(f.dv.cview(), g.dv)});
  for (std::size_t i = 0; i < n; ++i) {  // lse_i = log Σ_visible e^(s_ij); −∞ with nothing visible
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j)
      if (mc.vis[i][j]) sum += std::exp(fwd.scaled.at(i, j));
    if (sum == 0.0)
      EXPECT_EQ(f.lse[i], -INFINITY) << "row " << i;
    else
      EXPECT_NEAR(f.lse[i], std::log(sum), 1e-5 * (1.0 + std::fabs(std::log(sum)))) << "row " << i;
  }
}

class FusedBackwardSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(FusedBackwardSizes, MatchesFloat64ReferenceForEveryMaskKind) {
  const auto [n, m] = GetParam();
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    for (MaskKind kind : attn_test::all_kinds())
      check_against_reference(n, m, s[t], s[(t + 3) % s.size()], kind,
                              attn_test::seed_for(n, m, s[t], 300 + static_cast<std::size_t>(kind)));
}

INSTANTIATE_TEST_SUITE_P(Sizes, FusedBackwardSizes,
                         ::testing::Combine(::testing::ValuesIn(row_sizes()), ::testing::ValuesIn(row_sizes())),
                         attn_test::pair_name);

TEST(FusedBackward, BlockEdgesAndLargeScores) {
  // 31/32/33 query rows around the row blocks, 63/64/65/129 keys around the key blocks;
  // amplitude 6 gives scores far from 0, where a wrong log-sum-exp shows at once.
  for (std::size_t n : {31u, 32u, 33u})
    for (std::size_t m : {63u, 64u, 65u, 129u})
      for (MaskKind kind : attn_test::all_kinds()) check_against_reference(n, m, 16, 9, kind, attn_test::seed_for(n, m, 1, 310), 6.0f);
}

// ---- finite differences: every gradient entry (a sample at the larger sizes)

double g_worst_fd = 0.0;

// Compares each sampled entry of the fused gradient with (L(x + h) − L(x − h)) / 2h in float64.
void check_finite_differences(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v, MaskKind kind) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", mask " + attn_test::kind_name(kind));
  Rng rng(attn_test::seed_for(n, m, d, 320 + static_cast<std::size_t>(kind)));
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng), d_out = attn_test::random_mat(n, d_v, rng);
  const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
  const float scale = attn::default_scale(d);
  const Fused f = run_fused(q, k, v, d_out, mc.mask(), scale);
  MatD x[3] = {q.to_double(), k.to_double(), v.to_double()};
  const MatD dod = d_out.to_double();
  const Mat* grads[3] = {&f.dq, &f.dk, &f.dv};
  const double h = 1e-5;
  for (int which = 0; which < 3; ++which) {
    MatD& a = x[which];
    const std::size_t count = a.data.size(), step = std::max<std::size_t>(1, count / 24);
    for (std::size_t t = 0; t < count; t += step) {
      const double keep = a.data[t];
      a.data[t] = keep + h;
      const double up = loss(x[0], x[1], x[2], dod, mc.vis, scale);
      a.data[t] = keep - h;
      const double down = loss(x[0], x[1], x[2], dod, mc.vis, scale);
      a.data[t] = keep;
      const double fd = (up - down) / (2 * h);
      const float got = grads[which]->at(t / a.cols, t % a.cols);
      const double err = std::fabs(got - fd) / (1.0 + std::fabs(fd));
      g_worst_fd = std::max(g_worst_fd, err);
      EXPECT_LT(err, 1e-4) << "d" << "QKV"[which] << "[" << t / a.cols << "][" << t % a.cols << "]: fused " << got
                           << ", finite difference " << fd;
    }
  }
}

TEST(FusedBackward, FiniteDifferences) {
  for (std::size_t n : row_sizes())
    for (MaskKind kind : attn_test::all_kinds()) check_finite_differences(n, n == 200 ? 65 : n + 2, 8, 5, kind);
}

TEST(FusedBackward, ReferenceBackwardAgreesWithFiniteDifferences) {
  // The oracle itself, checked once: its gradient matches central differences to ~1e-9.
  Rng rng(330);
  const std::size_t n = 5, m = 7, d = 4, d_v = 3;
  const MaskCase mc = attn_test::make_mask(MaskKind::matrix, n, m, rng);
  MatD x[3] = {attn_test::random_mat(n, d, rng).to_double(), attn_test::random_mat(m, d, rng).to_double(),
               attn_test::random_mat(m, d_v, rng).to_double()};
  const MatD dod = attn_test::random_mat(n, d_v, rng).to_double();
  const RefGrads g = reference_backward(x[0], x[1], x[2], dod, mc.vis, 0.5);
  const MatD* grads[3] = {&g.dq, &g.dk, &g.dv};
  for (int which = 0; which < 3; ++which)
    for (std::size_t t = 0; t < x[which].data.size(); ++t) {
      const double keep = x[which].data[t], h = 1e-6;
      x[which].data[t] = keep + h;
      const double up = loss(x[0], x[1], x[2], dod, mc.vis, 0.5);
      x[which].data[t] = keep - h;
      const double down = loss(x[0], x[1], x[2], dod, mc.vis, 0.5);
      x[which].data[t] = keep;
      EXPECT_NEAR(grads[which]->data[t], (up - down) / (2 * h), 1e-8);
    }
}

TEST(FusedBackward, FullyMaskedRowsAndUnseenKeysGetZeroGradients) {
  // valid length 0 on row 0 and an all-zero row 1 (matrix): dQ rows exactly 0, O rows 0, lse −∞;
  // keys no row sees (valid lengths <= 3): dK, dV rows exactly 0.
  Rng rng(340);
  const std::size_t n = 6, m = 9, d = 5, d_v = 4;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng), d_out = attn_test::random_mat(n, d_v, rng);
  const std::vector<std::int32_t> lens = {0, 3, 1, 2, 3, 0};
  std::vector<std::uint8_t> bits(n * m, 1);
  for (std::size_t j = 0; j < m; ++j) bits[1 * m + j] = 0;
  for (const Mask& mask : {Mask::lengths(lens.data()), Mask::matrix(bits.data(), n, m)}) {
    const Fused f = run_fused(q, k, v, d_out, mask, 0.5f);
    for (std::size_t i = 0; i < n; ++i) {
      bool any = false;
      for (std::size_t j = 0; j < m; ++j) any = any || mask.visible(i, j);
      if (any) continue;
      EXPECT_EQ(f.lse[i], -INFINITY);
      for (std::size_t t = 0; t < d; ++t) EXPECT_EQ(f.dq.at(i, t), 0.0f) << "dQ[" << i << "][" << t << "]";
      for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(f.out.at(i, t), 0.0f);
    }
    if (mask.kind != MaskKind::valid_lens) continue;
    for (std::size_t j = 3; j < m; ++j) {
      for (std::size_t t = 0; t < d; ++t) EXPECT_EQ(f.dk.at(j, t), 0.0f) << "dK[" << j << "][" << t << "]";
      for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(f.dv.at(j, t), 0.0f) << "dV[" << j << "][" << t << "]";
    }
  }
}

TEST(FusedBackward, ForwardAgreesWithTheExistingFusedKernelAndGradientsAreOverwritten) {
  Rng rng(350);
  const std::size_t n = 40, m = 150, d = 16, d_v = 12;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng), d_out = attn_test::random_mat(n, d_v, rng);
  for (MaskKind kind : attn_test::all_kinds()) {
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Fused f = run_fused(q, k, v, d_out, mc.mask(), 0.25f);
    Mat weights(n, m), step_out(n, d_v);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), 0.25f, weights.view(),
                                                 step_out.view()),
              Status::ok);
    EXPECT_TRUE(attn_test::all_close(f.out.cview(), step_out.to_double(), 1e-5, 1e-4)) << attn_test::kind_name(kind);
    // A second backward into the same (now non-zero) buffers gives the same gradients: overwritten, not added.
    const Mat dq = f.dq, dk = f.dk, dv = f.dv;
    std::vector<float> bwd(attn::fused_backward_scratch_floats(n, m, d, d_v));
    ASSERT_EQ(attn::fused_attention_backward(q.cview(), k.cview(), v.cview(), f.out.cview(), d_out.cview(),
                                             f.lse.data(), mc.mask(), 0.25f, {f.dq.view(), f.dk.view(), f.dv.view()},
                                             bwd.data()),
              Status::ok);
    EXPECT_EQ(f.dq.data, dq.data);
    EXPECT_EQ(f.dk.data, dk.data);
    EXPECT_EQ(f.dv.data, dv.data);
  }
}

TEST(FusedBackward, AgreesWithTheWeightsKeptBackward) {
  // attention_backward (train/attention_backward.h) on the forward's P: the path the trace uses.
  Rng rng(360);
  const std::size_t n = 70, m = 130, d = 16, d_v = 12;
  const Mat q = attn_test::random_mat(n, d, rng, -2.0f, 2.0f), k = attn_test::random_mat(m, d, rng, -2.0f, 2.0f);
  const Mat v = attn_test::random_mat(m, d_v, rng), d_out = attn_test::random_mat(n, d_v, rng);
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(attn_test::kind_name(kind));
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    const Fused f = run_fused(q, k, v, d_out, mc.mask(), 0.3f);
    Mat weights(n, m), out(n, d_v), dp(n, m), ds(n, m), dq(n, d), dk(m, d), dv(m, d_v);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), 0.3f, weights.view(),
                                                 out.view()),
              Status::ok);
    ASSERT_EQ(attn::attention_backward(q.cview(), k.cview(), v.cview(), weights.cview(), d_out.cview(), 0.3f,
                                       {dq.view(), dk.view(), dv.view()}, {dp.view(), ds.view()}),
              Status::ok);
    EXPECT_TRUE(attn_test::all_close(f.dq.cview(), dq.to_double(), 2e-5, 1e-4)) << "dQ";
    EXPECT_TRUE(attn_test::all_close(f.dk.cview(), dk.to_double(), 2e-5, 1e-4)) << "dK";
    EXPECT_TRUE(attn_test::all_close(f.dv.cview(), dv.to_double(), 2e-5, 1e-4)) << "dV";
  }
}

TEST(FusedBackward, NoQueriesGiveZeroKeyAndValueGradients) {
  // n = 0: nothing attends, so dK and dV are all 0 (and no scratch or lse is needed).
  Rng rng(370);
  const Mat q(0, 4), k = attn_test::random_mat(5, 4, rng), v = attn_test::random_mat(5, 3, rng), o(0, 3), d_out(0, 3);
  Mat out(0, 3), dq(0, 4), dk(5, 4, kSentinel), dv(5, 3, kSentinel);
  EXPECT_EQ(attn::fused_attention_forward(q.cview(), k.cview(), v.cview(), Mask{}, 0.5f, out.view(), nullptr, nullptr),
            Status::ok);
  EXPECT_EQ(attn::fused_attention_backward(q.cview(), k.cview(), v.cview(), o.cview(), d_out.cview(), nullptr, Mask{},
                                           0.5f, {dq.view(), dk.view(), dv.view()}, nullptr),
            Status::ok);
  for (float x : dk.data) EXPECT_EQ(x, 0.0f);
  for (float x : dv.data) EXPECT_EQ(x, 0.0f);
}

TEST(FusedBackwardStatus, MissingDataIsRefused) {
  Rng rng(380);
  const Mat q = attn_test::random_mat(3, 4, rng), k = attn_test::random_mat(5, 4, rng), v = attn_test::random_mat(5, 2, rng);
  Mat out(3, 2), dq(3, 4, kSentinel), dk(5, 4, kSentinel), dv(5, 2, kSentinel);
  std::vector<float> lse(3), scratch(attn::fused_backward_scratch_floats(3, 5, 4, 2) + attn::fused_forward_scratch_floats(5, 4, 2));
  const attn::ConstMatrixView no_k{nullptr, 5, 4, 4};
  EXPECT_EQ(attn::fused_attention_forward(q.cview(), no_k, v.cview(), Mask{}, 0.5f, out.view(), lse.data(), scratch.data()),
            Status::bad_argument);
  EXPECT_EQ(attn::fused_attention_forward(q.cview(), k.cview(), v.cview(), Mask{}, 0.5f, out.view(), nullptr, scratch.data()),
            Status::bad_argument);
  EXPECT_EQ(attn::fused_attention_forward(q.cview(), k.cview(), v.cview(), Mask{}, 0.5f, out.view(), lse.data(), nullptr),
            Status::bad_argument);
  const attn::AttentionGradients grads{dq.view(), dk.view(), dv.view()};
  EXPECT_EQ(attn::fused_attention_backward(q.cview(), no_k, v.cview(), out.cview(), out.cview(), lse.data(), Mask{}, 0.5f,
                                           grads, scratch.data()),
            Status::bad_argument);
  EXPECT_EQ(attn::fused_attention_backward(q.cview(), k.cview(), v.cview(), out.cview(), out.cview(), nullptr, Mask{}, 0.5f,
                                           grads, scratch.data()),
            Status::bad_argument);
  EXPECT_EQ(attn::fused_attention_backward(q.cview(), k.cview(), v.cview(), out.cview(), out.cview(), lse.data(), Mask{},
                                           0.5f, grads, nullptr),
            Status::bad_argument);
  EXPECT_TRUE(attn_test::untouched(dq.data, "dQ"));
  EXPECT_TRUE(attn_test::untouched(dk.data, "dK"));
  EXPECT_TRUE(attn_test::untouched(dv.data, "dV"));
}

TEST(FusedBackwardStatus, ShapeMismatchesAndBadMasks) {
  const Mat q(3, 4, 1.0f), k(5, 4, 1.0f), v(5, 2, 1.0f), o(3, 2, 0.5f), d_out(3, 2, 1.0f);
  const std::vector<std::int32_t> too_long = {1, 6, 2};
  const std::vector<std::uint8_t> bits(15, 1);
  std::vector<float> lse(3, 0.0f), scratch(attn::fused_backward_scratch_floats(8, 8, 8, 8));
  struct Case {
    const char* what;
    Mat q, k, v, d_out;
    std::size_t dq_rows, dk_cols, dv_cols;
    Mask mask;
    Status expected;
  };
  const Case cases[] = {
      {"Q cols != K cols", q, Mat(5, 3), v, d_out, 3, 4, 2, Mask{}, Status::shape_mismatch},
      {"K rows != V rows", q, k, Mat(4, 2), d_out, 3, 4, 2, Mask{}, Status::shape_mismatch},
      {"dO rows", q, k, v, Mat(2, 2), 3, 4, 2, Mask{}, Status::shape_mismatch},
      {"dO cols", q, k, v, Mat(3, 3), 3, 4, 2, Mask{}, Status::shape_mismatch},
      {"dQ rows", q, k, v, d_out, 4, 4, 2, Mask{}, Status::shape_mismatch},
      {"dK cols", q, k, v, d_out, 3, 3, 2, Mask{}, Status::shape_mismatch},
      {"dV cols", q, k, v, d_out, 3, 4, 1, Mask{}, Status::shape_mismatch},
      {"valid length > m", q, k, v, d_out, 3, 4, 2, Mask::lengths(too_long.data()), Status::bad_mask},
      {"matrix mask m×n", q, k, v, d_out, 3, 4, 2, Mask::matrix(bits.data(), 5, 3), Status::bad_mask},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat dq(c.dq_rows, 4, kSentinel), dk(5, c.dk_cols, kSentinel), dv(5, c.dv_cols, kSentinel);
    EXPECT_EQ(attn::fused_attention_backward(c.q.cview(), c.k.cview(), c.v.cview(), o.cview(), c.d_out.cview(),
                                             lse.data(), c.mask, 0.5f, {dq.view(), dk.view(), dv.view()},
                                             scratch.data()),
              c.expected);
    EXPECT_TRUE(attn_test::untouched(dq.data, "dQ"));
    EXPECT_TRUE(attn_test::untouched(dk.data, "dK"));
    Mat out(3, 2, kSentinel);
    if (c.dq_rows == 3 && c.dk_cols == 4 && c.dv_cols == 2 && c.d_out.rows == 3 && c.d_out.cols == 2) {
      EXPECT_EQ(attn::fused_attention_forward(c.q.cview(), c.k.cview(), c.v.cview(), c.mask, 0.5f, out.view(),
                                              lse.data(), scratch.data()),
                c.expected);
    }
  }
}

// Printed once every case has run: the worst relative error against each reference, over all cases.
class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("[fused backward] worst |error| / (1 + |ref|): vs the float64 reference backward %.3g, "
                "vs float64 finite differences %.3g\n", g_worst_reference, g_worst_fd);
  }
};
[[maybe_unused]] ::testing::Environment* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary);

}  // namespace
