// libFuzzer target: attn::rotary_embedding, attn::rotary_angles, attn::alibi_slopes
// and attn::alibi_bias (one family per input). RoPE: batch ≤ 3, heads ≤ 4,
// n ≤ 20, d ≤ 24 (odd widths: refused), 4-D or 3-D layout, bases (good, zero,
// negative, NaN, ∞, extreme), offsets up to 2³¹ − 1, both pairings, in place,
// an output with a wrong shape; results against the rotation in double, pair
// lengths kept, angles right. ALiBi: heads 0 … 40 (0 refused), n, m ≤ 40,
// offsets of either sign up to ±2³¹, symmetric or not, a batch of 2 (refused);
// slopes against the paper's reference code, every bias entry against
// −m·(i + offset − j), the future −∞ unless symmetric, the diagonal +0.
#include <cmath>
#include <limits>

#include "alibi.h"
#include "fuzz_common.h"
#include "rotary_embedding.h"

namespace {

constexpr double kFloatMax = 3.4028234663852886e38;

// get_slopes of the paper's reference code, in double (independent of src/).
std::vector<double> paper_slopes(std::size_t n) {
  const auto power_of_2 = [](std::size_t p) {
    std::vector<double> s;
    const double start = std::pow(2.0, -8.0 / static_cast<double>(p));
    for (std::size_t i = 0; i < p; ++i) s.push_back(std::pow(start, static_cast<double>(i + 1)));
    return s;
  };
  std::size_t closest = 1;
  while (closest * 2 <= n) closest *= 2;
  std::vector<double> s = power_of_2(closest);
  if (closest == n) return s;
  const std::vector<double> twice = paper_slopes(2 * closest);
  for (std::size_t i = 0; s.size() < n; i += 2) s.push_back(twice[i]);
  return s;
}

void fuzz_rotary(fuzz::Decoder& in) {
  const std::size_t batch = in.dim(0, 3), heads = in.dim(1, 4), n = in.dim(0, 20), d = in.dim(0, 24);
  const bool rows_major = in.flag();
  static const double kBases[] = {10000.0, 500000.0, 100.0, 2.0, 1.0, 0.5, 1e-30, 1e30};
  const double base = in.flag() ? kBases[in.in_range<int>(0, 7)] : static_cast<double>(in.scalar());
  const std::int64_t offset = in.flag() ? in.in_range<std::int64_t>(0, 40) : in.in_range<std::int64_t>(0, 0x7fffffff);
  const bool interleaved = in.flag(), in_place = in.flag();
  const bool broken = in.in_range<int>(0, 15) == 1;  // the output has one row too many
  const std::vector<float> x = in.matrix(batch * heads * n, d);
  std::vector<float> y = in_place && !broken ? x : std::vector<float>(batch * heads * (broken ? n + 1 : n) * d);
  const auto view = [&](const float* p, std::size_t rows) {
    return rows_major ? attn::rows_major(p, batch, heads, rows, d) : attn::heads_major(p, batch, heads, rows, d);
  };
  const auto out = rows_major ? attn::rows_major(y.data(), batch, heads, broken ? n + 1 : n, d)
                              : attn::heads_major(y.data(), batch, heads, broken ? n + 1 : n, d);
  const attn::RotaryOptions o{base, offset, interleaved};
  const attn::Status s = attn::rotary_embedding(in_place && !broken ? attn::HeadTensor(out) : view(x.data(), n), o, out);
  std::vector<float> angles(n * (d / 2));
  const attn::Status sa = attn::rotary_angles(d, o, attn::dense(angles.data(), n, d / 2));
  fuzz::report({{"X", x, batch * heads * n, d}, {"Y", y, y.size() / (d ? d : 1), d}},
               "batch=%zu heads=%zu n=%zu d=%zu rows_major=%d base=%.17g offset=%lld interleaved=%d in_place=%d broken=%d status=%d,%d",
               batch, heads, n, d, rows_major, base, static_cast<long long>(offset), interleaved, in_place, broken,
               static_cast<int>(s), static_cast<int>(sa));
  const bool good = d % 2 == 0 && base > 0.0 && std::isfinite(base);
  FUZZ_CHECK_STATUS(sa, good);
  if (!FUZZ_CHECK_STATUS(s, good && !broken) || !in.check_values()) return;
  const auto theta = [&](std::size_t i) { return std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d)); };
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < d / 2; ++i) {
      const double angle = (static_cast<double>(offset) + static_cast<double>(r)) * theta(i);
      const float got_angle = angles[r * (d / 2) + i];
      if (angle > kFloatMax)  // a tiny base: beyond float32 (the JS layer reports OVERFLOW)
        FUZZ_CHECK(std::isinf(got_angle) || got_angle == kFloatMax, "an angle beyond float32 is not ∞");
      else
        FUZZ_CHECK(std::fabs(got_angle - angle) <= 1e-7 * angle, "an angle is not position · θ_i");
      const std::size_t a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + d / 2;
      for (std::size_t bt = 0; bt < batch; ++bt)
        for (std::size_t h = 0; h < heads; ++h) {
          const float* xr = view(x.data(), n).head(bt, h).row(r);
          const float* yr = out.head(bt, h).row(r);
          const double xa = xr[a], xb = xr[b], c = std::cos(angle), sn = std::sin(angle);
          const double want[2] = {xa * c - xb * sn, xa * sn + xb * c};
          const float got[2] = {yr[a], yr[b]};
          for (int t = 0; t < 2; ++t) {
            if (std::fabs(want[t]) > kFloatMax) {  // beyond float32: ±∞ or ±FLT_MAX (the JS layer reports OVERFLOW)
              FUZZ_CHECK(std::isinf(got[t]) || std::fabs(got[t]) == kFloatMax, "a rotation beyond float32 is not ±∞");
              continue;
            }
            FUZZ_CHECK(std::fabs(got[t] - want[t]) <= 1e-6 * (std::fabs(xa) + std::fabs(xb)) + 1e-44, "a rotated entry is wrong");
          }
        }
    }
}

void fuzz_alibi(fuzz::Decoder& in) {
  const std::size_t heads = in.dim(0, 40), n = in.dim(0, 40), m = in.dim(0, 40);
  const std::int64_t offset = in.flag() ? in.in_range<std::int64_t>(-60, 60) : in.in_range<std::int32_t>(INT32_MIN, INT32_MAX);
  const bool symmetric = in.flag();
  const std::size_t batch = in.in_range<int>(0, 15) == 1 ? 2 : 1;  // a batch of 2 is refused
  std::vector<float> slopes(heads), bias(batch * heads * n * m);
  const attn::Status ss = attn::alibi_slopes(heads, heads ? slopes.data() : nullptr);
  const attn::Status sb = attn::alibi_bias({offset, symmetric}, attn::heads_major(bias.data(), batch, heads, n, m));
  fuzz::report({{"slopes", slopes, 1, heads}, {"bias", bias, batch * heads * n, m}},
               "heads=%zu n=%zu m=%zu offset=%lld symmetric=%d batch=%zu status=%d,%d", heads, n, m,
               static_cast<long long>(offset), symmetric, batch, static_cast<int>(ss), static_cast<int>(sb));
  FUZZ_CHECK_STATUS(ss, heads > 0);
  if (!FUZZ_CHECK_STATUS(sb, heads > 0 && batch == 1)) return;
  const std::vector<double> want = paper_slopes(heads);
  for (std::size_t h = 0; h < heads; ++h) {
    FUZZ_CHECK(slopes[h] > 0.0f && slopes[h] < 1.0f, "a slope outside (0, 1)");
    FUZZ_CHECK(std::fabs(slopes[h] - want[h]) <= 6e-8 * want[h], "a slope differs from the paper's reference code");
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        const float got = bias[(h * n + i) * m + j];
        const double distance = static_cast<double>(offset) + static_cast<double>(i) - static_cast<double>(j);
        if (!symmetric && distance < 0.0) {
          FUZZ_CHECK(got == -std::numeric_limits<float>::infinity(), "a future key is not hidden");
          continue;
        }
        const double expected = -want[h] * std::fabs(distance);
        FUZZ_CHECK(std::isfinite(got) && got <= 0.0f, "a bias entry is not finite and <= 0");
        FUZZ_CHECK(std::fabs(got - expected) <= 1.2e-7 * std::fabs(expected), "a bias entry is not −m·|i + offset − j|");
        if (distance == 0.0) FUZZ_CHECK(got == 0.0f && !std::signbit(got), "the diagonal is not +0");
      }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  if (in.flag())
    fuzz_rotary(in);
  else
    fuzz_alibi(in);
  return 0;
}
