// Fused attention forward (keeping each row's log-sum-exp) and its
// FlashAttention-2-style backward; the recurrences are in fused_backward.h.
//
// Both passes take the query rows in blocks of kRows and the keys in blocks of
// kBlock. K (and, for the backward, V) is packed once as panels of 8 keys so
// a score block S = Q_i K_jᵀ (and dP = dO_i V_jᵀ) reads it sequentially. The
// backward visits, per query block and key block:
//   1. S = Q_i K_jᵀ · scale, masked;  P = e^(S − lse)   (recomputed, kRows × kBlock)
//   2. dP = dO_i V_jᵀ;  dS = P ∘ (dP − D) · scale
//   3. dV_j += Pᵀ dO_i,  dK_j += dSᵀ Q_i,  dQ_i += dS K_j
// Key blocks past every row's last visible key (causal, valid lengths) are skipped.
#include "train/fused_backward.h"

#include <cmath>
#include <cstring>
#include <initializer_list>

#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

constexpr std::size_t kTile = 4;    // rows per register tile
constexpr std::size_t kRows = 32;   // query rows per block
constexpr std::size_t kPanel = 8;   // keys per packed panel (two vectors)
constexpr std::size_t kBlock = 64;  // keys per block, a multiple of kPanel

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// The rows of x as panels of 8: panel p holds, per column t, rows 8p … 8p+7
// side by side (rows past x.rows are 0).
void pack_panels(ConstMatrixView x, float* packed) {
  const std::size_t w = x.cols;
  for (std::size_t j0 = 0; j0 < x.rows; j0 += kPanel) {
    float* panel = packed + j0 * w;
    for (std::size_t c = 0; c < kPanel; ++c) {
      const float* row = j0 + c < x.rows ? x.row(j0 + c) : nullptr;
      for (std::size_t t = 0; t < w; ++t) panel[t * kPanel + c] = row ? row[t] : 0.0f;
    }
  }
}

// S[r][c…c+8) = scale · a_r · x_(c…c+8) for R rows against one packed panel of width w.
template <std::size_t R>
void panel_product(const float* const* a_rows, const float* panel, std::size_t w, float scale, float* s) {
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (std::size_t t = 0; t < w; ++t) {
    const f32x4 x0 = simd::load(panel + t * kPanel), x1 = simd::load(panel + t * kPanel + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a_rows[r] + t);
      acc[r][0] = simd::madd(acc[r][0], av, x0);
      acc[r][1] = simd::madd(acc[r][1], av, x1);
    }
  }
  const f32x4 sv = simd::splat(scale);
  for (std::size_t r = 0; r < R; ++r) {
    simd::store(s + r * kBlock, simd::mul(acc[r][0], sv));
    simd::store(s + r * kBlock + 4, simd::mul(acc[r][1], sv));
  }
}

// The count × padded block S = scale · A X_(j0…)ᵀ, rows of A from `first` (packed X of width w).
void block_product(ConstMatrixView a, std::size_t first, std::size_t count, const float* packed, std::size_t j0,
                   std::size_t padded, float scale, float* s) {
  const std::size_t w = a.cols;
  std::size_t r = 0;
  for (; r + kTile <= count; r += kTile) {
    const float* rows[kTile] = {a.row(first + r), a.row(first + r + 1), a.row(first + r + 2), a.row(first + r + 3)};
    for (std::size_t j = 0; j < padded; j += kPanel)
      panel_product<kTile>(rows, packed + (j0 + j) * w, w, scale, s + r * kBlock + j);
  }
  for (; r < count; ++r) {
    const float* rows[1] = {a.row(first + r)};
    for (std::size_t j = 0; j < padded; j += kPanel) panel_product<1>(rows, packed + (j0 + j) * w, w, scale, s + r * kBlock + j);
  }
}

// out[r][c…c+8) += Σ_t a[r·a_row + t·a_col] · b[t·b_stride + c…c+8) for R rows.
template <std::size_t R>
void madd_strip(float* out, std::size_t out_stride, const float* a, std::size_t a_row, std::size_t a_col,
                const float* b, std::size_t b_stride, std::size_t inner) {
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) {
    acc[r][0] = simd::load(out + r * out_stride);
    acc[r][1] = simd::load(out + r * out_stride + 4);
  }
  for (std::size_t t = 0; t < inner; ++t) {
    const f32x4 b0 = simd::load(b + t * b_stride), b1 = simd::load(b + t * b_stride + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a + r * a_row + t * a_col);
      acc[r][0] = simd::madd(acc[r][0], av, b0);
      acc[r][1] = simd::madd(acc[r][1], av, b1);
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    simd::store(out + r * out_stride, acc[r][0]);
    simd::store(out + r * out_stride + 4, acc[r][1]);
  }
}

// out (rows × cols) += A B, A read as a[r·a_row + t·a_col] (so Aᵀ is a swap of
// the strides), B as inner rows of b with stride b_stride.
void madd_block(float* out, std::size_t out_stride, std::size_t rows, std::size_t cols, const float* a,
                std::size_t a_row, std::size_t a_col, const float* b, std::size_t b_stride, std::size_t inner) {
  std::size_t c = 0;
  for (; c + 8 <= cols; c += 8) {
    std::size_t r = 0;
    for (; r + kTile <= rows; r += kTile)
      madd_strip<kTile>(out + r * out_stride + c, out_stride, a + r * a_row, a_row, a_col, b + c, b_stride, inner);
    for (; r < rows; ++r) madd_strip<1>(out + r * out_stride + c, out_stride, a + r * a_row, a_row, a_col, b + c, b_stride, inner);
  }
  for (; c < cols; ++c)  // columns left over after the strips
    for (std::size_t r = 0; r < rows; ++r) {
      float acc = out[r * out_stride + c];
      for (std::size_t t = 0; t < inner; ++t) acc += a[r * a_row + t * a_col] * b[t * b_stride + c];
      out[r * out_stride + c] = acc;
    }
}

// Hides, in row r's scores s[0 … padded) for keys from j0, what the mask hides
// and the padding past the row's end. Returns false when a visible score is not finite.
bool mask_row(const Mask& mask, std::size_t i, std::size_t end, std::size_t j0, std::size_t padded, float* s) {
  bool finite = true;
  for (std::size_t c = 0; c < padded; ++c) {
    const std::size_t j = j0 + c;
    if (j >= end || (!mask.is_prefix() && !mask.visible(i, j)))
      s[c] = -INFINITY;
    else
      finite = finite && std::isfinite(s[c]);
  }
  return finite;
}

// The rows i0 … i0 + count − 1's visible key ends; returns the largest.
std::size_t row_ends(const Mask& mask, std::size_t i0, std::size_t count, std::size_t m, std::size_t* end) {
  std::size_t key_end = 0;
  for (std::size_t r = 0; r < count; ++r) {
    end[r] = mask.prefix_end(i0 + r, m);
    key_end = end[r] > key_end ? end[r] : key_end;
  }
  return key_end;
}

// Forward state of one block of query rows (the online softmax of flash_attention.h).
struct ForwardRows {
  std::size_t end[kRows];
  float max[kRows];
  double sum[kRows];
  bool finite[kRows];
};

// One online-softmax step for a row: rescale o, turn s into e^(s − M'), add to the sum.
void online_step(ForwardRows& st, std::size_t r, float* s, std::size_t padded, float* o, std::size_t d_v) {
  f32x4 vmax = simd::splat(-INFINITY);
  for (std::size_t c = 0; c < padded; c += 4) vmax = simd::max(vmax, simd::load(s + c));
  const float new_max = std::fmax(st.max[r], simd::hmax(vmax));
  if (new_max == -INFINITY || !st.finite[r]) {
    std::memset(s, 0, padded * sizeof(float));
    return;
  }
  if (new_max > st.max[r]) {
    const float alpha = st.max[r] == -INFINITY ? 0.0f : std::exp(st.max[r] - new_max);
    st.sum[r] *= static_cast<double>(alpha);
    for (std::size_t t = 0; t < d_v; ++t) o[t] *= alpha;
    st.max[r] = new_max;
  }
  const f32x4 mv = simd::splat(new_max);
  f32x4 vsum = simd::zero();
  for (std::size_t c = 0; c < padded; c += 4) {
    const f32x4 p = simd::exp_nonpositive(simd::sub(simd::load(s + c), mv));
    simd::store(s + c, p);
    vsum = simd::add(vsum, p);
  }
  st.sum[r] += static_cast<double>(simd::hsum(vsum));
}

void forward_rows(ConstMatrixView q, const float* packed, ConstMatrixView v, const Mask& mask, float scale,
                  std::size_t i0, std::size_t count, float* s, float* o, MatrixView out, float* row_lse) {
  const std::size_t d_v = v.cols;
  ForwardRows st;
  const std::size_t key_end = row_ends(mask, i0, count, v.rows, st.end);
  for (std::size_t r = 0; r < count; ++r) {
    st.max[r] = -INFINITY;
    st.sum[r] = 0.0;
    st.finite[r] = true;
  }
  std::memset(o, 0, count * d_v * sizeof(float));
  for (std::size_t j0 = 0; j0 < key_end; j0 += kBlock) {
    const std::size_t width = key_end - j0 < kBlock ? key_end - j0 : kBlock, padded = round_up(width, kPanel);
    block_product(q, i0, count, packed, j0, padded, scale, s);  // 1. scores
    for (std::size_t r = 0; r < count; ++r) {                   // 2. mask, 3. online softmax
      st.finite[r] = mask_row(mask, i0 + r, st.end[r], j0, padded, s + r * kBlock) && st.finite[r];
      online_step(st, r, s + r * kBlock, padded, o + r * d_v, d_v);
    }
    madd_block(o, d_v, count, d_v, s, kBlock, 1, v.row(j0), v.stride, width);  // 4. O += P V
  }
  for (std::size_t r = 0; r < count; ++r) {  // 5. O / L and lse = M + log L (−∞ when nothing is visible)
    const bool any = st.sum[r] > 0.0;
    const float inv = !st.finite[r] ? NAN : any ? static_cast<float>(1.0 / st.sum[r]) : 0.0f;
    float* y = out.row(i0 + r);
    for (std::size_t t = 0; t < d_v; ++t) y[t] = o[r * d_v + t] * inv;
    row_lse[i0 + r] = !st.finite[r] ? NAN : any ? st.max[r] + static_cast<float>(std::log(st.sum[r])) : -INFINITY;
  }
}

void zero_matrix(MatrixView x) {
  if (x.cols == 0) return;  // (an empty view may have no data)
  for (std::size_t i = 0; i < x.rows; ++i) std::memset(x.row(i), 0, x.cols * sizeof(float));
}

// The views and packed operands the backward's blocks share.
struct Backward {
  ConstMatrixView q, k, d_out;
  const float* packed_k;
  const float* packed_v;
  const float* row_lse;
  const float* delta;  // D_i = rowsum(dO ∘ O)
  const Mask* mask;
  float scale;
  AttentionGradients grads;
  float* p;   // kRows × kBlock: P
  float* ds;  // kRows × kBlock: dP, then dS
};

// 1. P = e^(S − lse) for the block's rows (0 where masked, and on a row with nothing visible).
void recompute_weights(const Backward& bw, std::size_t i0, std::size_t count, const std::size_t* end,
                       std::size_t j0, std::size_t padded) {
  block_product(bw.q, i0, count, bw.packed_k, j0, padded, bw.scale, bw.p);
  for (std::size_t r = 0; r < count; ++r) {
    float* p = bw.p + r * kBlock;
    const float lse = bw.row_lse[i0 + r];
    if (lse == -INFINITY || lse != lse) {  // nothing visible: P = 0; an overflowed forward: NaN
      for (std::size_t c = 0; c < padded; ++c) p[c] = lse == -INFINITY ? 0.0f : NAN;
      continue;
    }
    mask_row(*bw.mask, i0 + r, end[r], j0, padded, p);
    const f32x4 lv = simd::splat(lse);
    for (std::size_t c = 0; c < padded; c += 4) simd::store(p + c, simd::exp_nonpositive(simd::sub(simd::load(p + c), lv)));
  }
}

// 2. dP = dO_i V_jᵀ, then dS = P ∘ (dP − D_i) · scale, in place.
void score_gradients(const Backward& bw, std::size_t i0, std::size_t count, std::size_t j0, std::size_t padded) {
  block_product(bw.d_out, i0, count, bw.packed_v, j0, padded, 1.0f, bw.ds);
  const f32x4 sv = simd::splat(bw.scale);
  for (std::size_t r = 0; r < count; ++r) {
    float* ds = bw.ds + r * kBlock;
    const float* p = bw.p + r * kBlock;
    const f32x4 dv = simd::splat(bw.delta[i0 + r]);
    for (std::size_t c = 0; c < padded; c += 4)
      simd::store(ds + c, simd::mul(simd::mul(simd::load(p + c), simd::sub(simd::load(ds + c), dv)), sv));
  }
}

// Steps 1 to 3 for one block of query rows, over every key block they can see.
void backward_rows(const Backward& bw, std::size_t i0, std::size_t count) {
  const std::size_t m = bw.k.rows, d = bw.q.cols, d_v = bw.d_out.cols;
  std::size_t end[kRows];
  const std::size_t key_end = row_ends(*bw.mask, i0, count, m, end);
  const AttentionGradients& g = bw.grads;
  for (std::size_t j0 = 0; j0 < key_end; j0 += kBlock) {
    const std::size_t width = key_end - j0 < kBlock ? key_end - j0 : kBlock, padded = round_up(width, kPanel);
    recompute_weights(bw, i0, count, end, j0, padded);  // 1. P
    score_gradients(bw, i0, count, j0, padded);         // 2. dS
    // 3. dV_j += Pᵀ dO_i, dK_j += dSᵀ Q_i (Aᵀ: the strides swapped), dQ_i += dS K_j
    madd_block(g.dv.row(j0), g.dv.stride, width, d_v, bw.p, 1, kBlock, bw.d_out.row(i0), bw.d_out.stride, count);
    madd_block(g.dk.row(j0), g.dk.stride, width, d, bw.ds, 1, kBlock, bw.q.row(i0), bw.q.stride, count);
    madd_block(g.dq.row(i0), g.dq.stride, count, d, bw.ds, kBlock, 1, bw.k.row(j0), bw.k.stride, width);
  }
}

bool same_shape(ConstMatrixView a, std::size_t rows, std::size_t cols) { return a.rows == rows && a.cols == cols; }

// A view with entries has data (an empty one may have none).
bool present(std::initializer_list<ConstMatrixView> views) {
  for (ConstMatrixView x : views)
    if (x.rows * x.cols != 0 && x.data == nullptr) return false;
  return true;
}

}  // namespace

std::size_t fused_forward_scratch_floats(std::size_t m, std::size_t d, std::size_t d_v) {
  return round_up(m, kPanel) * d + kRows * kBlock + kRows * d_v;  // packed K, one score block, one output block
}

Status fused_attention_forward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, const Mask& mask,
                               float scale, MatrixView out, float* row_lse, float* scratch) {
  if (q.cols != k.cols || k.rows != v.rows || !same_shape(out, q.rows, v.cols)) return Status::shape_mismatch;
  if (Status s = check_mask(mask, q.rows, k.rows); s != Status::ok) return s;
  if (!present({q, k, v, out}) || (q.rows > 0 && (!row_lse || !scratch))) return Status::bad_argument;
  if (q.rows == 0) return Status::ok;
  float* packed = scratch;
  pack_panels(k, packed);
  float* s = packed + round_up(k.rows, kPanel) * k.cols;
  float* o = s + kRows * kBlock;
  for (std::size_t i0 = 0; i0 < q.rows; i0 += kRows)
    forward_rows(q, packed, v, mask, scale, i0, q.rows - i0 < kRows ? q.rows - i0 : kRows, s, o, out, row_lse);
  return Status::ok;
}

std::size_t fused_backward_scratch_floats(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v) {
  return round_up(m, kPanel) * (d + d_v) + n + 2 * kRows * kBlock;  // packed K and V, D, P and dS blocks
}

Status fused_attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView out,
                                ConstMatrixView d_out, const float* row_lse, const Mask& mask, float scale,
                                const AttentionGradients& grads, float* scratch) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols, d_v = v.cols;
  if (k.cols != d || v.rows != m || !same_shape(out, n, d_v) || !same_shape(d_out, n, d_v)) return Status::shape_mismatch;
  if (!same_shape(grads.dq, n, d) || !same_shape(grads.dk, m, d) || !same_shape(grads.dv, m, d_v))
    return Status::shape_mismatch;
  if (Status s = check_mask(mask, n, m); s != Status::ok) return s;
  if (!present({q, k, v, out, d_out, grads.dq, grads.dk, grads.dv})) return Status::bad_argument;
  if (n > 0 && (!scratch || !row_lse)) return Status::bad_argument;
  zero_matrix(grads.dq);
  zero_matrix(grads.dk);
  zero_matrix(grads.dv);
  if (n == 0) return Status::ok;  // no query: every gradient is 0
  float* packed_k = scratch;
  float* packed_v = packed_k + round_up(m, kPanel) * d;
  float* delta = packed_v + round_up(m, kPanel) * d_v;
  float* p = delta + n;
  pack_panels(k, packed_k);
  pack_panels(v, packed_v);
  for (std::size_t i = 0; i < n; ++i) {  // D_i = rowsum(dO ∘ O), in double
    double sum = 0.0;
    for (std::size_t t = 0; t < d_v; ++t) sum += static_cast<double>(d_out.at(i, t)) * out.at(i, t);
    delta[i] = static_cast<float>(sum);
  }
  const Backward bw{q, k, d_out, packed_k, packed_v, row_lse, delta, &mask, scale, grads, p, p + kRows * kBlock};
  for (std::size_t i0 = 0; i0 < n; i0 += kRows) backward_rows(bw, i0, n - i0 < kRows ? n - i0 : kRows);
  return Status::ok;
}

}  // namespace attn
