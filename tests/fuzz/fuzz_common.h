// Shared by the libFuzzer targets: decoding shapes, values and masks from the
// fuzz input, and the invariants every entry point must keep. After its call a
// target prints what it called with (fuzz::report, under ATTN_FUZZ_DUMP=1) and
// checks the status (FUZZ_CHECK_STATUS) before it checks the values.
//
// Every buffer handed to the core is a std::vector of exactly the declared
// size, so AddressSanitizer reports any read or write past it. Shapes are
// small (at most 40) so each input runs in microseconds.
//
// Invariants checked (a failure aborts, which libFuzzer records as a crash):
//   - the status is ok or one of the defined error codes;
//   - arguments the target built consistently are accepted (status ok), and
//     arguments it deliberately broke (a wrong size, a bad mask) are refused;
//   - for finite inputs inside the JS layer's overflow guard (the score
//     bounds of bindings/overflow.js, mirrored by each target) and an ok
//     status: weights each in [0, 1], each row
//     summing to 1 over its visible keys or all zero when no key is visible,
//     masked weights exactly 0, and outputs and traces correct (checked
//     against float64) -- unless something the JS layer copies out is
//     non-finite, which its after-call scan reports as an OVERFLOW error.
//     Finite but wrong results are what these checks exist to catch: the JS
//     layer cannot see them.
//
// ATTN_FUZZ_SKIP_KNOWN=1 in the environment steps around the findings already
// reported (tests/fuzz/regressions/), so that a local run can look for new
// ones: the value checks (no NaN or infinity, sums, references) apply only to
// inputs of moderate magnitude (|x| <= 128), sidestepping float32 overflow on
// huge finite inputs, multi-head skips empty inputs (null buffers), and the
// scalar back end skips non-moderate inputs altogether (UB in exp2_integral).
// Memory safety and statuses are still checked. CI never sets it.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace fuzz {

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "\nFUZZ INVARIANT VIOLATED at %s:%d: %s\n", file, line, what);
  std::abort();
}

#define FUZZ_CHECK(cond, what)                           \
  do {                                                   \
    if (!(cond)) ::fuzz::fail(what, __FILE__, __LINE__); \
  } while (0)

inline bool skip_known() {
  static const bool allow = [] {
    const char* v = std::getenv("ATTN_FUZZ_SKIP_KNOWN");
    return v != nullptr && v[0] == '1';
  }();
  return allow;
}

// How the values of one argument are drawn.
enum class Values : std::uint8_t {
  moderate = 0,   // multiples of 1/256 in [-128, 128]
  small_int = 1,  // integers in [-4, 4] (ties and exact sums)
  extreme = 2,    // any finite float, biased to FLT_MAX, denormals, exp's edges
  any = 3,        // any bit pattern: NaN and ±infinity included
};

class Decoder {
 public:
  Decoder(const std::uint8_t* data, std::size_t size) : fdp_(data, size) {}

  std::size_t dim(std::size_t lo, std::size_t hi) { return fdp_.ConsumeIntegralInRange<std::size_t>(lo, hi); }
  bool flag() { return fdp_.ConsumeBool(); }
  std::uint8_t byte() { return fdp_.ConsumeIntegral<std::uint8_t>(); }
  template <typename T>
  T in_range(T lo, T hi) {
    return fdp_.ConsumeIntegralInRange<T>(lo, hi);
  }

  Values values() {
    const auto v = static_cast<Values>(fdp_.ConsumeIntegralInRange<int>(0, 3));
    if (v == Values::extreme || v == Values::any) moderate_ = false;
    if (v == Values::any) finite_ = false;
    return v;
  }

  float value(Values mode) {
    switch (mode) {
      case Values::moderate:
        return static_cast<float>(fdp_.ConsumeIntegral<std::int16_t>()) / 256.0f;
      case Values::small_int:
        return static_cast<float>(fdp_.ConsumeIntegralInRange<int>(-4, 4));
      case Values::extreme: {
        static const float kEdges[] = {0.0f,     -0.0f,   1.0f,     -1.0f,   FLT_MAX, -FLT_MAX, FLT_MIN,
                                       -FLT_MIN, 1e-45f,  88.72f,   -87.34f, 89.0f,   -104.0f,  1e19f,
                                       -1e19f,   1.9e19f, 1.85e19f, 3.4e38f, 1e30f,   -1e30f,   65504.0f};
        const std::uint32_t bits = fdp_.ConsumeIntegral<std::uint32_t>();
        if ((bits & 3u) != 0) return kEdges[(bits >> 2) % (sizeof kEdges / sizeof kEdges[0])];
        float x;
        std::memcpy(&x, &bits, sizeof x);
        return std::isfinite(x) ? x : FLT_MAX;
      }
      case Values::any: {
        const std::uint32_t bits = fdp_.ConsumeIntegral<std::uint32_t>();
        float x;
        if ((bits & 7u) == 0) return (bits & 8u) ? INFINITY : -INFINITY;
        if ((bits & 7u) == 1) return NAN;
        std::memcpy(&x, &bits, sizeof x);
        return x;
      }
    }
    return 0.0f;
  }

  // A scalar argument (scale, bandwidth): its own value mode.
  float scalar() { return value(values()); }

  // An exactly-sized row-major buffer of rows × cols values.
  std::vector<float> matrix(std::size_t rows, std::size_t cols) {
    const Values mode = values();
    std::vector<float> m(rows * cols);
    for (float& x : m) x = value(mode);
    return m;
  }

  // True when no input so far could hold a NaN or an infinity.
  bool finite() const { return finite_; }
  // True when every input so far was of moderate magnitude.
  bool moderate() const { return moderate_; }
  // With ATTN_FUZZ_SKIP_KNOWN=1 on the scalar back end, inputs that are not
  // moderate are not run at all: NaN or infinite scores reach the scalar
  // exp2_integral's float-to-int conversion out of range (reported, UB).
  bool skip_call() const {
#if defined(ATTN_FORCE_SCALAR)
    return skip_known() && !moderate_;
#else
    return false;
#endif
  }

  // Whether the value invariants (finite outputs, sums, references) apply.
  bool check_values() const { return finite_ && (moderate_ || !skip_known()); }

 private:
  FuzzedDataProvider fdp_;
  bool finite_ = true;
  bool moderate_ = true;
};

// A mask for an n×m score matrix, decoded from the input, with the buffers
// it points into. `valid` says whether check_mask must accept it.
struct FuzzMask {
  attn::Mask mask;
  std::vector<std::int32_t> lens;
  std::vector<std::uint8_t> bits;
  bool valid = true;
};

inline FuzzMask decode_mask(Decoder& in, std::size_t n, std::size_t m) {
  FuzzMask fm;
  const int kind = in.in_range<int>(0, 5);
  switch (kind) {
    case 0:
      fm.mask = attn::Mask{};
      break;
    case 1:
      fm.mask = attn::Mask::causal();
      break;
    case 2: {  // valid lengths, now and then out of [0, m]
      fm.lens.resize(n);
      const bool wild = in.in_range<int>(0, 7) == 0;
      for (auto& len : fm.lens) {
        len = wild ? in.in_range<std::int32_t>(INT32_MIN, INT32_MAX)
                   : in.in_range<std::int32_t>(-1, static_cast<std::int32_t>(m) + 1);
        if (len < 0 || static_cast<std::size_t>(len) > m) fm.valid = false;
      }
      fm.mask = attn::Mask::lengths(fm.lens.data());
      if (n > 0 && fm.lens.data() == nullptr) fm.valid = false;
      break;
    }
    case 3: {  // a 0/1 matrix (any non-zero byte means visible), now and then of the wrong shape
      std::size_t rows = n, cols = m;
      const int off = in.in_range<int>(0, 9);
      if (off == 1) rows = n + 1;
      if (off == 2 && n > 0) rows = n - 1;
      if (off == 3) cols = m + 1;
      if (off == 4 && m > 0) cols = m - 1;
      fm.bits.resize(rows * cols);
      const bool dense_ones = in.flag();
      for (auto& b : fm.bits) b = dense_ones ? static_cast<std::uint8_t>(in.in_range<int>(0, 3) != 0) : in.byte();
      fm.mask = attn::Mask::matrix(fm.bits.empty() ? nullptr : fm.bits.data(), rows, cols);
      if (rows != n || cols != m) fm.valid = false;
      break;
    }
    default:  // an unknown kind
      fm.mask.kind = static_cast<attn::MaskKind>(kind == 4 ? -1 : 7);
      fm.valid = false;
      break;
  }
  return fm;
}

// The largest Euclidean norm of a row, in double (overflow.js maxRowNorm).
inline double max_row_norm(const std::vector<float>& m, std::size_t rows, std::size_t cols) {
  double best = 0.0;
  for (std::size_t i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols; ++j) sum += static_cast<double>(m[i * cols + j]) * m[i * cols + j];
    best = std::fmax(best, sum);
  }
  return std::sqrt(best);
}

// How far an attention output row may be from the step-by-step path's
// (fuzz_fused_attention, fuzz_online_softmax): both round the scores in float32,
// in different orders, and a score error e moves a weight by a factor up to
// e^(±2e). So beside 1e-4 abs + 1e-3 rel the tolerance grows with the scores'
// rounding bound (|q|·|k| summed over the row's visible keys) and the size of
// their values. Q n×d, K m×d, V m×d_v, row-major.
struct RowTolerance {
  double vmax = 0.0, spread = 0.0;
  std::size_t m = 0;
  double at(double want) const {
    return 1e-4 + 1e-3 * std::fabs(want) + vmax * spread + 1e-5 * vmax * static_cast<double>(m);
  }
};
inline RowTolerance row_tolerance(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                  std::size_t row, std::size_t m, std::size_t d, std::size_t dv,
                                  const attn::Mask& mask, float scale) {
  double mag = 0.0, vmax = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    if (!mask.visible(row, j)) continue;
    double a = 0.0;
    for (std::size_t p = 0; p < d; ++p) a += std::fabs(static_cast<double>(q[row * d + p]) * k[j * d + p]);
    mag = std::fmax(mag, a);
    for (std::size_t c = 0; c < dv; ++c) vmax = std::fmax(vmax, std::fabs(static_cast<double>(v[j * dv + c])));
  }
  const double score_err = 1.2e-7 * static_cast<double>(d + 2) * mag * std::fabs(static_cast<double>(scale));
  return {vmax, std::fmin(2.0, std::expm1(4.0 * score_err + 1e-6 * static_cast<double>(m))), m};
}

// The Frobenius norm, in double (overflow.js frobenius).
inline double frobenius(const std::vector<float>& m) {
  double sum = 0.0;
  for (float x : m) sum += static_cast<double>(x) * x;
  return std::sqrt(sum);
}

// overflow.js checkScoreBound: the call goes ahead only when the bound fits float32.
inline bool score_bound_ok(double bound) { return bound <= static_cast<double>(FLT_MAX); }

inline bool all_finite(const std::vector<float>& m) {
  for (float x : m)
    if (!std::isfinite(x)) return false;
  return true;
}

// Whether query i may see key j under a mask that check_mask accepted.
inline bool visible(const attn::Mask& mask, std::size_t i, std::size_t j) { return mask.visible(i, j); }

// ATTN_FUZZ_DUMP=1: print the decoded arguments and the results (to read a reproducer).
inline bool dumping() {
  static const bool dump = std::getenv("ATTN_FUZZ_DUMP") != nullptr;
  return dump;
}

// One matrix of a call's arguments or results, as the dump shows it.
struct Shown {
  Shown(const char* name_, const float* data_, std::size_t rows_, std::size_t cols_)
      : name(name_), data(data_), rows(rows_), cols(cols_) {}
  Shown(const char* name_, const std::vector<float>& values, std::size_t rows_, std::size_t cols_)
      : Shown(name_, values.data(), rows_, cols_) {}
  const char* name;
  const float* data;
  std::size_t rows, cols;
};

inline void dump(const char* name, const float* data, std::size_t rows, std::size_t cols) {
  if (!dumping()) return;
  std::fprintf(stderr, "%s (%zu×%zu):\n", name, rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    std::fprintf(stderr, "  ");
    for (std::size_t j = 0; j < cols; ++j) std::fprintf(stderr, " %.9g", static_cast<double>(data[i * cols + j]));
    std::fprintf(stderr, "\n");
  }
}

// When dumping: a line of sizes and flags (printf format), then each matrix.
[[gnu::format(printf, 2, 3)]] inline void report(std::initializer_list<Shown> shown, const char* format, ...) {
  if (!dumping()) return;
  std::va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  for (const Shown& m : shown) dump(m.name, m.data, m.rows, m.cols);
}

inline void dump_mask(const FuzzMask& fm, std::size_t n) {
  if (!dumping()) return;
  std::fprintf(stderr, "mask kind %d (%s)\n", static_cast<int>(fm.mask.kind), fm.valid ? "valid" : "invalid");
  if (fm.mask.kind == attn::MaskKind::valid_lens)
    for (std::size_t i = 0; i < n; ++i) std::fprintf(stderr, "  valid_lens[%zu] = %d\n", i, fm.lens[i]);
  if (fm.mask.kind == attn::MaskKind::matrix)
    for (std::size_t i = 0; i < fm.mask.rows; ++i) {
      std::fprintf(stderr, "  ");
      for (std::size_t j = 0; j < fm.mask.cols; ++j) std::fprintf(stderr, "%d", fm.bits[i * fm.mask.cols + j] != 0);
      std::fprintf(stderr, "\n");
    }
}

inline bool known_status(attn::Status s) {
  return s == attn::Status::ok || s == attn::Status::shape_mismatch || s == attn::Status::bad_argument ||
         s == attn::Status::bad_mask;
}

// The status checks every target makes after a call: a defined status, and then refused when the
// target broke an argument or the mask (`consistent` false), accepted otherwise. Returns whether
// the call was accepted, that is whether there are results to check. Use FUZZ_CHECK_STATUS.
inline bool check_status(attn::Status s, bool consistent, const char* file, int line) {
  if (!known_status(s)) fail("unknown status", file, line);
  if (!consistent && s == attn::Status::ok) fail("inconsistent arguments were accepted", file, line);
  if (consistent && s != attn::Status::ok) {
    std::fprintf(stderr, "\nstatus %d\n", static_cast<int>(s));
    fail("consistent arguments were refused", file, line);
  }
  return consistent;
}

#define FUZZ_CHECK_STATUS(status, consistent) ::fuzz::check_status((status), (consistent), __FILE__, __LINE__)

inline void check_all_finite(const float* data, std::size_t count, const char* what) {
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isfinite(data[i])) {
      std::fprintf(stderr, "\n%s[%zu] = %g\n", what, i, static_cast<double>(data[i]));
      fail("finite inputs gave a non-finite output", __FILE__, __LINE__);
    }
}

// The weights invariant for an n×m block under a valid mask, for finite
// inputs: masked entries exactly 0, the others in [0, 1], each row summing to
// 1 over a non-empty visible set and all 0 otherwise.
inline void check_weights(const float* w, std::size_t n, std::size_t m, const attn::Mask& mask) {
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = w + i * m;
    bool any_visible = false;
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      if (!mask.visible(i, j)) {
        if (row[j] != 0.0f) {
          std::fprintf(stderr, "\nweights[%zu][%zu] = %g but the key is masked\n", i, j, static_cast<double>(row[j]));
          fail("a masked weight is not exactly 0", __FILE__, __LINE__);
        }
        continue;
      }
      any_visible = true;
      if (!(row[j] >= 0.0f && row[j] <= 1.0f)) {
        std::fprintf(stderr, "\nweights[%zu][%zu] = %g\n", i, j, static_cast<double>(row[j]));
        fail("a weight outside [0, 1]", __FILE__, __LINE__);
      }
      sum += row[j];
    }
    if (any_visible && std::fabs(sum - 1.0) > 1e-5 * static_cast<double>(m) + 1e-6) {
      std::fprintf(stderr, "\nweights row %zu sums to %.9g over its visible keys\n", i, sum);
      fail("a row with visible keys does not sum to 1", __FILE__, __LINE__);
    }
    if (!any_visible) FUZZ_CHECK(sum == 0.0, "a fully masked row has non-zero weights");
  }
}

// The masked trace: masked entries hold -FLT_MAX, visible ones the step before.
inline void check_masked_trace(const float* masked, const float* before, std::size_t n, std::size_t m,
                               const attn::Mask& mask) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      const float got = masked[i * m + j];
      if (mask.visible(i, j)) {
        const float want = before[i * m + j];
        FUZZ_CHECK(got == want || (std::isnan(got) && std::isnan(want)), "masked trace differs from the scaled scores");
      } else {
        FUZZ_CHECK(got == -FLT_MAX, "a masked trace entry is not -FLT_MAX");
      }
    }
}

// Output row i is a convex combination of the visible value rows: within
// their range (up to rounding), and 0 for a fully masked row.
inline void check_pooled_output(const float* out, const float* w, const float* v, std::size_t n, std::size_t m,
                                std::size_t dv, const attn::Mask& mask) {
  for (std::size_t i = 0; i < n; ++i) {
    bool any_visible = false;
    for (std::size_t j = 0; j < m; ++j) any_visible = any_visible || mask.visible(i, j);
    for (std::size_t c = 0; c < dv; ++c) {
      const float o = out[i * dv + c];
      if (!any_visible) {
        FUZZ_CHECK(o == 0.0f, "a fully masked row has a non-zero output");
        continue;
      }
      double lo = INFINITY, hi = -INFINITY, mag = 0.0, ref = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        if (!mask.visible(i, j)) continue;
        const double x = v[j * dv + c];
        lo = std::fmin(lo, x);
        hi = std::fmax(hi, x);
        mag = std::fmax(mag, std::fabs(x));
        ref += static_cast<double>(w[i * m + j]) * x;
      }
      const double tol = 1e-5 * mag * static_cast<double>(m) + 1e-30;
      if (!(o >= lo - tol && o <= hi + tol) || std::fabs(o - ref) > tol) {
        std::fprintf(stderr, "\noutput[%zu][%zu] = %.9g, weights·V = %.9g, value range [%g, %g]\n", i, c,
                     static_cast<double>(o), ref, lo, hi);
        fail("an output is not the weighted average of the visible values", __FILE__, __LINE__);
      }
    }
  }
}

}  // namespace fuzz
