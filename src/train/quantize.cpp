#include "train/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attn {
namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  return bits;
}

float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// value >> shift, rounded to nearest with ties to even (shift ≥ 1).
std::uint32_t shift_to_even(std::uint32_t value, std::uint32_t shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

}  // namespace

std::uint16_t to_half(float x) {
  const std::uint32_t f = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t magnitude = f & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (magnitude >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // ≥ 2^16: infinity
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t mantissa = magnitude & 0x7fffffu;
  if (exponent < 113) {  // below 2^-14: a float16 subnormal, in units of 2^-24
    if (exponent < 102) return sign;  // below 2^-25: rounds to zero
    // x = (2^23 + mantissa) · 2^(exponent − 150) = units · 2^-24 with units = that >> (126 − exponent).
    return static_cast<std::uint16_t>(sign | shift_to_even(mantissa | 0x800000u, 126 - exponent));
  }
  // A normal float16: rebias the exponent (127 → 15), keep 10 mantissa bits; a carry
  // out of the mantissa steps the exponent up (to infinity from 65520 on).
  const std::uint32_t rebiased = ((exponent - 112) << 23) | mantissa;
  return static_cast<std::uint16_t>(sign | shift_to_even(rebiased, 13));
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa · 2^-24, exact in float32
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return float_of(sign | bits_of(magnitude));
  }
  if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));
  return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float int8_scale(const float* row, std::size_t n) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(row[i]));
  float scale = largest / kInt8Levels;
  // Rounded up near FLT_MAX, 127 × scale would read back as infinity: take the float below.
  if (!std::isfinite(kInt8Levels * scale)) scale = std::nextafter(scale, 0.0f);
  return scale;
}

std::int8_t to_int8(float x, float scale) {
  if (scale == 0.0f) return 0;
  // A subnormal scale can make x / scale exceed 127 (or overflow): the clamp keeps it in range.
  const float q = std::clamp(std::round(x / scale), -kInt8Levels, kInt8Levels);
  return static_cast<std::int8_t>(q);
}

bool int8_scale_is_valid(float scale) {
  return !std::signbit(scale) && std::isfinite(scale) && std::isfinite(kInt8Levels * scale);
}

}  // namespace attn
