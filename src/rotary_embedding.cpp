#include "rotary_embedding.h"

#include <cmath>

namespace attn {
namespace {

bool valid(std::size_t d, const RotaryOptions& o) { return d % 2 == 0 && o.base > 0.0 && std::isfinite(o.base); }

// θ_i = base^(−2i/d): pair 0 turns one radian per position, the last pair slowest.
double frequency(std::size_t i, std::size_t d, double base) {
  return std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
}

double position(const RotaryOptions& o, std::size_t r) { return static_cast<double>(o.offset) + static_cast<double>(r); }

}  // namespace

Status rotary_embedding(const HeadTensor& x, const RotaryOptions& o, const MutHeadTensor& out) {
  if (!valid(x.cols, o)) return Status::bad_argument;
  if (out.batch != x.batch || out.heads != x.heads || out.rows != x.rows || out.cols != x.cols)
    return Status::shape_mismatch;
  const std::size_t half = x.cols / 2;
  // Pass 1 per (pair, position): the angle's cosine and sine, shared by every batch entry and head.
  // Pass 2: rotate that pair of every head's row (both read before either is written, so out may be x).
  for (std::size_t i = 0; i < half; ++i) {
    const double theta = frequency(i, x.cols, o.base);
    const std::size_t a = o.interleaved ? 2 * i : i, b = o.interleaved ? 2 * i + 1 : i + half;
    for (std::size_t r = 0; r < x.rows; ++r) {
      const double angle = position(o, r) * theta, c = std::cos(angle), s = std::sin(angle);
      for (std::size_t bt = 0; bt < x.batch; ++bt)
        for (std::size_t h = 0; h < x.heads; ++h) {
          const float* in = x.head(bt, h).row(r);
          float* to = out.head(bt, h).row(r);
          const double xa = in[a], xb = in[b];
          to[a] = static_cast<float>(xa * c - xb * s);
          to[b] = static_cast<float>(xa * s + xb * c);
        }
    }
  }
  return Status::ok;
}

Status rotary_angles(std::size_t d, const RotaryOptions& o, MatrixView angles) {
  if (!valid(d, o)) return Status::bad_argument;
  if (angles.cols != d / 2) return Status::shape_mismatch;
  for (std::size_t r = 0; r < angles.rows; ++r)
    for (std::size_t i = 0; i < angles.cols; ++i)
      angles.at(r, i) = static_cast<float>(position(o, r) * frequency(i, d, o.base));
  return Status::ok;
}

}  // namespace attn
