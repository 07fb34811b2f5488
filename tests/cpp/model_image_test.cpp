// The saved image's precisions (src/train/model_image.h, quantize.h): float16
// conversion against a plain reference (every float16, every midpoint, random
// floats); int8 rows against a plain reference quantizer written here (sizes
// 1, 3, 64, 65; ties; zero rows; huge and tiny rows); save → load of compact
// images giving exactly the reference's dequantized parameters; compact images
// refused when hostile; float32 images unchanged byte for byte from the
// code before compact images existed; an encoder-only model's version-3 image at
// every precision, and its kind refused under a version-1 or -2 header.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "test_util.h"
#include "train/model_image.h"
#include "train/quantize.h"
#include "train/transformer_model.h"

namespace {

using attn::ModelConfig;
using attn::ModelKind;
using attn::ParameterInfo;
using attn::SavePrecision;
using attn::Status;
using attn::TransformerModel;

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// ---- reference float16: value by the definition, nearest by search

double half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// The float16 nearest x (ties to the even bit pattern); ∞ from 65520 on.
std::uint16_t reference_half(float x) {
  static std::vector<double> positive;  // the 31744 finite non-negative float16s, in order
  if (positive.empty())
    for (std::uint32_t h = 0; h < 0x7c00; ++h) positive.push_back(half_value(static_cast<std::uint16_t>(h)));
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(x));
  if (a >= 65520.0) return sign | 0x7c00;
  if (a >= 65504.0) return sign | 0x7bff;
  const auto above = static_cast<std::size_t>(std::lower_bound(positive.begin(), positive.end(), a) - positive.begin());
  if (positive[above] == a) return static_cast<std::uint16_t>(sign | above);
  const std::size_t below = above - 1;
  const double up = positive[above] - a, down = a - positive[below];
  const std::size_t pick = up < down ? above : down < up ? below : (above % 2 == 0 ? above : below);
  return static_cast<std::uint16_t>(sign | pick);
}

TEST(Float16, EveryHalfReadsAsItsValueAndConvertsBack) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto half = static_cast<std::uint16_t>(h);
    const float x = attn::from_half(half);
    if (!attn::half_is_finite(half)) {
      EXPECT_FALSE(std::isfinite(x)) << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(x), half_value(half)) << h;
    ASSERT_EQ(std::signbit(x), (h & 0x8000) != 0) << h;
    ASSERT_EQ(attn::to_half(x), half) << h;
  }
}

TEST(Float16, MidpointsRoundToEvenAndTheirNeighboursToTheNearer) {
  for (std::uint32_t h = 0; h + 1 < 0x7c00; ++h) {
    const double mid = (half_value(static_cast<std::uint16_t>(h)) + half_value(static_cast<std::uint16_t>(h + 1))) / 2;
    const auto m = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(m), mid);  // 12 significant bits: exact in float32
    const std::uint32_t even = h % 2 == 0 ? h : h + 1;
    ASSERT_EQ(attn::to_half(m), even) << h;
    ASSERT_EQ(attn::to_half(-m), 0x8000 | even) << h;
    ASSERT_EQ(attn::to_half(std::nextafter(m, 0.0f)), h) << h;
    ASSERT_EQ(attn::to_half(std::nextafter(m, INFINITY)), h + 1) << h;
  }
  // The edges: the largest float16, the overflow threshold, the subnormals' ends.
  EXPECT_EQ(attn::to_half(65504.0f), 0x7bff);
  EXPECT_EQ(attn::to_half(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_TRUE(attn::fits_half(std::nextafter(65520.0f, 0.0f)));
  EXPECT_FALSE(attn::fits_half(65520.0f));
  EXPECT_FALSE(attn::fits_half(-65520.0f));
  EXPECT_FALSE(attn::fits_half(NAN));
  EXPECT_EQ(attn::to_half(0x1p-24f), 1);
  EXPECT_EQ(attn::to_half(0x1p-25f), 0);  // a tie between 0 and 2^-24: to even
  EXPECT_EQ(attn::to_half(std::nextafter(0x1p-25f, 1.0f)), 1);
  EXPECT_EQ(attn::to_half(3 * 0x1p-25f), 2);  // a tie between 1 and 2 units
  EXPECT_EQ(attn::to_half(FLT_MIN), 0);
  EXPECT_EQ(attn::to_half(-0.0f), 0x8000);
  EXPECT_EQ(attn::to_half(0x1p-14f), 0x0400);  // the smallest normal
}

TEST(Float16, RandomFloatsGoToTheNearestHalf) {
  attn_test::Rng rng(16);
  for (int i = 0; i < 200000; ++i) {
    // Any finite bit pattern below the threshold, and uniform values of moderate size.
    float x;
    if (i % 2 == 0) {
      const auto b = static_cast<std::uint32_t>(rng.next());
      std::memcpy(&x, &b, 4);
      if (!attn::fits_half(x)) continue;
    } else {
      x = rng.uniform(-4.0f, 4.0f);
    }
    ASSERT_EQ(attn::to_half(x), reference_half(x)) << x;
  }
}

// ---- reference int8: the stated rule, written out plainly

struct Int8Row {
  float scale = 0;
  std::vector<int> q;
};

// scale = max|x| / 127 in float32 (the float below it when 127 × scale overflows);
// q = x / scale in float32, rounded half away from zero, clamped to ±127; scale 0: q = 0.
Int8Row reference_int8(const float* row, std::size_t n) {
  Int8Row r;
  float largest = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::fabs(row[i]) > largest) largest = std::fabs(row[i]);
  r.scale = largest / 127.0f;
  if (std::isinf(127.0f * r.scale)) r.scale = std::nextafterf(r.scale, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    if (r.scale == 0) {
      r.q.push_back(0);
      continue;
    }
    const float ratio = row[i] / r.scale;
    const double magnitude = std::min(std::floor(std::fabs(static_cast<double>(ratio)) + 0.5), 127.0);
    r.q.push_back(static_cast<int>(ratio < 0 ? -magnitude : magnitude));
  }
  return r;
}

float reference_dequantized(int q, float scale) { return static_cast<float>(q) * scale; }

void expect_row_matches_reference(const std::vector<float>& row, const char* what) {
  const Int8Row ref = reference_int8(row.data(), row.size());
  const float scale = attn::int8_scale(row.data(), row.size());
  ASSERT_EQ(bits(scale), bits(ref.scale)) << what << " n=" << row.size();
  EXPECT_TRUE(attn::int8_scale_is_valid(scale)) << what;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const std::int8_t q = attn::to_int8(row[i], scale);
    ASSERT_EQ(q, ref.q[i]) << what << " n=" << row.size() << " i=" << i << " x=" << row[i];
    ASSERT_NE(q, -128);
    const float back = attn::from_int8(q, scale);
    ASSERT_TRUE(std::isfinite(back)) << what;
    ASSERT_EQ(bits(back), bits(reference_dequantized(ref.q[i], ref.scale))) << what;
  }
}

TEST(Int8Rows, MatchThePlainReferenceAtEverySize) {
  attn_test::Rng rng(8);
  for (std::size_t n : {1, 3, 64, 65}) {
    std::vector<float> row(n);
    for (auto& x : row) x = rng.uniform(-2.0f, 2.0f);
    expect_row_matches_reference(row, "uniform");
    for (auto& x : row) x = std::ldexp(rng.uniform(-1.0f, 1.0f), static_cast<int>(rng.below(60)) - 30);
    expect_row_matches_reference(row, "wide exponents");
    std::vector<float> zeros(n, 0.0f);
    zeros[n / 2] = -0.0f;
    expect_row_matches_reference(zeros, "zeros");
    EXPECT_EQ(attn::int8_scale(zeros.data(), n), 0.0f);
    std::vector<float> huge = row;
    huge[n - 1] = -FLT_MAX;
    expect_row_matches_reference(huge, "huge");
    std::vector<float> tiny(n, 1e-44f);  // a subnormal row: its scale underflows to 0 or a subnormal
    tiny[0] = -3e-43f;
    expect_row_matches_reference(tiny, "subnormal");
  }
}

TEST(Int8Rows, TiesRoundHalfAwayFromZero) {
  // max 127: scale exactly 1, so x / scale is x and every k + 0.5 is a tie.
  const std::vector<float> row = {127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 126.5f, -3.5f, 0.49999997f};
  const float scale = attn::int8_scale(row.data(), row.size());
  ASSERT_EQ(scale, 1.0f);
  const std::vector<int> away = {127, 1, 2, 3, -1, -3, 127, -4, 0};  // to even would give 0, 2, 2, -0, -2, 126, -4
  for (std::size_t i = 0; i < row.size(); ++i) EXPECT_EQ(attn::to_int8(row[i], scale), away[i]) << row[i];
  expect_row_matches_reference(row, "ties");
}

TEST(Int8Rows, HugeValuesNeverReadBackAsInfinity) {
  for (float largest : {FLT_MAX, std::nextafter(FLT_MAX, 0.0f), 3.0e38f, 1.0e38f}) {
    const std::vector<float> row = {largest, -largest, largest / 2, 1.0f, 0.0f};
    const float scale = attn::int8_scale(row.data(), row.size());
    EXPECT_TRUE(attn::int8_scale_is_valid(scale)) << largest;
    EXPECT_EQ(attn::to_int8(largest, scale), 127);
    EXPECT_EQ(attn::to_int8(-largest, scale), -127);
    EXPECT_TRUE(std::isfinite(attn::from_int8(127, scale)));
    expect_row_matches_reference(row, "huge");
  }
  EXPECT_FALSE(attn::int8_scale_is_valid(FLT_MAX));  // 127 × FLT_MAX overflows
  EXPECT_FALSE(attn::int8_scale_is_valid(-1.0f));
  EXPECT_FALSE(attn::int8_scale_is_valid(-0.0f));
  EXPECT_FALSE(attn::int8_scale_is_valid(NAN));
  EXPECT_FALSE(attn::int8_scale_is_valid(INFINITY));
  EXPECT_TRUE(attn::int8_scale_is_valid(0.0f));
}

// ---- models: save → load at each precision

std::unique_ptr<TransformerModel> make(const ModelConfig& c) {
  Status s = Status::bad_mask;
  std::unique_ptr<TransformerModel> m(TransformerModel::create(c, &s));
  EXPECT_EQ(s, Status::ok);
  return m;
}

// Rows of width 3, 64, 65 and 1-row tensors (vocab 64, d_model 3, d_ff 65), additive cross-attention.
ModelConfig odd_sizes() {
  ModelConfig c;
  c.vocab_size = 64;
  c.max_length = 5;
  c.d_model = 3;
  c.heads = 1;
  c.d_ff = 65;
  c.cross_scoring = attn::CrossScoring::additive;
  c.positions = attn::PositionKind::learned;
  c.seed = 11;
  return c;
}

// Every tensor's values: random of varied size, plus a zero row, a row of ties and (huge) a row
// holding ±FLT_MAX in the first matrix.
void fill(TransformerModel& m, bool huge) {
  attn_test::Rng rng(21);
  float* p = m.parameters();
  for (std::size_t i = 0; i < m.parameter_count(); ++i)
    p[i] = std::ldexp(rng.uniform(-1.0f, 1.0f), static_cast<int>(rng.below(8)) - 4);
  const ParameterInfo& embedding = m.tensors().front();  // vocab × d_model
  ASSERT_GE(embedding.rows, 4u);
  float* e = p + embedding.offset;
  std::fill(e, e + embedding.cols, 0.0f);                                  // row 0: zeros
  for (std::size_t c = 0; c < embedding.cols; ++c) e[embedding.cols + c] = c == 0 ? 127.0f : 2.5f;  // ties
  if (huge) {
    e[2 * embedding.cols] = FLT_MAX;
    e[3 * embedding.cols] = -FLT_MAX;
  }
}

std::vector<std::uint8_t> saved(const TransformerModel& m, SavePrecision p) {
  std::vector<std::uint8_t> bytes(m.saved_bytes(p));
  EXPECT_EQ(m.save(bytes.data(), bytes.size(), p), Status::ok);
  return bytes;
}

std::unique_ptr<TransformerModel> loaded(const std::vector<std::uint8_t>& bytes, Status* s) {
  return std::unique_ptr<TransformerModel>(TransformerModel::load(bytes.data(), bytes.size(), s));
}

// What a model loaded from m's image at p must hold: the reference's dequantized values.
std::vector<float> reference_parameters(const TransformerModel& m, SavePrecision p) {
  const float* params = const_cast<TransformerModel&>(m).parameters();
  std::vector<float> out(params, params + m.parameter_count());
  for (const ParameterInfo& t : m.tensors()) {
    if (t.rows == 1 || p == SavePrecision::float32) continue;  // kept in float32
    for (std::size_t r = 0; r < t.rows; ++r) {
      float* row = out.data() + t.offset + r * t.cols;
      if (p == SavePrecision::float16) {
        for (std::size_t c = 0; c < t.cols; ++c) row[c] = static_cast<float>(half_value(reference_half(row[c])));
        continue;
      }
      const Int8Row q = reference_int8(row, t.cols);
      for (std::size_t c = 0; c < t.cols; ++c) row[c] = reference_dequantized(q.q[c], q.scale);
    }
  }
  return out;
}

std::size_t expected_bytes(const TransformerModel& m, SavePrecision p) {
  std::size_t bytes = 120 + 8;
  for (const ParameterInfo& t : m.tensors())
    bytes += t.rows == 1 || p == SavePrecision::float32 ? 4 * t.rows * t.cols
             : p == SavePrecision::float16           ? 2 * t.rows * t.cols
                                                     : 4 * t.rows + t.rows * t.cols;
  return bytes;
}

void expect_round_trip(TransformerModel& m, SavePrecision p) {
  const std::vector<std::uint8_t> bytes = saved(m, p);
  ASSERT_EQ(bytes.size(), expected_bytes(m, p));
  const bool encoder_only = m.config().kind == ModelKind::encoder_only;
  EXPECT_EQ(bytes[4], encoder_only ? 3 : p == SavePrecision::float32 ? 1 : 2);  // version
  EXPECT_EQ(bytes[100], static_cast<std::uint8_t>(p));       // precision
  Status s = Status::bad_mask;
  auto back = loaded(bytes, &s);
  ASSERT_EQ(s, Status::ok);
  EXPECT_EQ(back->steps(), m.steps());
  const std::vector<float> want = reference_parameters(m, p);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(bits(back->parameters()[i]), bits(want[i])) << "parameter " << i << " precision " << bytes[100];
  if (p == SavePrecision::float16) EXPECT_EQ(saved(*back, p), bytes);  // float16 is idempotent
  // Its float32 image is exact, like any model's.
  const std::vector<std::uint8_t> exact = saved(*back, SavePrecision::float32);
  auto again = loaded(exact, &s);
  ASSERT_EQ(s, Status::ok);
  EXPECT_EQ(std::memcmp(again->parameters(), back->parameters(), want.size() * 4), 0);
}

TEST(CompactImage, SaveThenLoadGivesTheReferenceDequantizedParameters) {
  for (const ModelConfig& base : {odd_sizes(), ModelConfig{}}) {
    ModelConfig c = base;
    if (c.vocab_size == 0) {  // widths 1 (d_model 1, d_ff 1): 1 × 1 matrices stay float32
      c.vocab_size = 5;
      c.max_length = 4;
      c.d_model = 1;
      c.heads = 1;
      c.d_ff = 1;
      c.kind = ModelKind::decoder_only;
      c.encoder_layers = 0;
    }
    auto m = make(c);
    fill(*m, false);
    for (SavePrecision p : {SavePrecision::float32, SavePrecision::float16, SavePrecision::int8})
      expect_round_trip(*m, p);
    fill(*m, true);
    expect_round_trip(*m, SavePrecision::int8);
    expect_round_trip(*m, SavePrecision::float32);
    // ±FLT_MAX does not fit float16: refused, nothing written.
    std::vector<std::uint8_t> bytes(m->saved_bytes(SavePrecision::float16), 0xAB);
    EXPECT_EQ(m->save(bytes.data(), bytes.size(), SavePrecision::float16), Status::bad_argument);
    EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0xAB; }));
  }
}

// The dates model's sizes (d_model 32): int8 is a quarter plus a scale per row of 32 and the
// float32 vectors.
TEST(CompactImage, SizesAreAboutAHalfAndAQuarter) {
  ModelConfig c;
  c.vocab_size = 60;
  c.max_length = 32;
  c.encoder_layers = c.decoder_layers = 2;
  auto m = make(c);
  const double f32 = static_cast<double>(m->saved_bytes());
  EXPECT_EQ(m->saved_bytes(SavePrecision::float32), m->saved_bytes());
  EXPECT_GT(m->saved_bytes(SavePrecision::float16) / f32, 0.5);
  EXPECT_LT(m->saved_bytes(SavePrecision::float16) / f32, 0.52);
  EXPECT_GT(m->saved_bytes(SavePrecision::int8) / f32, 0.25);
  EXPECT_LT(m->saved_bytes(SavePrecision::int8) / f32, 0.3);
}

TEST(CompactImage, SaveRefusesWhatItCannotStore) {
  auto m = make(odd_sizes());
  const auto unknown = static_cast<SavePrecision>(3);
  EXPECT_EQ(m->saved_bytes(unknown), 0u);
  std::vector<std::uint8_t> bytes(m->saved_bytes());
  EXPECT_EQ(m->save(bytes.data(), bytes.size(), unknown), Status::bad_argument);
  const std::size_t small = m->saved_bytes(SavePrecision::int8);
  EXPECT_EQ(m->save(bytes.data(), small - 1, SavePrecision::int8), Status::bad_argument);
  EXPECT_EQ(m->save(nullptr, small, SavePrecision::int8), Status::bad_argument);
  // The float16 threshold: just below 65520 is stored as 65504, 65520 is refused.
  float* w = m->parameters() + m->tensors().front().offset;
  w[0] = std::nextafter(65520.0f, 0.0f);
  Status s = Status::bad_mask;
  auto back = loaded(saved(*m, SavePrecision::float16), &s);
  ASSERT_EQ(s, Status::ok);
  EXPECT_EQ(back->parameters()[m->tensors().front().offset], 65504.0f);
  w[0] = -65520.0f;
  std::vector<std::uint8_t> half(m->saved_bytes(SavePrecision::float16));
  EXPECT_EQ(m->save(half.data(), half.size(), SavePrecision::float16), Status::bad_argument);
  // A parameter that is not finite: compact images refuse it (float32 writes it, and load refuses that).
  w[0] = NAN;
  std::vector<std::uint8_t> q(small);
  EXPECT_EQ(m->save(q.data(), q.size(), SavePrecision::int8), Status::bad_argument);
  EXPECT_EQ(m->save(bytes.data(), bytes.size()), Status::ok);
}

// ---- hostile compact images

void rehash(std::vector<std::uint8_t>& bytes) {
  const std::uint64_t h = attn::fnv1a(bytes.data(), bytes.size() - 8);
  for (std::size_t i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<std::uint8_t>(h >> (8 * i));
}

Status load_status(const std::vector<std::uint8_t>& bytes) {
  Status s = Status::ok;
  auto m = loaded(bytes, &s);
  EXPECT_EQ(m == nullptr, s != Status::ok);
  return s;
}

// Where tensor k starts in an image at p (the layout written out again here).
std::size_t image_offset(const TransformerModel& m, std::size_t k, SavePrecision p) {
  std::size_t at = 120;
  for (std::size_t i = 0; i < k; ++i) {
    const ParameterInfo& t = m.tensors()[i];
    at += t.rows == 1 ? 4 * t.cols : p == SavePrecision::float16 ? 2 * t.rows * t.cols : 4 * t.rows + t.rows * t.cols;
  }
  return at;
}

std::size_t first_vector(const TransformerModel& m) {
  std::size_t k = 0;
  while (m.tensors()[k].rows != 1) ++k;
  return k;
}

TEST(CompactImage, TheInt8LayoutIsScalesThenValuesPerTensor) {
  auto m = make(odd_sizes());
  fill(*m, false);
  const std::vector<std::uint8_t> bytes = saved(*m, SavePrecision::int8);
  const ParameterInfo& t = m->tensors()[1];  // encoder.positions, 5 × 3
  const std::size_t at = image_offset(*m, 1, SavePrecision::int8);
  const float* w = m->parameters() + t.offset;
  for (std::size_t r = 0; r < t.rows; ++r) {
    const Int8Row ref = reference_int8(w + r * t.cols, t.cols);
    std::uint32_t scale_bits = 0;
    for (std::size_t i = 0; i < 4; ++i) scale_bits |= static_cast<std::uint32_t>(bytes[at + 4 * r + i]) << (8 * i);
    EXPECT_EQ(scale_bits, bits(ref.scale));
    for (std::size_t c = 0; c < t.cols; ++c)
      EXPECT_EQ(static_cast<std::int8_t>(bytes[at + 4 * t.rows + r * t.cols + c]), ref.q[c]);
  }
}

TEST(CompactImage, RefusesTruncatedCorruptAndHostileImages) {
  auto m = make(odd_sizes());
  fill(*m, false);
  for (SavePrecision p : {SavePrecision::float16, SavePrecision::int8}) {
    const std::vector<std::uint8_t> good = saved(*m, p);
    ASSERT_EQ(load_status(good), Status::ok);
    for (std::size_t size = 0; size < good.size(); size += (size < 140 ? 1 : 37)) {
      std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(size));
      EXPECT_EQ(load_status(cut), Status::bad_argument) << "truncated to " << size;
      if (size >= 128) {
        rehash(cut);  // a hash made right does not make a short image whole
        EXPECT_EQ(load_status(cut), Status::bad_argument) << "truncated to " << size << ", rehashed";
      }
    }
    std::vector<std::uint8_t> longer(good.begin(), good.end() - 8);  // one byte more before the hash
    longer.resize(good.size() + 1, 0);
    rehash(longer);
    EXPECT_EQ(load_status(longer), Status::bad_argument);
    for (std::size_t at = 0; at < good.size(); at += 7) {
      std::vector<std::uint8_t> bad = good;
      bad[at] ^= 0x10;
      EXPECT_EQ(load_status(bad), Status::bad_argument) << "byte " << at;
    }
    auto field = [&](std::size_t offset, std::uint64_t value, std::size_t width) {
      std::vector<std::uint8_t> bad = good;
      for (std::size_t i = 0; i < width; ++i) bad[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
      rehash(bad);
      return load_status(bad);
    };
    EXPECT_EQ(field(100, 3, 4), Status::bad_argument);  // an unknown precision
    EXPECT_EQ(field(100, 0, 4), Status::bad_argument);  // float32 is version 1
    EXPECT_EQ(field(100, p == SavePrecision::int8 ? 1 : 2, 4), Status::bad_argument);  // the other one: sizes differ
    EXPECT_EQ(field(4, 1, 4), Status::bad_argument);    // version 1 with a compact precision
    EXPECT_EQ(field(4, 3, 4), Status::bad_argument);
    EXPECT_EQ(field(112, m->parameter_count() + 1, 8), Status::bad_argument);  // a count the config does not have
    EXPECT_EQ(field(112, std::uint64_t{1} << 28, 8), Status::bad_argument);
    EXPECT_EQ(field(112, std::uint64_t{1} << 40, 8), Status::bad_argument);
    EXPECT_EQ(field(32, 65, 8), Status::bad_argument);   // vocab: the count disagrees
    EXPECT_EQ(field(88, 777, 8), Status::ok);            // any seed
    // A 1-row tensor's float32 values are checked as in a version-1 image.
    const std::size_t vec = image_offset(*m, first_vector(*m), p);
    EXPECT_EQ(field(vec, 0x7FC00000u, 4), Status::bad_argument);
    EXPECT_EQ(field(vec, 0xFF800000u, 4), Status::bad_argument);
    EXPECT_EQ(field(vec, 0x3F800000u, 4), Status::ok);
    const std::size_t first = image_offset(*m, 0, p);  // encoder.embedding, 64 × 3
    if (p == SavePrecision::float16) {
      EXPECT_EQ(field(first, 0x7c00, 2), Status::bad_argument);  // ∞
      EXPECT_EQ(field(first, 0xfe00, 2), Status::bad_argument);  // NaN
      EXPECT_EQ(field(first, 0x7bff, 2), Status::ok);            // 65504
      EXPECT_EQ(field(first, 0x8001, 2), Status::ok);            // a negative subnormal
      continue;
    }
    EXPECT_EQ(field(first + 4, 0x7FC00000u, 4), Status::bad_argument);  // a NaN scale (row 1)
    EXPECT_EQ(field(first + 4, 0x7F800000u, 4), Status::bad_argument);  // ∞
    EXPECT_EQ(field(first + 4, bits(FLT_MAX), 4), Status::bad_argument);  // 127 × scale overflows
    EXPECT_EQ(field(first + 4, bits(-1.0f), 4), Status::bad_argument);
    EXPECT_EQ(field(first + 4, 0x80000000u, 4), Status::bad_argument);  // -0
    EXPECT_EQ(field(first + 4, bits(1e30f), 4), Status::ok);            // large, finite when read back
    const std::size_t values = first + 4 * 64;
    EXPECT_EQ(field(values + 3, 0x80, 1), Status::bad_argument);  // -128 (row 1)
    EXPECT_EQ(field(values + 3, 0x81, 1), Status::ok);            // -127
    EXPECT_EQ(field(values + 0, 1, 1), Status::bad_argument);     // row 0 is zeros: scale 0, so every q is 0
    EXPECT_EQ(field(first, bits(0.5f), 4), Status::ok);           // ... unless its scale is not 0
  }
  EXPECT_EQ(load_status(saved(*m, SavePrecision::int8)), Status::ok);  // still loads after all that
}

// ---- encoder-only models: version 3

ModelConfig encoder_only() {
  ModelConfig c = odd_sizes();
  c.kind = ModelKind::encoder_only;
  c.encoder_layers = 2;
  c.decoder_layers = 0;
  return c;
}

TEST(EncoderOnlyImage, SaveThenLoadGivesTheReferenceParametersAtEveryPrecision) {
  auto m = make(encoder_only());
  fill(*m, false);
  for (SavePrecision p : {SavePrecision::float32, SavePrecision::float16, SavePrecision::int8}) {
    expect_round_trip(*m, p);
    Status s = Status::bad_mask;
    auto back = loaded(saved(*m, p), &s);
    ASSERT_EQ(s, Status::ok);
    EXPECT_EQ(back->config().kind, ModelKind::encoder_only);
    EXPECT_EQ(back->config().encoder_layers, 2u);
    EXPECT_EQ(back->config().decoder_layers, 0u);
    EXPECT_EQ(back->tensors().front().name, "encoder.embedding");
  }
}

// Version 3 is laid out as versions 1 and 2 are: only the version and the kind tell an
// encoder-only model apart, so a reader of versions 1 and 2 refuses it, and each version holds its
// own kinds.
TEST(EncoderOnlyImage, EachVersionHoldsOnlyItsOwnKinds) {
  auto m = make(encoder_only());
  fill(*m, false);
  for (SavePrecision p : {SavePrecision::float32, SavePrecision::float16, SavePrecision::int8}) {
    const std::vector<std::uint8_t> good = saved(*m, p);
    ASSERT_EQ(load_status(good), Status::ok);
    auto with = [&](std::size_t offset, std::uint32_t value) {
      std::vector<std::uint8_t> bad = good;
      for (std::size_t i = 0; i < 4; ++i) bad[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
      rehash(bad);
      return load_status(bad);
    };
    // Kind 2 under the version the other kinds would have at this precision: refused.
    EXPECT_EQ(with(4, p == SavePrecision::float32 ? 1 : 2), Status::bad_argument);
    EXPECT_EQ(with(4, 4), Status::bad_argument);
    EXPECT_EQ(with(8, 3), Status::bad_argument);  // an unknown kind
    for (std::size_t at = 0; at < good.size(); at += 5) {
      std::vector<std::uint8_t> bad = good;
      bad[at] ^= 0x10;
      EXPECT_EQ(load_status(bad), Status::bad_argument) << "byte " << at;
    }
  }
  // A decoder-only model's image (versions 1 and 2) is refused under version 3.
  ModelConfig lm = odd_sizes();
  lm.kind = ModelKind::decoder_only;
  lm.encoder_layers = 0;
  auto other = make(lm);
  for (SavePrecision p : {SavePrecision::float32, SavePrecision::int8}) {
    std::vector<std::uint8_t> bytes = saved(*other, p);
    ASSERT_EQ(load_status(bytes), Status::ok);
    bytes[4] = 3;
    rehash(bytes);
    EXPECT_EQ(load_status(bytes), Status::bad_argument);
  }
  // The same layout under version 1 with kind 2 written in: refused though every size agrees.
  ModelConfig same = lm;
  same.kind = ModelKind::encoder_only;
  same.encoder_layers = 1;
  same.decoder_layers = 0;
  std::vector<std::uint8_t> lm_bytes = saved(*other, SavePrecision::float32);
  auto encoder = make(same);
  ASSERT_EQ(encoder->parameter_count(), other->parameter_count());
  lm_bytes[8] = 2;                               // kind
  lm_bytes[32 + 8 * 5] = 1;                      // encoder_layers
  lm_bytes[32 + 8 * 6] = 0;                      // decoder_layers
  rehash(lm_bytes);
  EXPECT_EQ(load_status(lm_bytes), Status::bad_argument);
  lm_bytes[4] = 3;                               // ... and accepted as version 3
  rehash(lm_bytes);
  EXPECT_EQ(load_status(lm_bytes), Status::ok);
}

// ---- float32 images are what they were

// Recorded from the code at cf3fad3 (before compact images existed): each model
// created (untrained, so only the layout and the seeded initialisation matter),
// saved with save(), and the FNV-1a hash taken over every byte of the image.
TEST(CompactImage, Float32ImagesAreByteForByteThoseOfBefore) {
  struct Recorded {
    ModelConfig config;
    std::size_t bytes;
    std::uint64_t hash;
  };
  ModelConfig lm;
  lm.kind = ModelKind::decoder_only;
  lm.vocab_size = 7;
  lm.max_length = 6;
  lm.d_model = 8;
  lm.heads = 2;
  lm.d_ff = 16;
  lm.encoder_layers = 0;
  lm.decoder_layers = 1;
  lm.seed = 3;
  ModelConfig seq = lm;
  seq.kind = ModelKind::encoder_decoder;
  seq.encoder_layers = 1;
  seq.decoder_layers = 2;
  seq.cross_scoring = attn::CrossScoring::additive;
  seq.positions = attn::PositionKind::learned;
  seq.activation = attn::Activation::gelu;
  seq.norm = attn::NormPlacement::pre;
  seq.seed = 0xFEEDFACECAFEull;
  seq.pad_id = 3;
  for (const Recorded& r : {Recorded{lm, 2876, 0x87e85157cf29106dull}, Recorded{seq, 10908, 0x438243d60699a94cull}}) {
    auto m = make(r.config);
    const std::vector<std::uint8_t> bytes = saved(*m, SavePrecision::float32);
    ASSERT_EQ(bytes.size(), r.bytes);
    EXPECT_EQ(attn::fnv1a(bytes.data(), bytes.size()), r.hash);
    std::vector<std::uint8_t> by_default(m->saved_bytes());
    ASSERT_EQ(m->save(by_default.data(), by_default.size()), Status::ok);
    EXPECT_EQ(by_default, bytes);
  }
}

}  // namespace
