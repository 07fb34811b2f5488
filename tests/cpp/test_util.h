// Shared helpers for the native kernel tests: a fixed-seed random generator,
// an owning float32 matrix that hands out the core's views, the sizes every
// kernel is tried at, and a tolerance check (atol + rtol·|ref|) that names the
// worst entry when it fails.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "mask.h"
#include "matrix.h"
#include "reference.h"

namespace attn_test {

// Below, equal to, above and multiples of the 4-lane vector width (and of the
// 8-column register tiles): every kernel is run at each of these.
inline const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> s = {1, 3, 4, 5, 8, 17, 64, 65};
  return s;
}

// A value no kernel computes: buffers are filled with it to see what a call
// wrote and what it left alone.
constexpr float kSentinel = -12345.625f;

// splitmix64: tiny, fixed-seed, identical on every platform and compiler.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  float uniform(float lo = -1.0f, float hi = 1.0f) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1)
    return static_cast<float>(lo + (hi - lo) * u);
  }
  // Uniform integer in [0, n).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// A seed that differs for every parameter combination, so no two cases share data.
inline std::uint64_t seed_for(std::size_t a, std::size_t b = 0, std::size_t c = 0, std::size_t salt = 0) {
  return 0x5EEDull + 1000003ull * a + 10007ull * b + 101ull * c + 7919ull * salt;
}

// An owning row-major float32 matrix with an optional row stride wider than
// its width (padding columns hold the sentinel, to catch stray reads/writes).
struct Mat {
  std::size_t rows = 0, cols = 0, stride = 0;
  std::vector<float> data;

  Mat() = default;
  Mat(std::size_t r, std::size_t c, float fill = 0.0f, std::size_t pad = 0)
      : rows(r), cols(c), stride(c + pad), data(r * (c + pad), fill) {
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = c; j < stride; ++j) data[i * stride + j] = kSentinel;
  }
  static Mat filled(std::size_t r, std::size_t c, std::initializer_list<float> values) {
    Mat m(r, c);
    std::size_t t = 0;
    for (float x : values) m.data[t++] = x;
    return m;
  }

  float& at(std::size_t i, std::size_t j) { return data[i * stride + j]; }
  float at(std::size_t i, std::size_t j) const { return data[i * stride + j]; }
  float* ptr() { return data.data(); }
  const float* ptr() const { return data.data(); }
  attn::MatrixView view() { return {data.data(), rows, cols, stride}; }
  attn::ConstMatrixView cview() const { return {data.data(), rows, cols, stride}; }

  ref::MatD to_double() const {
    ref::MatD m(rows, cols);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) m.at(i, j) = at(i, j);
    return m;
  }
};

inline Mat random_mat(std::size_t rows, std::size_t cols, Rng& rng, float lo = -1.0f, float hi = 1.0f,
                      std::size_t pad = 0) {
  Mat m(rows, cols, 0.0f, pad);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) m.at(i, j) = rng.uniform(lo, hi);
  return m;
}

// Copies the cols×rows of a view into an owning dense matrix.
inline Mat copy_of(attn::ConstMatrixView v) {
  Mat m(v.rows, v.cols);
  for (std::size_t i = 0; i < v.rows; ++i)
    for (std::size_t j = 0; j < v.cols; ++j) m.at(i, j) = v.at(i, j);
  return m;
}

// |actual - expected| <= atol + rtol·|expected| for every entry; on failure
// the message names the number of bad entries and the worst one (by how far
// it overshoots its tolerance), with both values. NaN and infinities in the
// actual values always fail unless expected holds the same infinity.
inline ::testing::AssertionResult all_close(attn::ConstMatrixView actual, const ref::MatD& expected, double atol,
                                            double rtol) {
  if (actual.rows != expected.rows || actual.cols != expected.cols) {
    return ::testing::AssertionFailure() << "shape " << actual.rows << "x" << actual.cols << " but expected "
                                         << expected.rows << "x" << expected.cols;
  }
  std::size_t bad = 0, wi = 0, wj = 0;
  double worst = -1.0;
  for (std::size_t i = 0; i < actual.rows; ++i) {
    for (std::size_t j = 0; j < actual.cols; ++j) {
      const double a = actual.at(i, j), e = expected.at(i, j);
      double excess;
      if (std::isinf(e) && a == e) {
        excess = -1.0;
      } else if (!std::isfinite(a)) {
        excess = std::numeric_limits<double>::infinity();
      } else {
        excess = std::fabs(a - e) - (atol + rtol * std::fabs(e));
      }
      if (excess > 0.0) ++bad;
      if (excess > worst) {
        worst = excess;
        wi = i;
        wj = j;
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  std::ostringstream msg;
  msg.precision(9);
  msg << bad << " of " << actual.rows * actual.cols << " entries outside atol " << atol << " + rtol " << rtol
      << "·|ref|; worst at [" << wi << "][" << wj << "]: got " << actual.at(wi, wj) << ", expected "
      << expected.at(wi, wj) << " (error " << std::fabs(actual.at(wi, wj) - expected.at(wi, wj)) << ")";
  return ::testing::AssertionFailure() << msg.str();
}

inline ::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<double>& expected,
                                            double atol, double rtol) {
  ref::MatD e(1, expected.size());
  e.data = expected;
  return all_close(attn::dense(actual.data(), 1, actual.size()), e, atol, rtol);
}

// Every entry outside the given view's columns/rows still holds the sentinel:
// true when a call wrote only where it was allowed to.
inline ::testing::AssertionResult untouched(const std::vector<float>& buffer, const std::string& what) {
  for (std::size_t t = 0; t < buffer.size(); ++t)
    if (std::memcmp(&buffer[t], &kSentinel, sizeof(float)) != 0)
      return ::testing::AssertionFailure() << what << "[" << t << "] was written: " << buffer[t];
  return ::testing::AssertionSuccess();
}

// The padding columns (stride beyond cols) of m still hold the sentinel.
inline ::testing::AssertionResult padding_untouched(const Mat& m) {
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = m.cols; j < m.stride; ++j)
      if (m.at(i, j) != kSentinel)
        return ::testing::AssertionFailure() << "padding [" << i << "][" << j << "] was written: " << m.at(i, j);
  return ::testing::AssertionSuccess();
}

// A mask together with the data it points at and its reference visibility.
// mask() builds the core's view on demand, so copies never dangle.
struct MaskCase {
  attn::MaskKind kind = attn::MaskKind::none;
  std::vector<std::int32_t> lens;
  std::vector<std::uint8_t> bits;
  std::size_t n = 0, m = 0;
  ref::Visibility vis;

  attn::Mask mask() const {
    switch (kind) {
      case attn::MaskKind::none:
        return attn::Mask{};
      case attn::MaskKind::causal:
        return attn::Mask::causal();
      case attn::MaskKind::valid_lens:
        return attn::Mask::lengths(lens.data());
      case attn::MaskKind::matrix:
        return attn::Mask::matrix(bits.data(), n, m);
    }
    return attn::Mask{};
  }
};

inline const char* kind_name(attn::MaskKind kind) {
  switch (kind) {
    case attn::MaskKind::none:
      return "none";
    case attn::MaskKind::causal:
      return "causal";
    case attn::MaskKind::valid_lens:
      return "valid_lens";
    case attn::MaskKind::matrix:
      return "matrix";
  }
  return "?";
}

inline const std::vector<attn::MaskKind>& all_kinds() {
  static const std::vector<attn::MaskKind> k = {attn::MaskKind::none, attn::MaskKind::causal,
                                                attn::MaskKind::valid_lens, attn::MaskKind::matrix};
  return k;
}

// A random mask of the given kind for an n×m score matrix. Valid lengths
// cover 0 and m (row 0 gets 0, the last row m when n > 1); a matrix mask has
// about 70% ones and, when n > 1, an all-zero row 1.
inline MaskCase make_mask(attn::MaskKind kind, std::size_t n, std::size_t m, Rng& rng) {
  MaskCase c;
  c.kind = kind;
  c.n = n;
  c.m = m;
  switch (kind) {
    case attn::MaskKind::none:
      c.vis = ref::all_visible(n, m);
      break;
    case attn::MaskKind::causal:
      c.vis = ref::causal(n, m);
      break;
    case attn::MaskKind::valid_lens:
      c.lens.resize(n);
      for (std::size_t i = 0; i < n; ++i) c.lens[i] = static_cast<std::int32_t>(rng.below(m + 1));
      c.lens[0] = 0;
      if (n > 1) c.lens[n - 1] = static_cast<std::int32_t>(m);
      c.vis = ref::valid_lengths(n, m, c.lens);
      break;
    case attn::MaskKind::matrix:
      c.bits.resize(n * m);
      for (auto& b : c.bits) b = rng.below(10) < 7 ? 1 : 0;
      if (n > 1)
        for (std::size_t j = 0; j < m; ++j) c.bits[1 * m + j] = 0;
      c.vis = ref::from_bits(n, m, c.bits);
      break;
  }
  return c;
}

// Parameterised tests run over pairs of sizes (rows × keys, rows × columns);
// the third size (inner width) is looped over inside each test, so all three
// take every value in sizes() without thousands of separate ctest processes.
using SizePair = std::tuple<std::size_t, std::size_t>;

inline auto size_pairs() { return ::testing::Combine(::testing::ValuesIn(sizes()), ::testing::ValuesIn(sizes())); }

// Readable parameter names: "n17_m4".
inline std::string pair_name(const ::testing::TestParamInfo<SizePair>& info) {
  return "n" + std::to_string(std::get<0>(info.param)) + "_m" + std::to_string(std::get<1>(info.param));
}

}  // namespace attn_test
