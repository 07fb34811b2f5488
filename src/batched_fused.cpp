// The fused path of batched_attention.h, FlashAttention-style. For each batch entry b and
// key/value head g, the query rows of every head that reads g (a GQA group) are taken in
// blocks of kRows, row-major over (i, head) so that one block holds neighbouring positions
// of the group's heads. Each block visits the keys its rows can see in blocks of up to
// kBlock: the key block is packed once (Kᵀ in panels of 8) and scored against every row of
// the query block, the value block is packed once (strips of 8 columns) and summed into every
// row, so each K and V load serves several rows and both are read sequentially. The block's
// queries are packed once too (each tile of 4 rows interleaved by feature), and the inner loops
// move pointers rather than index: Emscripten builds with -disable-lsr, so an indexed load costs
// an address computation of its own. Per row, the online softmax (running max M, sum L, output O):
//   M' = max(M, max_j s_j),  α = e^(M − M'),  L' = α L + Σ e^(s_j − M'),  O' = α O + Σ e^(s_j − M') v_j
// and at the end O / L. The rules of attention_bias.h apply per row and per key block: the
// blocks outside every row's key_range() are skipped (causal, windowed, padded rows do only
// their own work), the keys outside a row's range are hidden, then the mask and the bias; a row
// that sees a whole block and has no cap, mask or bias skips the rules there.
#include <cmath>
#include <cstring>

#include "batched_attention.h"
#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

constexpr std::size_t kTile = 4;             // query rows per register tile
constexpr std::size_t kRows = 128;           // query rows per block, sharing each key block (and its packing)
constexpr std::size_t kPanel = 8;            // keys per packed panel (two vectors)
constexpr std::size_t kBlock = 64;           // keys per online-softmax block at most (P and V stay in L1)
constexpr std::size_t kPackFloats = 16384;   // the packed key block: kBlock keys of width 256
constexpr std::size_t kMaxPackedWidth = kPackFloats / kPanel;  // wider keys are scored unpacked
constexpr std::size_t kQueryFloats = kRows * 64;  // the packed query tiles: kRows rows of width 64, fewer if wider

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Keys per block for key width d: as many whole panels as the packed buffer holds, up to kBlock.
std::size_t keys_per_block(std::size_t d) {
  if (d == 0) return kBlock;
  const std::size_t keys = kPackFloats / d / kPanel * kPanel;
  return keys < kPanel ? kPanel : keys > kBlock ? kBlock : keys;
}

// Query rows per block for key width d: all kRows up to width 64, then fewer (whole tiles) so
// that the block's packed queries fit in kQueryFloats.
std::size_t rows_per_block(std::size_t d) {
  if (d <= 64 || d > kMaxPackedWidth) return kRows;  // wider keys are not packed at all
  return kQueryFloats / d / kTile * kTile;
}

// Keys [j0, j0 + width) of k as Kᵀ panels of 8: panel p holds, per feature t, keys
// j0 + 8p … 8p + 7 side by side. Keys past the block are 0 (hidden later).
[[gnu::noinline]]
void pack_keys(ConstMatrixView k, std::size_t j0, std::size_t width, float* packed) {
  const std::size_t d = k.cols;
  for (std::size_t p = 0; p < width; p += kPanel) {
    float* panel = packed + p * d;
    for (std::size_t c = 0; c < kPanel; ++c) {
      if (p + c >= width) {
        for (std::size_t t = 0; t < d; ++t) panel[t * kPanel + c] = 0.0f;
        continue;
      }
      const float* key = k.row(j0 + p + c);
      for (std::size_t t = 0; t < d; ++t) panel[t * kPanel + c] = key[t];
    }
  }
}

// Values [j0, j0 + width) of v as strips of 8 columns: strip s holds, per key j, columns
// 8s … 8s + 7 side by side, so P · V reads each strip sequentially. Leftover columns stay in v.
[[gnu::noinline]]
void pack_values(ConstMatrixView v, std::size_t j0, std::size_t width, float* packed) {
  const std::size_t strips = v.cols / kPanel;
  for (std::size_t j = 0; j < width; ++j) {
    const float* row = v.row(j0 + j);
    for (std::size_t s = 0; s < strips; ++s) {
      float* dst = packed + (s * kBlock + j) * kPanel;
      simd::store(dst, simd::load(row + s * kPanel));
      simd::store(dst + 4, simd::load(row + s * kPanel + 4));
    }
  }
}

// The working set of one block of query rows (every row from the same b and g).
struct RowBlock {
  std::size_t count = 0;                 // rows in this block, 1 … kRows
  std::size_t head[kRows], pos[kRows];   // query head and position i of each row
  const float* q[kRows];                 // its query row
  float* qp;                             // the whole tiles' queries, interleaved (pack_queries)
  KeyRange range[kRows];                 // the keys key_range() leaves visible to it
  float max[kRows];                      // running max M (−∞ before any visible key)
  double sum[kRows];                     // running sum L
  bool finite[kRows];                    // false once a visible score was NaN or +∞
  bool live[kRows];                      // the row has probabilities to compute in this key block
  float* s;                              // kRows × kBlock scores, then probabilities
  float* o;                              // kRows × d_v unnormalised outputs
  float* vp;                             // the value block in strips (pack_values) …
  bool vp_ready = false;                 // … when the block has more than one tile to read it
};

// The queries of each whole tile of kTile rows, feature-major: tile u holds, per feature t,
// its rows' q[t] side by side, so the score loop reads all of them from one moving pointer
// (four row pointers cost an address computation each, per feature, in WebAssembly).
[[gnu::noinline]]
void pack_queries(RowBlock& b, std::size_t d) {
  for (std::size_t r0 = 0; r0 + kTile <= b.count; r0 += kTile) {
    float* tile = b.qp + r0 * d;
    for (std::size_t t = 0; t < d; ++t)
      for (std::size_t r = 0; r < kTile; ++r) tile[t * kTile + r] = b.q[r0 + r][t];
  }
}

// The queries of R rows from r0 for score_panel: a packed tile, or a single row as it is.
template <std::size_t R>
const float* tile_queries(const RowBlock& b, std::size_t r0, std::size_t d) {
  return R == 1 ? b.q[r0] : b.qp + r0 * d;
}

// S[r][c…c+8) = scale · q_r · k_(c…c+8): R rows against one packed panel. q: the rows'
// features interleaved (q[t·R + r]); both pointers move on, nothing is indexed.
template <std::size_t R>
void score_panel(const float* q, const float* panel, std::size_t d, float scale, float* s) {
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (const float* end = panel + d * kPanel; panel != end; panel += kPanel, q += R) {
    const f32x4 k0 = simd::load(panel), k1 = simd::load(panel + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 qv = simd::load_splat(q + r);
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

// Keys [lo, hi) of the block (offsets from j0, whole panels, within padded) that any of rows
// r0 … r0 + R − 1 can see: the panels outside are neither scored nor summed for these rows.
KeyRange tile_keys(const RowBlock& b, std::size_t r0, std::size_t R, std::size_t j0, std::size_t padded) {
  std::size_t lo = padded, hi = 0;
  for (std::size_t r = r0; r < r0 + R; ++r) {
    const KeyRange k = b.range[r];
    if (k.begin >= k.end || k.end <= j0 || k.begin >= j0 + padded) continue;
    const std::size_t begin = k.begin > j0 ? k.begin - j0 : 0, end = k.end - j0 < padded ? k.end - j0 : padded;
    lo = begin < lo ? begin : lo;
    hi = end > hi ? end : hi;
  }
  if (hi <= lo) return {0, 0};
  return {lo / kPanel * kPanel, round_up(hi, kPanel)};
}

// 1. Scores of R rows (from r0) against the packed panels they can see; the others are 0
// (and hidden by step 2, since no row of the tile sees them).
template <std::size_t R>
void score_tile(const float* packed, std::size_t d, std::size_t padded, float scale, RowBlock& b, std::size_t r0,
                std::size_t j0) {
  const KeyRange keys = tile_keys(b, r0, R, j0, padded);
  if (keys.begin > 0 || keys.end < padded)  // (a memset of nothing is still a call, per row per block)
    for (std::size_t r = r0; r < r0 + R; ++r) {
      std::memset(b.s + r * kBlock, 0, keys.begin * sizeof(float));
      std::memset(b.s + r * kBlock + keys.end, 0, (padded - keys.end) * sizeof(float));
    }
  const float* q = tile_queries<R>(b, r0, d);
  for (std::size_t p = keys.begin; p < keys.end; p += kPanel)
    score_panel<R>(q, packed + p * d, d, scale, b.s + r0 * kBlock + p);
}

[[gnu::noinline]]
void score_rows(const float* packed, std::size_t d, std::size_t padded, float scale, RowBlock& b, std::size_t j0) {
  std::size_t r = 0;
  for (; r + kTile <= b.count; r += kTile) score_tile<kTile>(packed, d, padded, scale, b, r, j0);
  for (; r < b.count; ++r) score_tile<1>(packed, d, padded, scale, b, r, j0);
}

float dot(const float* a, const float* b, std::size_t len) {
  f32x4 acc = simd::zero();
  std::size_t t = 0;
  for (; t + simd::kWidth <= len; t += simd::kWidth) acc = simd::madd(acc, simd::load(a + t), simd::load(b + t));
  float sum = simd::hsum(acc);
  for (; t < len; ++t) sum += a[t] * b[t];
  return sum;
}

// 1'. The same for keys wider than kMaxPackedWidth (no packing): a dot product per score.
[[gnu::noinline]]
void score_rows_unpacked(ConstMatrixView k, std::size_t j0, std::size_t width, std::size_t padded, float scale,
                         RowBlock& b) {
  for (std::size_t r = 0; r < b.count; ++r) {
    float* s = b.s + r * kBlock;
    for (std::size_t c = 0; c < padded; ++c) s[c] = c < width ? dot(b.q[r], k.row(j0 + c), k.cols) * scale : 0.0f;
  }
}

// Notes a visible score of row r in [lo, hi) that is NaN or +∞ (−∞ is a hidden key).
void note_overflow(RowBlock& b, std::size_t r, std::size_t lo, std::size_t hi) {
  const float* s = b.s + r * kBlock;
  bool finite = true;
  for (std::size_t c = lo; c < hi; ++c) finite &= s[c] == -INFINITY || s[c] - s[c] == 0.0f;
  b.finite[r] = b.finite[r] && finite;
}

// 2. Row r's rules on keys [j0, j0 + padded): keys outside its range hidden, the cap on the
// others, then the mask and the bias; notes a visible score that is NaN or +∞.
[[gnu::noinline]]
void apply_row_rules(const ScoreRules& rules, std::size_t batch, RowBlock& b, std::size_t r, std::size_t j0,
                     std::size_t padded) {
  float* s = b.s + r * kBlock;
  const KeyRange row = b.range[r];
  const std::size_t lo = row.begin > j0 ? row.begin - j0 : 0;
  const std::size_t hi = row.end < j0 ? 0 : row.end - j0 < padded ? row.end - j0 : padded;
  if (hi <= lo) {  // nothing of this block is visible to this row
    for (std::size_t c = 0; c < padded; ++c) s[c] = -INFINITY;
    return;
  }
  for (std::size_t c = 0; c < lo; ++c) s[c] = -INFINITY;
  for (std::size_t c = hi; c < padded; ++c) s[c] = -INFINITY;
  if (rules.softcap > 0.0f)  // only where the row can see: a hidden score stays hidden either way
    for (std::size_t c = lo; c < hi; ++c) s[c] = soft_cap(s[c], rules.softcap);
  apply_rules(rules, batch, b.head[r], b.pos[r], {j0 + lo, j0 + hi}, s + lo);
  note_overflow(b, r, lo, hi);
}

// 3. The online softmax step for row r, first half: the new running max, and what was
// accumulated rescaled to it. Returns false when the row has no probabilities to compute here
// (no visible key yet, or an overflow: the row ends as NaN); its scores are then set to 0.
// check: the rules did not run, so the overflow check is still to do. The max pass also sums
// s − s, which is 0 when every score is finite (most often; then nothing more is read) and NaN
// otherwise (then the exact check decides: −∞ is a hidden key, not an overflow).
bool rescale_row(RowBlock& b, std::size_t r, std::size_t padded, std::size_t d_v, bool check) {
  float* s = b.s + r * kBlock;
  f32x4 vmax = simd::splat(-INFINITY), vnan = simd::zero();
  for (std::size_t c = 0; c < padded; c += simd::kWidth) {
    const f32x4 x = simd::load(s + c);
    vmax = simd::max(vmax, x);
    vnan = simd::add(vnan, simd::sub(x, x));
  }
  if (check && !(simd::hsum(vnan) == 0.0f)) note_overflow(b, r, 0, padded);
  const float new_max = std::fmax(b.max[r], simd::hmax(vmax));
  if (!b.finite[r] || new_max == -INFINITY) {
    std::memset(s, 0, padded * sizeof(float));
    return false;
  }
  if (new_max > b.max[r]) {  // (when the max stays, nothing is rescaled)
    const float alpha = b.max[r] == -INFINITY ? 0.0f : std::exp(b.max[r] - new_max);
    b.sum[r] *= static_cast<double>(alpha);
    float* o = b.o + r * d_v;
    for (std::size_t t = 0; t < d_v; ++t) o[t] *= alpha;
    b.max[r] = new_max;
  }
  return true;
}

// Second half, for every live row of the block at once: the scores become unnormalised
// probabilities e^(s − M). One call per block, with nothing else in the loop: V8 then builds
// the exponential's 12 constants once per block (not per row) and keeps them in registers.
[[gnu::noinline]]
void exponentiate_rows(RowBlock& b, std::size_t padded) {
  for (std::size_t r = 0; r < b.count; ++r) {
    if (!b.live[r]) continue;
    float* s = b.s + r * kBlock;
    const f32x4 m = simd::splat(b.max[r]);
    for (std::size_t c = 0; c < padded; c += simd::kWidth)
      simd::store(s + c, simd::exp_nonpositive(simd::sub(simd::load(s + c), m)));
  }
}

// Third: their sum joins L. A pass of its own: a sum carried through the exponential's loop
// was kept on the stack (too few registers), a store and a load on every vector's path.
void add_row_sum(RowBlock& b, std::size_t r, std::size_t padded) {
  const float* s = b.s + r * kBlock;
  f32x4 vsum = simd::zero();
  for (std::size_t c = 0; c < padded; c += simd::kWidth) vsum = simd::add(vsum, simd::load(s + c));
  b.sum[r] += static_cast<double>(simd::hsum(vsum));
}

// 2 and 3 for every row of the block (one call per block, not several per row). A row that
// sees the whole block, with no cap, mask or bias, has no rule to apply, only the overflow
// check (most rows of a non-causal call, and the rows below a causal diagonal).
[[gnu::noinline]]
void softmax_rows(const ScoreRules& rules, std::size_t batch, RowBlock& b, std::size_t j0, std::size_t padded,
                  std::size_t d_v) {
  const bool no_rules = !(rules.softcap > 0.0f) && !rules.keep.data && !rules.bias.data;
  for (std::size_t r = 0; r < b.count; ++r) {
    const bool plain = no_rules && b.range[r].begin <= j0 && b.range[r].end >= j0 + padded;
    if (!plain) apply_row_rules(rules, batch, b, r, j0, padded);
    b.live[r] = rescale_row(b, r, padded, d_v, plain);
  }
  exponentiate_rows(b, padded);
  for (std::size_t r = 0; r < b.count; ++r)
    if (b.live[r]) add_row_sum(b, r, padded);
}

// 4. O[r][c…c+8) += Σ_j P[r][j] V[j0 + j][c…c+8) for R rows and one 8-column strip (packed).
// vs: the strip's first key, the next one stride floats further (packed: kPanel).
template <std::size_t R>
void accumulate_strip(RowBlock& b, std::size_t r0, std::size_t d_v, const float* vs, std::size_t stride,
                      std::size_t width, std::size_t c) {
  float* o = b.o + r0 * d_v + c;
  const float* p_rows = b.s + r0 * kBlock;
  f32x4 acc[R][2];
  for (std::size_t r = 0; r < R; ++r) {
    acc[r][0] = simd::load(o + r * d_v);
    acc[r][1] = simd::load(o + r * d_v + 4);
  }
  for (const float* end = p_rows + width; p_rows != end; ++p_rows, vs += stride) {  // moving pointers
    const f32x4 v0 = simd::load(vs), v1 = simd::load(vs + 4);
    for (std::size_t r = 0; r < R; ++r) {
      const f32x4 p = simd::load_splat(p_rows + r * kBlock);
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
void accumulate_tile(RowBlock& b, std::size_t r0, ConstMatrixView v, std::size_t j0, std::size_t width) {
  const std::size_t d_v = v.cols;
  std::size_t c = 0;
  for (; c + 8 <= d_v; c += 8)  // strip c / 8 of the packed block, or columns c … c + 7 of v
    if (b.vp_ready)
      accumulate_strip<R>(b, r0, d_v, b.vp + c * kBlock, kPanel, width, c);
    else
      accumulate_strip<R>(b, r0, d_v, v.row(j0) + c, v.stride, width, c);
  for (; c < d_v; ++c)  // columns left over after the strips
    for (std::size_t r = r0; r < r0 + R; ++r) {
      float acc = b.o[r * d_v + c];
      for (std::size_t j = 0; j < width; ++j) acc += b.s[r * kBlock + j] * v.at(j0 + j, c);
      b.o[r * d_v + c] = acc;
    }
}

// Keys past the last one a tile's rows can see have probability 0: the tile stops before them.
[[gnu::noinline]]
void accumulate_rows(RowBlock& b, ConstMatrixView v, std::size_t j0, std::size_t width, std::size_t padded) {
  auto seen = [&](std::size_t r0, std::size_t R) {
    const std::size_t end = tile_keys(b, r0, R, j0, padded).end;
    return end < width ? end : width;
  };
  std::size_t r = 0;
  for (; r + kTile <= b.count; r += kTile) accumulate_tile<kTile>(b, r, v, j0, seen(r, kTile));
  for (; r < b.count; ++r) accumulate_tile<1>(b, r, v, j0, seen(r, 1));
}

// The phases above stay functions of their own: wasm-opt -O3 inlines a function with one caller
// whatever its size, and V8 then compiles one loop nest too large to keep the tiles in registers
// (about 20 % slower in a standalone build). A function whose address is taken is not inlined, so
// batched_fused_attention reads this table (volatile: the read, and so the table, stays).
struct Phases {
  decltype(&pack_keys) pack_k;
  decltype(&pack_values) pack_v;
  decltype(&pack_queries) pack_q;
  decltype(&score_rows) score;
  decltype(&score_rows_unpacked) score_unpacked;
  decltype(&apply_row_rules) rules;
  decltype(&softmax_rows) softmax;
  decltype(&exponentiate_rows) exp;
  decltype(&accumulate_rows) accumulate;
};
const volatile Phases kPhases = {pack_keys, pack_values, pack_queries, score_rows, score_rows_unpacked,
                                 apply_row_rules, softmax_rows, exponentiate_rows, accumulate_rows};

// One block of query rows against the keys of (b, g) they can see, then 5. O / L per row:
// zero for a row with nothing visible, NaN after an overflow.
void attend_rows(ConstMatrixView k, ConstMatrixView v, const ScoreRules& rules, std::size_t batch, RowBlock& b,
                 float* packed, const MutHeadTensor& out) {
  const std::size_t d = k.cols, d_v = v.cols, step = keys_per_block(d);
  std::size_t begin = k.rows, end = 0;  // the union of the rows' ranges
  for (std::size_t r = 0; r < b.count; ++r) {
    b.range[r] = key_range(rules, batch, b.pos[r], k.rows);
    if (b.range[r].begin < b.range[r].end) {
      begin = b.range[r].begin < begin ? b.range[r].begin : begin;
      end = b.range[r].end > end ? b.range[r].end : end;
    }
    b.max[r] = -INFINITY;
    b.sum[r] = 0.0;
    b.finite[r] = true;
  }
  std::memset(b.o, 0, b.count * d_v * sizeof(float));
  for (std::size_t j0 = begin; j0 < end; j0 += step) {
    const std::size_t width = end - j0 < step ? end - j0 : step, padded = round_up(width, kPanel);
    if (d <= kMaxPackedWidth) {  // 1. scores
      pack_keys(k, j0, width, packed);
      score_rows(packed, d, padded, rules.scale, b, j0);
    } else {
      score_rows_unpacked(k, j0, width, padded, rules.scale, b);
    }
    softmax_rows(rules, batch, b, j0, padded, d_v);  // 2. rules and 3. softmax
    b.vp_ready = b.count > kTile;  // one tile (a decode step) reads V once: no copy
    if (b.vp_ready) pack_values(v, j0, width, b.vp);
    accumulate_rows(b, v, j0, width, padded);                                                     // 4. P · V
  }
  for (std::size_t r = 0; r < b.count; ++r) {
    const float inv = !b.finite[r] ? NAN : b.sum[r] > 0.0 ? static_cast<float>(1.0 / b.sum[r]) : 0.0f;
    float* y = out.head(batch, b.head[r]).row(b.pos[r]);
    for (std::size_t t = 0; t < d_v; ++t) y[t] = b.o[r * d_v + t] * inv;
  }
}

// Every query row of the heads that read key/value head g of batch entry bi, kRows at a time.
void attend_group(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                  const MutHeadTensor& out, std::size_t bi, std::size_t g, float* scratch) {
  const std::size_t group = q.heads / k.heads, first_head = g * group, rows = q.rows * group;
  const std::size_t block_rows = rows_per_block(q.cols);
  RowBlock b;
  b.s = scratch;
  b.o = b.s + kRows * kBlock;
  float* packed = b.o + kRows * v.cols;
  b.vp = packed + kPackFloats;
  b.qp = b.vp + kBlock * v.cols;
  for (std::size_t r0 = 0; r0 < rows; r0 += block_rows) {
    b.count = rows - r0 < block_rows ? rows - r0 : block_rows;
    for (std::size_t r = 0; r < b.count; ++r) {
      b.pos[r] = (r0 + r) / group;
      b.head[r] = first_head + (r0 + r) % group;
      b.q[r] = q.head(bi, b.head[r]).row(b.pos[r]);
    }
    if (q.cols <= kMaxPackedWidth) pack_queries(b, q.cols);
    attend_rows(k.head(bi, g), v.head(bi, g), rules, bi, b, packed, out);
  }
}

}  // namespace

std::size_t batched_fused_scratch_floats(std::size_t d_v) {
  return kRows * kBlock + kRows * d_v + kPackFloats + kBlock * d_v + kQueryFloats;  // S, O, packed K, V and Q
}

Status batched_fused_attention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                               const MutHeadTensor& out, float* scratch) {
  if (Status s = check_batched_shapes(q, k, v, out); s != Status::ok) return s;
  if (Status s = check_rules(rules, q.batch, k.rows); s != Status::ok) return s;
  (void)kPhases.score;
  for (std::size_t b = 0; b < q.batch; ++b)
    for (std::size_t g = 0; g < k.heads; ++g) attend_group(q, k, v, rules, out, b, g, scratch);
  return Status::ok;
}

}  // namespace attn
