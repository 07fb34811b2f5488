// What every raw embind function shares: its argument block (arg_blocks.h,
// generated from bindings/arg-blocks.js), views over heap addresses, the mask
// and the status. A raw function only unpacks its block into views and
// forwards to the core; it returns the core's Status as an int, so nothing
// throws across the boundary and an error never leaks the shadow stack.
#pragma once

#include <cstdint>

#include "arg_blocks.h"
#include "mask.h"
#include "matrix.h"
#include "status.h"

namespace attn_bindings {

using u32 = std::uint32_t;

/** The argument block a raw function was handed (its address, from JS). */
template <class Args>
const Args& block(addr p) {
  return *reinterpret_cast<const Args*>(p);
}

inline float* f32(addr p) { return reinterpret_cast<float*>(p); }
inline const float* cf32(addr p) { return reinterpret_cast<const float*>(p); }
inline attn::ConstMatrixView in(addr p, u32 rows, u32 cols) { return attn::dense(cf32(p), rows, cols); }
inline attn::MatrixView out(addr p, u32 rows, u32 cols) { return attn::dense(f32(p), rows, cols); }

// mask_kind: 0 none, 1 causal, 2 valid lengths (int32 per row at mask_data),
// 3 matrix (uint8 rows × cols at mask_data).
inline attn::Mask make_mask(int kind, addr data, u32 rows, u32 cols) {
  attn::Mask mask;
  mask.kind = static_cast<attn::MaskKind>(kind);
  mask.valid_lens = reinterpret_cast<const std::int32_t*>(data);
  mask.bits = reinterpret_cast<const std::uint8_t*>(data);
  mask.rows = rows;
  mask.cols = cols;
  return mask;
}

inline int status(attn::Status s) { return static_cast<int>(s); }

}  // namespace attn_bindings
