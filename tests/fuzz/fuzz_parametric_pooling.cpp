// libFuzzer target: attn::fit_parametric_pooling and attn::pooling_loss with
// random training sets (every value family), starting w, learning rates
// (good, zero, negative, NaN, ∞) and epoch counts.
#include <cmath>

#include "fuzz_common.h"
#include "parametric_pooling.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t m = in.dim(0, 24), epochs = in.dim(0, 8);
  const double w0 = in.flag() ? in.in_range<int>(-16, 16) / 4.0 : static_cast<double>(in.scalar());
  const double rate = in.flag() ? in.in_range<int>(0, 16) / 32.0 : static_cast<double>(in.scalar());
  const std::vector<float> x = in.matrix(1, m), y = in.matrix(1, m);
  std::vector<float> losses(epochs);
  double w = -12345.0;
  const attn::Status s = attn::fit_parametric_pooling(x.data(), y.data(), m, w0, rate, epochs, losses.data(), &w);
  fuzz::report({{"x", x, 1, m}, {"y", y, 1, m}, {"losses", losses, 1, epochs}},
               "m=%zu epochs=%zu w0=%.17g rate=%.17g status=%d w=%.17g", m, epochs, w0, rate, static_cast<int>(s), w);
  FUZZ_CHECK(fuzz::known_status(s), "unknown status");
  if (m < 2) {
    FUZZ_CHECK(s == attn::Status::shape_mismatch, "fewer than 2 points were accepted");
    return 0;
  }
  if (!std::isfinite(w0) || !std::isfinite(rate) || rate < 0.0) {
    FUZZ_CHECK(s == attn::Status::bad_argument, "a bad w0 or learning rate was accepted");
    return 0;
  }
  FUZZ_CHECK(s == attn::Status::ok, "good arguments were refused");
  if (epochs == 0) FUZZ_CHECK(w == w0, "zero epochs changed w");
  if (!in.check_values() || !in.moderate()) return 0;
  // Moderate inputs: every loss is finite and non-negative, however far a step throws w (the loss
  // tends to the nearest-neighbour loss as |w| grows, and is that loss at w = ±∞), and w is a number.
  for (std::size_t e = 0; e < epochs; ++e) {
    FUZZ_CHECK(!(losses[e] < 0.0f), "a negative loss");
    FUZZ_CHECK(std::isfinite(losses[e]), "a loss that is not finite");
  }
  FUZZ_CHECK(!std::isnan(w), "w is NaN");
  if (epochs > 0) {
    const double first = attn::pooling_loss(x.data(), y.data(), m, w0, nullptr);
    FUZZ_CHECK(std::fabs(losses[0] - first) <= 1e-6 * (1.0 + first), "the first loss is not L(w0)");
  }
  return 0;
}
