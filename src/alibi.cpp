#include "alibi.h"

#include <cmath>
#include <limits>

namespace attn {

double alibi_slope(std::size_t h, std::size_t heads) {
  std::size_t n = 1;  // the closest power of two <= heads
  while (n <= heads / 2) n *= 2;
  // Power of two n: m = 2^(−8(h+1)/n) (start = ratio = 2^(−8/n)). Past n: slopes 1, 3, 5, … of
  // 2n's sequence (those not already among n's), in that order.
  const double k = h < n ? static_cast<double>(h + 1) : static_cast<double>(2 * (h - n) + 1);
  return std::exp2(-8.0 * k / static_cast<double>(h < n ? n : 2 * n));
}

Status alibi_slopes(std::size_t heads, float* slopes) {
  if (heads == 0 || slopes == nullptr) return Status::bad_argument;
  for (std::size_t h = 0; h < heads; ++h) slopes[h] = static_cast<float>(alibi_slope(h, heads));
  return Status::ok;
}

Status alibi_bias(const AlibiOptions& o, const MutHeadTensor& out) {
  if (out.batch != 1 || out.heads == 0) return Status::bad_argument;
  for (std::size_t h = 0; h < out.heads; ++h) {
    const double slope = alibi_slope(h, out.heads);
    const MatrixView plane = out.head(0, h);
    for (std::size_t i = 0; i < plane.rows; ++i) {
      const double frontier = static_cast<double>(o.offset) + static_cast<double>(i);  // the query's own position
      for (std::size_t j = 0; j < plane.cols; ++j) {
        const double distance = frontier - static_cast<double>(j);
        // 0 − m·|d|, not −(m·|d|): the diagonal is +0, not −0.
        plane.at(i, j) = o.symmetric || distance >= 0.0 ? static_cast<float>(0.0 - slope * std::fabs(distance))
                                                        : -std::numeric_limits<float>::infinity();
      }
    }
  }
  return Status::ok;
}

}  // namespace attn
