// Compact storage of float32 parameters, for the saved image (model_image.h):
// IEEE binary16 (float16) and symmetric int8 with one float32 scale per row.
//
// float16: round to nearest, ties to even (what a hardware conversion does);
// subnormals kept. A magnitude of 65520 or more does not fit (it would round
// to infinity), so the caller checks fits_half first.
//
// int8, one row at a time: scale = max|x| / 127 in float32 (one float step
// smaller when 127 × scale would overflow), q = x / scale in float32, rounded
// half away from zero (std::round), clamped to ±127: -128 is never written, so
// the range is symmetric. A row of zeros (or one so small that its scale
// underflows to 0) has scale 0 and every q 0, never a NaN. Reading back is
// q × scale in float32 (one rounding, the same in every build and in JS as
// Math.fround(q * scale)).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

constexpr float kHalfLimit = 65520.0f;  // the smallest magnitude that rounds to float16 infinity
constexpr float kInt8Levels = 127.0f;

inline bool fits_half(float x) { return x > -kHalfLimit && x < kHalfLimit; }  // false for NaN

// x must fit (fits_half); an x that does not gives ±infinity or NaN bits.
std::uint16_t to_half(float x);
// Exact: every float16 is a float32.
float from_half(std::uint16_t bits);
inline bool half_is_finite(std::uint16_t bits) { return (bits & 0x7c00u) != 0x7c00u; }

// The scale of a row of finite values (n may be 0: scale 0).
float int8_scale(const float* row, std::size_t n);
// One value of a row of that scale.
std::int8_t to_int8(float x, float scale);
inline float from_int8(std::int8_t q, float scale) { return static_cast<float>(q) * scale; }
// What int8_scale can give: finite, not negative (-0 neither), and 127 × scale finite,
// so every value read back is finite.
bool int8_scale_is_valid(float scale);

}  // namespace attn
