#include "flash_attention.h"

#include <cmath>
#include <cstring>

#include "batched_attention.h"
#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

using simd::f32x4;

constexpr std::size_t kTile = 4;     // query rows per register tile
constexpr std::size_t kRows = 32;    // query rows per block: they share each key block while it is in cache
constexpr std::size_t kPanel = 8;    // keys per packed panel (two vectors wide)
constexpr std::size_t kBlock = 128;  // keys per online-softmax block, a multiple of kPanel

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Kᵀ in panels of 8 keys: panel p holds, for each feature t, keys 8p … 8p+7
// side by side, so the score kernel reads it sequentially. Missing keys are 0.
void pack_keys(ConstMatrixView k, float* packed) {
  const std::size_t d = k.cols;
  for (std::size_t j0 = 0; j0 < k.rows; j0 += kPanel) {
    float* panel = packed + j0 * d;
    for (std::size_t t = 0; t < d; ++t)
      for (std::size_t c = 0; c < kPanel; ++c) panel[t * kPanel + c] = j0 + c < k.rows ? k.at(j0 + c, t) : 0.0f;
  }
}

// The working set of one block of query rows.
struct RowBlock {
  std::size_t first;          // index of the first query row
  std::size_t count;          // rows in this block, 1 … kRows
  std::size_t end[kRows];     // visible keys of a prefix mask: [0, end)
  float max[kRows];           // running row max M (-inf before any visible key)
  double sum[kRows];          // running sum L
  bool finite[kRows];         // false once a visible score was NaN or infinite
  float* s;                   // kRows × kBlock scores, then probabilities
  float* o;                   // kRows × d_v unnormalised output
};

// S[r][c…c+8) = scale · q_r · k_(j0+c…): R query rows against one key panel.
template <std::size_t R>
void score_panel(const float* const* q_rows, const float* panel, std::size_t d, float scale, float* s) {
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (std::size_t t = 0; t < d; ++t) {
    const f32x4 k0 = simd::load(panel + t * kPanel), k1 = simd::load(panel + t * kPanel + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 qv = simd::load_splat(q_rows[r] + t);
      acc[r][0] = simd::madd(acc[r][0], qv, k0);
      acc[r][1] = simd::madd(acc[r][1], qv, k1);
    }
  }
  const f32x4 sv = simd::splat(scale);
  for (std::size_t r = 0; r < R; ++r) {
    simd::store(s + r * kBlock, simd::mul(acc[r][0], sv));
    simd::store(s + r * kBlock + 4, simd::mul(acc[r][1], sv));
  }
}

// 1. Scores of R rows (from row r0 of the block) against keys [j0, j1).
template <std::size_t R>
void score_tile(ConstMatrixView q, const float* packed, float scale, RowBlock& b, std::size_t r0, std::size_t j0,
                std::size_t j1) {
  const float* q_rows[R];
  for (std::size_t r = 0; r < R; ++r) q_rows[r] = q.row(b.first + r0 + r);
  for (std::size_t j = j0; j < j1; j += kPanel)
    score_panel<R>(q_rows, packed + j * q.cols, q.cols, scale, b.s + r0 * kBlock + (j - j0));
}

// True when every score of s[0, width) is finite (width a multiple of 4): x − x is 0 for
// a finite x and NaN for ±inf and NaN, so the sum of them is NaN exactly when one is not.
bool all_finite(const float* s, std::size_t width) {
  f32x4 acc = simd::zero();
  for (std::size_t c = 0; c < width; c += 4) {
    const f32x4 x = simd::load(s + c);
    acc = simd::add(acc, simd::sub(x, x));
  }
  return !std::isnan(simd::hsum(acc));
}

// 2. Hide what the mask hides (and the padding keys past m) as -infinity,
// and note rows with a visible score that is not finite (an overflow upstream).
// A row of a prefix mask that sees the whole block is checked 4 scores at a time.
void mask_block(const Mask& mask, RowBlock& b, std::size_t j0, std::size_t width) {
  for (std::size_t r = 0; r < b.count; ++r) {
    float* s = b.s + r * kBlock;
    const std::size_t i = b.first + r;
    if (mask.is_prefix() && j0 + width <= b.end[r]) {
      b.finite[r] = b.finite[r] && all_finite(s, width);
      continue;
    }
    for (std::size_t c = 0; c < width; ++c) {
      const std::size_t j = j0 + c;
      if (j >= b.end[r] || (!mask.is_prefix() && !mask.visible(i, j)))
        s[c] = -INFINITY;
      else if (!std::isfinite(s[c]))
        b.finite[r] = false;
    }
  }
}

// 3. The online softmax step for one row: rescale what was accumulated,
// turn the scores into unnormalised probabilities, add them to the sum.
// A row that has seen no visible key yet gets probabilities 0.
void online_softmax_row(RowBlock& b, std::size_t r, std::size_t width, std::size_t d_v) {
  float* s = b.s + r * kBlock;
  f32x4 vmax = simd::splat(-INFINITY);
  for (std::size_t c = 0; c < width; c += 4) vmax = simd::max(vmax, simd::load(s + c));
  const float new_max = std::fmax(b.max[r], simd::hmax(vmax));
  if (new_max == -INFINITY) {
    std::memset(s, 0, width * sizeof(float));
    return;
  }
  if (new_max > b.max[r]) {
    const float alpha = std::exp(b.max[r] - new_max);  // 0 on the first visible block
    b.sum[r] *= alpha;
    float* o = b.o + r * d_v;
    for (std::size_t t = 0; t < d_v; ++t) o[t] *= alpha;
    b.max[r] = new_max;
  }
  b.sum[r] += simd::hsum(exp_minus_max_in_place(s, new_max, width));
}

// 4. O[r][c…c+8) += Σ_j P[r][j] V[j][c…c+8) for R rows and one 8-column strip.
template <std::size_t R>
void accumulate_strip(const RowBlock& b, std::size_t r0, ConstMatrixView v, std::size_t j0, std::size_t width,
                      std::size_t c) {
  const std::size_t d_v = v.cols;
  float* o = b.o + r0 * d_v + c;
  const float* p_rows = b.s + r0 * kBlock;
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) {
    acc[r][0] = simd::load(o + r * d_v);
    acc[r][1] = simd::load(o + r * d_v + 4);
  }
  for (std::size_t j = 0; j < width; ++j) {
    const float* vr = v.row(j0 + j) + c;
    const f32x4 v0 = simd::load(vr), v1 = simd::load(vr + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 p = simd::load_splat(p_rows + r * kBlock + j);
      acc[r][0] = simd::madd(acc[r][0], p, v0);
      acc[r][1] = simd::madd(acc[r][1], p, v1);
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    simd::store(o + r * d_v, acc[r][0]);
    simd::store(o + r * d_v + 4, acc[r][1]);
  }
}

template <std::size_t R>
void accumulate_tile(const RowBlock& b, std::size_t r0, ConstMatrixView v, std::size_t j0, std::size_t width) {
  const std::size_t d_v = v.cols;
  std::size_t c = 0;
  for (; c + 8 <= d_v; c += 8) accumulate_strip<R>(b, r0, v, j0, width, c);
  for (; c < d_v; ++c)  // columns left over after the strips
    for (std::size_t r = r0; r < r0 + R; ++r) {
      float acc = b.o[r * d_v + c];
      for (std::size_t j = 0; j < width; ++j) acc += b.s[r * kBlock + j] * v.at(j0 + j, c);
      b.o[r * d_v + c] = acc;
    }
}

// Steps 1 and 4 over the whole block of rows, a register tile at a time.
void score_rows(ConstMatrixView q, const float* packed, float scale, RowBlock& b, std::size_t j0, std::size_t j1) {
  std::size_t r = 0;
  for (; r + kTile <= b.count; r += kTile) score_tile<kTile>(q, packed, scale, b, r, j0, j1);
  for (; r < b.count; ++r) score_tile<1>(q, packed, scale, b, r, j0, j1);
}

void accumulate_rows(const RowBlock& b, ConstMatrixView v, std::size_t j0, std::size_t width) {
  std::size_t r = 0;
  for (; r + kTile <= b.count; r += kTile) accumulate_tile<kTile>(b, r, v, j0, width);
  for (; r < b.count; ++r) accumulate_tile<1>(b, r, v, j0, width);
}

void attend_rows(ConstMatrixView q, const float* packed, ConstMatrixView v, const Mask& mask, float scale, RowBlock& b,
                 MatrixView out) {
  const std::size_t d_v = v.cols;
  std::size_t key_end = 0;
  for (std::size_t r = 0; r < b.count; ++r) {
    b.end[r] = mask.prefix_end(b.first + r, v.rows);
    key_end = b.end[r] > key_end ? b.end[r] : key_end;
    b.max[r] = -INFINITY;
    b.sum[r] = 0.0;
    b.finite[r] = true;
  }
  std::memset(b.o, 0, b.count * d_v * sizeof(float));
  for (std::size_t j0 = 0; j0 < key_end; j0 += kBlock) {
    const std::size_t width = (key_end - j0 < kBlock ? key_end - j0 : kBlock);
    const std::size_t padded = round_up(width, kPanel);
    score_rows(q, packed, scale, b, j0, j0 + padded);                            // 1. scores
    mask_block(mask, b, j0, padded);                                             // 2. mask
    for (std::size_t r = 0; r < b.count; ++r) online_softmax_row(b, r, padded, d_v);  // 3. softmax
    accumulate_rows(b, v, j0, width);                                            // 4. P · V
  }
  for (std::size_t r = 0; r < b.count; ++r) {  // 5. normalise: O / L, once per row (NaN after an overflow)
    const float inv = !b.finite[r] ? NAN : b.sum[r] > 0.0 ? static_cast<float>(1.0 / b.sum[r]) : 0.0f;
    float* o = out.row(b.first + r);
    for (std::size_t t = 0; t < d_v; ++t) o[t] = b.o[r * d_v + t] * inv;
  }
}

// With no mask, the call is one head of batched_fused_attention: the same online softmax, with
// packed queries and value strips (faster in WASM). The prefix masks stay here, all of them on one
// kernel: the worker pool passes a slice of a causal call as valid lengths, bit for bit the same.
Status fused_unmasked(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, float scale, MatrixView out,
                      float* scratch) {
  const auto one_head = [](ConstMatrixView x) { return HeadTensor{x.data, 1, 1, x.rows, x.cols, 0, 0, x.stride}; };
  ScoreRules rules;
  rules.scale = scale;
  return batched_fused_attention(one_head(q), one_head(k), one_head(v), rules,
                                 MutHeadTensor{out.data, 1, 1, out.rows, out.cols, 0, 0, out.stride}, scratch);
}

}  // namespace

// Enough for either kernel (the batched one's is fixed for a value width: 45,056 floats at d_v = 64).
std::size_t fused_attention_scratch_floats(std::size_t m, std::size_t d, std::size_t d_v) {
  const std::size_t own = round_up(m, kPanel) * d + kRows * kBlock + kRows * d_v;
  return own > batched_fused_scratch_floats(d_v) ? own : batched_fused_scratch_floats(d_v);
}

Status fused_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask, float scale,
                       MatrixView out, float* scratch) {
  if (q.cols != k.cols || k.rows != v.rows || out.rows != q.rows || out.cols != v.cols) return Status::shape_mismatch;
  if (Status s = check_mask(mask, q.rows, k.rows); s != Status::ok) return s;
  // A non-finite scale stays here too: the batched kernel refuses it (bad_argument), this one has
  // always taken it (the JS layer refuses it first; the fuzzer found the difference).
  if (mask.kind == MaskKind::none && std::isfinite(scale)) return fused_unmasked(q, k, v, scale, out, scratch);
  float* packed = scratch;
  pack_keys(k, packed);
  RowBlock b{};
  b.s = packed + round_up(k.rows, kPanel) * k.cols;
  b.o = b.s + kRows * kBlock;
  for (std::size_t i = 0; i < q.rows; i += kRows) {
    b.first = i;
    b.count = q.rows - i < kRows ? q.rows - i : kRows;
    attend_rows(q, packed, v, mask, scale, b, out);
  }
  return Status::ok;
}

}  // namespace attn
