// Which keys a query may attend to. Four kinds, as taught:
//   none        every key is visible;
//   causal      key j is visible to query i iff j <= i (a decoder cannot peek ahead);
//   valid_lens  query i sees keys 0 .. valid_lens[i]-1 (padding, as in Dive into
//               Deep Learning's masked softmax);
//   matrix      bits[i*cols + j] != 0 means query i may attend to key j.
// A masked score is treated as -infinity: its softmax weight is exactly 0.
// A row with no visible key gets all-zero weights (and so an all-zero output
// row), never NaN and never a uniform row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace attn {

enum class MaskKind : int { none = 0, causal = 1, valid_lens = 2, matrix = 3 };

struct Mask {
  MaskKind kind = MaskKind::none;
  const std::int32_t* valid_lens = nullptr;  // one per query row, for valid_lens
  const std::uint8_t* bits = nullptr;        // rows × cols, for matrix
  std::size_t rows = 0;                      // shape the mask was made for (matrix kind)
  std::size_t cols = 0;

  static Mask causal() { return {MaskKind::causal}; }
  static Mask lengths(const std::int32_t* lens) { return {MaskKind::valid_lens, lens}; }
  static Mask matrix(const std::uint8_t* bits, std::size_t rows, std::size_t cols) {
    return {MaskKind::matrix, nullptr, bits, rows, cols};
  }

  bool visible(std::size_t i, std::size_t j) const {
    switch (kind) {
      case MaskKind::none: return true;
      case MaskKind::causal: return j <= i;
      case MaskKind::valid_lens: return static_cast<std::int64_t>(j) < valid_lens[i];
      case MaskKind::matrix: return bits[i * cols + j] != 0;
    }
    return false;
  }

  // For the prefix-shaped masks (none, causal, valid_lens), the visible keys of
  // query i are exactly [0, prefix_end(i, m)). Matrix masks return m.
  std::size_t prefix_end(std::size_t i, std::size_t m) const {
    std::int64_t end = static_cast<std::int64_t>(m);
    if (kind == MaskKind::causal) end = static_cast<std::int64_t>(i) + 1;
    if (kind == MaskKind::valid_lens) end = valid_lens[i];
    if (end < 0) end = 0;
    return end > static_cast<std::int64_t>(m) ? m : static_cast<std::size_t>(end);
  }

  bool is_prefix() const { return kind != MaskKind::matrix; }
};

// Checks that the mask fits an n×m score matrix: a known kind, data present,
// valid lengths within [0, m], a matrix mask of exactly n×m.
Status check_mask(const Mask& mask, std::size_t n, std::size_t m);

}  // namespace attn
