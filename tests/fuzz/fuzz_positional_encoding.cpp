// libFuzzer target: attn::positional_encoding and attn::add_positional_encoding
// with random sizes, bases (good, zero, negative, NaN, infinite, extreme),
// embedding scales (1, √d, good, zero, negative, NaN, infinite, extreme),
// inputs X of every value mode, mismatched output shapes and in-place calls.
#include <cmath>

#include "fuzz_common.h"
#include "positional_encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 64), d = in.dim(0, 64);
  static const double kBases[] = {10000.0, 100.0, 2.0, 1.0, 0.5, 1e-30};
  const double base = in.flag() ? kBases[in.in_range<int>(0, 5)] : static_cast<double>(in.scalar());
  const bool good_base = base > 0.0 && std::isfinite(base);
  const int scale_kind = in.in_range<int>(0, 3);
  const double scale = scale_kind == 0   ? 1.0
                       : scale_kind == 1 ? std::sqrt(static_cast<double>(d))
                                         : static_cast<double>(in.scalar());
  const bool good_scale = scale > 0.0 && std::isfinite(scale);
  const bool broken = in.in_range<int>(0, 15) == 1;  // the output has one row too many
  const bool in_place = in.flag();
  std::vector<float> x = in.matrix(n, d);
  const bool x_finite = fuzz::all_finite(x);

  std::vector<float> p(n * d), sum((broken ? n + 1 : n) * d);
  const attn::Status sp = attn::positional_encoding(base, attn::dense(p.data(), n, d));
  const attn::Status sa =
      in_place && !broken
          ? attn::add_positional_encoding(attn::dense(x.data(), n, d), base, scale, attn::dense(x.data(), n, d))
          : attn::add_positional_encoding(attn::dense(x.data(), n, d), base, scale,
                                          attn::dense(sum.data(), broken ? n + 1 : n, d));
  const std::vector<float>& added = in_place && !broken ? x : sum;
  fuzz::report({{"P", p, n, d}}, "n=%zu d=%zu base=%.17g scale=%.17g broken=%d in_place=%d status=%d,%d", n, d, base,
               scale, broken, in_place, static_cast<int>(sp), static_cast<int>(sa));
  FUZZ_CHECK(fuzz::known_status(sp) && fuzz::known_status(sa), "unknown status");
  if (!good_base) {
    FUZZ_CHECK(sp == attn::Status::bad_argument && sa == attn::Status::bad_argument, "a bad base was accepted");
    return 0;
  }
  FUZZ_CHECK(sp == attn::Status::ok, "a good base was refused");
  if (!good_scale) {
    FUZZ_CHECK(sa == attn::Status::bad_argument, "a bad scale was accepted");
    return 0;
  }
  FUZZ_CHECK(sa == (broken ? attn::Status::shape_mismatch : attn::Status::ok), "wrong status for add");

  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const float v = p[i * d + c];
      FUZZ_CHECK(std::isfinite(v) && v >= -1.0f && v <= 1.0f, "an encoding outside [-1, 1]");
      if (i == 0) FUZZ_CHECK(v == (c % 2 == 0 ? 0.0f : 1.0f), "position 0 is not (0, 1, 0, 1, ...)");
      if (c % 2 == 1) {
        const double s = p[i * d + c - 1], co = v;
        FUZZ_CHECK(std::fabs(s * s + co * co - 1.0) < 1e-6, "a (sin, cos) pair without norm 1");
      }
    }
  if (broken || !x_finite) return 0;
  for (std::size_t t = 0; t < n * d; ++t) {
    // x was overwritten when in place; its original is (added - p) / scale up to rounding.
    const double got = added[t], pv = p[t];
    if (!in_place) {
      const double want = scale * static_cast<double>(x[t]) + pv;
      // beyond float32's range the result rounds to ±∞, or to ±FLT_MAX within
      // half an ulp of it (the JS layer reports ∞ as OVERFLOW)
      if (std::fabs(want) > 3.4028234663852886e38) {
        FUZZ_CHECK(std::isinf(got) || std::fabs(got) == 3.4028234663852886e38,
                   "scale · X + P beyond float32's range is not ±∞");
        continue;
      }
      FUZZ_CHECK(std::isfinite(got), "scale · X + P of a finite X is not finite");
      FUZZ_CHECK(std::fabs(got - want) <= 1e-6 * (1.0 + std::fabs(want)), "scale · X + P is wrong");
    } else if (scale <= 1.0) {
      FUZZ_CHECK(std::isfinite(got), "scale · X + P of a finite X is not finite");
    }
  }
  return 0;
}
