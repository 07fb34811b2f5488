#include "positional_encoding.h"

#include <cmath>

namespace attn {
namespace {

bool valid_base(double base) { return base > 0.0 && std::isfinite(base); }

// P[i][c]: column pair j = c / 2 has angular frequency base^(-2j/d).
double encoding(std::size_t i, std::size_t c, std::size_t d, double base) {
  const double pair = static_cast<double>(c - c % 2);
  const double angle = static_cast<double>(i) * std::pow(base, -pair / static_cast<double>(d));
  return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

}  // namespace

Status positional_encoding(double base, MatrixView p) {
  if (!valid_base(base)) return Status::bad_argument;
  for (std::size_t i = 0; i < p.rows; ++i)
    for (std::size_t c = 0; c < p.cols; ++c) p.at(i, c) = static_cast<float>(encoding(i, c, p.cols, base));
  return Status::ok;
}

Status add_positional_encoding(ConstMatrixView x, double base, double scale, MatrixView out) {
  if (!valid_base(base) || !(scale > 0.0 && std::isfinite(scale))) return Status::bad_argument;
  if (out.rows != x.rows || out.cols != x.cols) return Status::shape_mismatch;
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t c = 0; c < x.cols; ++c)
      out.at(i, c) = static_cast<float>(scale * static_cast<double>(x.at(i, c)) + encoding(i, c, x.cols, base));
  return Status::ok;
}

}  // namespace attn
