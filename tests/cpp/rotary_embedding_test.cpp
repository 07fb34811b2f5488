// Rotary position embedding: both pairings against the rotation written
// plainly in double, at widths below, at and above the vector width, offsets,
// 4-D and 3-D layouts and in place; the properties that make RoPE a relative
// encoding (lengths kept; the score of a rotated q and k depends on i − j only;
// rows at an offset equal the same rows of a longer call); the angles; and
// every Status path.
#include "rotary_embedding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

namespace {

using attn::RotaryOptions;
using attn::Status;
using attn_test::Rng;

// The rotation of one row x (width d) at position p, written from the definition.
std::vector<double> rotate(const float* x, std::size_t d, double p, double base, bool interleaved) {
  std::vector<double> y(d);
  for (std::size_t i = 0; i < d / 2; ++i) {
    const double angle = p / std::pow(base, 2.0 * static_cast<double>(i) / static_cast<double>(d));
    const std::size_t a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + d / 2;
    y[a] = x[a] * std::cos(angle) - x[b] * std::sin(angle);
    y[b] = x[a] * std::sin(angle) + x[b] * std::cos(angle);
  }
  return y;
}

std::vector<float> random_values(std::size_t count, Rng& rng, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(count);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

// Rotates a dense n×d matrix (batch 1, head 1).
std::vector<float> rope(const std::vector<float>& x, std::size_t n, std::size_t d, const RotaryOptions& o) {
  std::vector<float> out(x.size(), attn_test::kSentinel);
  EXPECT_EQ(attn::rotary_embedding(attn::heads_major(x.data(), 1, 1, n, d), o, attn::heads_major(out.data(), 1, 1, n, d)),
            Status::ok);
  return out;
}

double dot(const float* a, const float* b, std::size_t d) {
  double s = 0.0;
  for (std::size_t t = 0; t < d; ++t) s += static_cast<double>(a[t]) * b[t];
  return s;
}

TEST(RotaryEmbedding, BothPairingsMatchTheRotationAtEverySize) {
  for (bool interleaved : {false, true})
    for (std::size_t d : {0u, 2u, 4u, 6u, 8u, 10u, 64u, 130u})
      for (std::size_t n : {0u, 1u, 5u, 33u})
        for (long long offset : {0LL, 7LL, 1000000LL})
          for (double base : {10000.0, 500000.0, 1.0, 0.5}) {
            Rng rng(attn_test::seed_for(d, n, static_cast<std::size_t>(offset % 1000), interleaved));
            const auto x = random_values(n * d, rng, -2.0f, 2.0f);
            const RotaryOptions o{base, offset, interleaved};
            const auto y = rope(x, n, d, o);
            for (std::size_t r = 0; r < n; ++r) {
              const auto want = rotate(x.data() + r * d, d, static_cast<double>(offset + static_cast<long long>(r)), base, interleaved);
              for (std::size_t c = 0; c < d; ++c)
                ASSERT_NEAR(y[r * d + c], want[c], 1e-6 * (1.0 + std::fabs(want[c])))
                    << "d=" << d << " n=" << n << " offset=" << offset << " base=" << base
                    << " interleaved=" << interleaved << " at [" << r << "][" << c << "]";
            }
          }
}

TEST(RotaryEmbedding, KnownValues) {
  // (1, 0) at position 1 with θ_0 = 1 turns by one radian: (cos 1, sin 1).
  const std::vector<float> x = {1.0f, 0.0f, 1.0f, 0.0f};
  auto y = rope(x, 2, 2, {});
  EXPECT_EQ(y[0], 1.0f);  // position 0: unchanged
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_FLOAT_EQ(y[2], 0.54030231f);
  EXPECT_FLOAT_EQ(y[3], 0.84147098f);
  // d = 4, rotate-half: pairs (0, 2) at θ 1 and (1, 3) at θ 1/100; interleaved: (0, 1) and (2, 3).
  const std::vector<float> e = {1.0f, 1.0f, 0.0f, 0.0f};
  y = rope(e, 1, 4, {10000.0, 1, false});
  EXPECT_FLOAT_EQ(y[0], std::cos(1.0f));
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(std::cos(0.01)));
  EXPECT_FLOAT_EQ(y[2], std::sin(1.0f));
  EXPECT_FLOAT_EQ(y[3], static_cast<float>(std::sin(0.01)));
  y = rope(e, 1, 4, {10000.0, 1, true});
  EXPECT_FLOAT_EQ(y[0], std::cos(1.0f) - std::sin(1.0f));
  EXPECT_FLOAT_EQ(y[1], std::sin(1.0f) + std::cos(1.0f));
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 0.0f);
}

TEST(RotaryEmbedding, FourAndThreeDimensionalLayoutsAndInPlace) {
  const std::size_t B = 2, H = 3, n = 5, d = 8;
  Rng rng(77);
  const auto x = random_values(B * H * n * d, rng);
  for (bool interleaved : {false, true}) {
    const RotaryOptions o{10000.0, 3, interleaved};
    // 4-D [B, H, n, d]
    std::vector<float> y4(x.size());
    ASSERT_EQ(attn::rotary_embedding(attn::heads_major(x.data(), B, H, n, d), o, attn::heads_major(y4.data(), B, H, n, d)), Status::ok);
    // 3-D [B, n, H·d]: the same values, transposed, rotated, and compared head by head
    std::vector<float> x3(x.size()), y3(x.size());
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t r = 0; r < n; ++r)
          for (std::size_t c = 0; c < d; ++c) x3[((b * n + r) * H + h) * d + c] = x[((b * H + h) * n + r) * d + c];
    ASSERT_EQ(attn::rotary_embedding(attn::rows_major(x3.data(), B, H, n, d), o, attn::rows_major(y3.data(), B, H, n, d)), Status::ok);
    std::vector<float> in_place = x;
    const auto view = attn::heads_major(in_place.data(), B, H, n, d);
    ASSERT_EQ(attn::rotary_embedding(view, o, view), Status::ok);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t r = 0; r < n; ++r) {
          const auto want = rotate(x.data() + ((b * H + h) * n + r) * d, d, 3.0 + static_cast<double>(r), 10000.0, interleaved);
          for (std::size_t c = 0; c < d; ++c) {
            const std::size_t at4 = ((b * H + h) * n + r) * d + c;
            EXPECT_NEAR(y4[at4], want[c], 1e-6);
            EXPECT_EQ(y3[((b * n + r) * H + h) * d + c], y4[at4]);
            EXPECT_EQ(in_place[at4], y4[at4]);
          }
        }
  }
}

TEST(RotaryEmbedding, KeepsTheLengthOfEveryPair) {
  Rng rng(5);
  const std::size_t n = 40, d = 16;
  const auto x = random_values(n * d, rng, -3.0f, 3.0f);
  for (bool interleaved : {false, true}) {
    const auto y = rope(x, n, d, {10000.0, 11, interleaved});
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t i = 0; i < d / 2; ++i) {
        const std::size_t a = r * d + (interleaved ? 2 * i : i), b = r * d + (interleaved ? 2 * i + 1 : i + d / 2);
        EXPECT_NEAR(std::hypot(y[a], y[b]), std::hypot(x[a], x[b]), 1e-5);
      }
  }
}

// The reason RoPE exists: q_rot(i)·k_rot(j) = q·R((j − i)θ)·k depends on i − j only.
TEST(RotaryEmbedding, RotatedScoreDependsOnlyOnTheDistance) {
  Rng rng(2021);
  for (bool interleaved : {false, true})
    for (std::size_t d : {2u, 8u, 64u})
      for (int trial = 0; trial < 40; ++trial) {
        const auto q = random_values(d, rng), k = random_values(d, rng);
        const long long i = static_cast<long long>(rng.below(2000)), j = static_cast<long long>(rng.below(2000));
        const long long shift = static_cast<long long>(rng.below(100000));
        const auto score = [&](long long pq, long long pk) {
          return dot(rope(q, 1, d, {10000.0, pq, interleaved}).data(), rope(k, 1, d, {10000.0, pk, interleaved}).data(), d);
        };
        const double s = score(i, j);
        EXPECT_NEAR(score(i + shift, j + shift), s, 1e-5 * static_cast<double>(d)) << "i=" << i << " j=" << j << " shift=" << shift;
        // and it is q against k turned by the distance alone, q·R((j − i)θ)k (distance 0: q·k)
        const auto turned = rotate(k.data(), d, static_cast<double>(j - i), 10000.0, interleaved);
        double want = 0.0;
        for (std::size_t t = 0; t < d; ++t) want += q[t] * turned[t];
        EXPECT_NEAR(s, want, 1e-5 * static_cast<double>(d)) << "i=" << i << " j=" << j;
        EXPECT_NEAR(score(i, i), dot(q.data(), k.data(), d), 1e-5 * static_cast<double>(d));
      }
}

// Decoding: the rows a cache appends at positions offset, offset + 1, … equal those rows of one call from 0.
TEST(RotaryEmbedding, RowsAtAnOffsetEqualTheSameRowsOfALongerCall) {
  Rng rng(9);
  const std::size_t n = 20, d = 12;
  const auto x = random_values(n * d, rng);
  for (bool interleaved : {false, true}) {
    const auto full = rope(x, n, d, {10000.0, 0, interleaved});
    for (std::size_t past : {0u, 1u, 7u, 19u}) {
      const std::vector<float> tail(x.begin() + static_cast<long>(past * d), x.end());
      const auto step = rope(tail, n - past, d, {10000.0, static_cast<long long>(past), interleaved});
      for (std::size_t t = 0; t < step.size(); ++t) ASSERT_EQ(step[t], full[past * d + t]) << "past=" << past;
    }
  }
}

// The two pairings differ by a permutation of the coordinates: interleaved(x) = P⁻¹ rotate_half(P x).
TEST(RotaryEmbedding, PairingsDifferByAPermutation) {
  Rng rng(3);
  const std::size_t n = 9, d = 10;
  const auto x = random_values(n * d, rng);
  std::vector<float> px(x.size());  // P: coordinate 2i → i, 2i+1 → i + d/2
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < d / 2; ++i) {
      px[r * d + i] = x[r * d + 2 * i];
      px[r * d + i + d / 2] = x[r * d + 2 * i + 1];
    }
  const auto half = rope(px, n, d, {10000.0, 4, false});
  const auto inter = rope(x, n, d, {10000.0, 4, true});
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < d / 2; ++i) {
      EXPECT_EQ(inter[r * d + 2 * i], half[r * d + i]);
      EXPECT_EQ(inter[r * d + 2 * i + 1], half[r * d + i + d / 2]);
    }
}

TEST(RotaryEmbedding, AnglesArePositionTimesFrequency) {
  for (std::size_t d : {2u, 8u, 64u})
    for (long long offset : {0LL, 5LL})
      for (double base : {10000.0, 100.0}) {
        attn_test::Mat angles(7, d / 2, attn_test::kSentinel, 2);
        ASSERT_EQ(attn::rotary_angles(d, {base, offset, false}, angles.view()), Status::ok);
        for (std::size_t r = 0; r < 7; ++r)
          for (std::size_t i = 0; i < d / 2; ++i) {
            const double want = static_cast<double>(offset + static_cast<long long>(r)) * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
            ASSERT_NEAR(angles.at(r, i), want, 1e-7 * (1.0 + want));
          }
        EXPECT_TRUE(attn_test::padding_untouched(angles));
      }
}

TEST(RotaryEmbedding, RefusesOddWidthsBadBasesAndMismatchedShapes) {
  std::vector<float> x(3 * 5), out(3 * 5);
  const auto odd = attn::heads_major(x.data(), 1, 1, 3, 5);
  EXPECT_EQ(attn::rotary_embedding(odd, {}, attn::heads_major(out.data(), 1, 1, 3, 5)), Status::bad_argument);
  const auto in = attn::heads_major(x.data(), 1, 1, 3, 4);
  const auto to = attn::heads_major(out.data(), 1, 1, 3, 4);
  for (double base : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    EXPECT_EQ(attn::rotary_embedding(in, {base, 0, false}, to), Status::bad_argument) << base;
  EXPECT_EQ(attn::rotary_embedding(in, {}, attn::heads_major(out.data(), 1, 1, 2, 4)), Status::shape_mismatch);
  EXPECT_EQ(attn::rotary_embedding(in, {}, attn::heads_major(out.data(), 1, 3, 1, 4)), Status::shape_mismatch);
  std::vector<float> angles(6);
  EXPECT_EQ(attn::rotary_angles(5, {}, attn::dense(angles.data(), 3, 2)), Status::bad_argument);
  EXPECT_EQ(attn::rotary_angles(4, {-2.0, 0, false}, attn::dense(angles.data(), 3, 2)), Status::bad_argument);
  EXPECT_EQ(attn::rotary_angles(6, {}, attn::dense(angles.data(), 3, 2)), Status::shape_mismatch);
}

}  // namespace
