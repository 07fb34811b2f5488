// libFuzzer target: attn::nadaraya_watson with random training sets, queries,
// kernels (known and unknown) and bandwidths.
#include <cmath>

#include "fuzz_common.h"
#include "kernel_regression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t m = in.dim(0, 40), n = in.dim(0, 40);
  const int kernel_code = in.in_range<int>(-1, 4);  // -1 and 4 are unknown kernels
  const bool known = kernel_code >= 0 && kernel_code <= 3;
  const int broken = in.in_range<int>(0, 15);  // 1, 2: the weights matrix has the wrong shape
  const std::size_t w_rows = broken == 1 ? n + 1 : n;
  const std::size_t w_cols = broken == 2 ? m + 1 : m;

  const std::vector<float> x_train = in.matrix(1, m), y_train = in.matrix(1, m), x_query = in.matrix(1, n);
  const float bandwidth = in.flag() ? static_cast<float>(in.in_range<int>(1, 64)) / 8.0f : in.scalar();
  const bool good_bandwidth = bandwidth > 0.0f && std::isfinite(bandwidth);

  std::vector<float> predictions(n), weights(w_rows * w_cols);
  const auto kernel = static_cast<attn::Kernel>(kernel_code);
  if (in.skip_call()) return 0;
  const attn::Status s = attn::nadaraya_watson(x_train.data(), y_train.data(), m, x_query.data(), n, kernel, bandwidth,
                                               predictions.data(), attn::dense(weights.data(), w_rows, w_cols));
  fuzz::report({{"x_train", x_train, 1, m}, {"y_train", y_train, 1, m}, {"x_query", x_query, 1, n},
                {"weights", weights, w_rows, w_cols}, {"predictions", predictions, 1, n}},
               "m=%zu n=%zu kernel=%d bandwidth=%.9g broken=%d status=%d", m, n, kernel_code,
               static_cast<double>(bandwidth), broken, static_cast<int>(s));
  // A bad kernel, bandwidth or weights shape must be refused.
  const bool consistent = known && good_bandwidth && broken != 1 && broken != 2;
  if (!FUZZ_CHECK_STATUS(s, consistent) || !in.check_values()) return 0;

  // A non-finite weight or prediction is reported by the JS layer (OVERFLOW); when all are
  // finite, they must be right.
  if (!fuzz::all_finite(weights) || !fuzz::all_finite(predictions)) return 0;
  const bool compact = kernel == attn::Kernel::boxcar || kernel == attn::Kernel::epanechnikov;
  for (std::size_t i = 0; i < n; ++i) {
    const float* w = weights.data() + i * m;
    double sum = 0.0, lo = INFINITY, hi = -INFINITY, mag = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      FUZZ_CHECK(w[j] >= 0.0f && w[j] <= 1.0f, "a weight outside [0, 1]");
      sum += w[j];
      if (w[j] > 0.0f) {
        lo = std::fmin(lo, static_cast<double>(y_train[j]));
        hi = std::fmax(hi, static_cast<double>(y_train[j]));
      }
      mag = std::fmax(mag, std::fabs(static_cast<double>(y_train[j])));
    }
    if (sum == 0.0) {
      // Only a compact kernel may leave a query with no weight (no training point in its window).
      if (m > 0 && !compact) {
        std::fprintf(stderr, "\nquery %zu (x = %.9g) has all-zero weights under kernel %d\n", i,
                     static_cast<double>(x_query[i]), kernel_code);
        fuzz::fail("a gaussian or constant kernel gave an all-zero weights row", __FILE__, __LINE__);
      }
      FUZZ_CHECK(predictions[i] == 0.0f, "a query with no weight must predict 0");
      continue;
    }
    if (std::fabs(sum - 1.0) > 1e-5 * static_cast<double>(m) + 1e-6) {
      std::fprintf(stderr, "\nweights row %zu sums to %.9g\n", i, sum);
      fuzz::fail("a weights row does not sum to 1", __FILE__, __LINE__);
    }
    const double tol = 1e-5 * mag * static_cast<double>(m) + 1e-30;
    if (!(predictions[i] >= lo - tol && predictions[i] <= hi + tol)) {
      std::fprintf(stderr, "\nprediction %zu = %.9g outside the weighted targets' range [%g, %g]\n", i,
                   static_cast<double>(predictions[i]), lo, hi);
      fuzz::fail("a prediction is not a weighted average of the targets", __FILE__, __LINE__);
    }
  }
  return 0;
}
