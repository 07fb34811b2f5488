// libFuzzer target: attn::TransformerModel::load on hostile bytes. The first
// byte picks how the image is made:
//   0  the rest of the input as it is (mostly refused at the hash);
//   1  the rest as an image whose trailing hash is made right, so the header's
//      fields (magic, version, enums, sizes, counts, reserved, steps) and the
//      parameters' values are what gets checked;
//   2  the saved image of a small model (every kind (an encoder-only one's is
//      version 3), norm, scoring, positions, activation; sizes ≤ 8) with some
//      bytes changed, then truncated or
//      extended now and then, the hash made right or not;
//   3, 4  the same with a compact image (float16, int8), the model's parameters
//      now and then replaced by values of any family first (zeros, ties, ±FLT_MAX,
//      subnormals, NaN, ∞: save must refuse exactly what it cannot store).
// Invariants: the status is ok or bad_argument, a model exactly when ok, and
// then: the byte count is saved_bytes at the image's precision; a float32 image
// saved again gives the same bytes, a float16 one too, an int8 one saves again
// and loads; every parameter is finite and (compact images) exactly what a
// plain reading of the bytes gives (f32, float16 bits, q × scale); the version
// is the kind's and precision's (3 for an encoder-only model, else 1 or 2);
// evaluate, generate (refused for an encoder-only model) and attend (refused for
// an encoder–decoder one) on in-range tokens return ok without reading or
// writing out of bounds, attend's rows summing to 1 (or 0: every key padding)
// when every weight is within kWeightLimit.
#include <algorithm>
#include <cmath>
#include <memory>

#include "fuzz_common.h"
#include "train/model_image.h"
#include "train/quantize.h"
#include "train/transformer_model.h"

namespace {

void fix_hash(std::vector<std::uint8_t>& bytes) {
  if (bytes.size() < 8) return;
  const std::uint64_t h = attn::fnv1a(bytes.data(), bytes.size() - 8);
  for (std::size_t i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<std::uint8_t>(h >> (8 * i));
}

std::unique_ptr<attn::TransformerModel> small_model(fuzz::Decoder& in) {
  attn::ModelConfig c;
  c.kind = in.flag() ? attn::ModelKind::decoder_only : attn::ModelKind::encoder_decoder;
  c.norm = in.flag() ? attn::NormPlacement::pre : attn::NormPlacement::post;
  c.cross_scoring = in.flag() ? attn::CrossScoring::additive : attn::CrossScoring::dot;
  c.scaled = in.flag();
  c.positions = in.flag() ? attn::PositionKind::learned : attn::PositionKind::sinusoidal;
  c.activation = in.flag() ? attn::Activation::gelu : attn::Activation::relu;
  c.vocab_size = in.dim(1, 8);
  c.max_length = in.dim(1, 8);
  c.heads = in.dim(1, 4);
  c.d_model = c.heads * in.dim(1, 2);
  c.d_ff = in.dim(1, 8);
  c.encoder_layers = c.kind == attn::ModelKind::encoder_decoder ? in.dim(1, 2) : 0;
  c.decoder_layers = in.dim(1, 2);
  c.seed = in.in_range<std::uint64_t>(0, UINT64_MAX);
  c.pad_id = static_cast<std::int32_t>(in.dim(0, c.vocab_size - 1));
  // Half the decoder-only models are encoder-only ones of the same layers, chosen by the seed's
  // low bit: the same bytes are read as before, so the kept corpus reaches what it reached.
  if (c.kind == attn::ModelKind::decoder_only && (c.seed & 1)) {
    c.kind = attn::ModelKind::encoder_only;
    c.encoder_layers = c.decoder_layers;
    c.decoder_layers = 0;
  }
  attn::Status s = attn::Status::ok;
  std::unique_ptr<attn::TransformerModel> m(attn::TransformerModel::create(c, &s));
  FUZZ_CHECK(s == attn::Status::ok && m, "a small consistent config was refused");
  return m;
}

// Whether save at p can store every parameter (float16: a tensor of one row stays float32).
bool storable(const attn::TransformerModel& m, attn::SavePrecision p) {
  const float* params = const_cast<attn::TransformerModel&>(m).parameters();
  for (const attn::ParameterInfo& t : m.tensors())
    for (std::size_t i = 0; i < t.rows * t.cols; ++i) {
      const float x = params[t.offset + i];
      if (!std::isfinite(x) || (p == attn::SavePrecision::float16 && t.rows > 1 && !attn::fits_half(x))) return false;
    }
  return true;
}

// The image of a small model at p; empty when save (rightly) refused its parameters.
std::vector<std::uint8_t> small_model_image(fuzz::Decoder& in, attn::SavePrecision p) {
  std::unique_ptr<attn::TransformerModel> m = small_model(in);
  if (p != attn::SavePrecision::float32 && in.flag()) {
    const fuzz::Values mode = in.values();
    float* params = m->parameters();
    for (std::size_t i = 0; i < m->parameter_count(); ++i) params[i] = in.value(mode);
  }
  std::vector<std::uint8_t> bytes(m->saved_bytes(p));
  const attn::Status s = m->save(bytes.data(), bytes.size(), p);
  FUZZ_CHECK((s == attn::Status::ok) == (p == attn::SavePrecision::float32 || storable(*m, p)),
             "save refused parameters it can store, or stored ones it cannot");
  if (s != attn::Status::ok) bytes.clear();
  return bytes;
}

float f32_at(const std::uint8_t* in) {
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < 4; ++i) bits |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// A loaded compact image's parameters against a plain reading of its bytes.
void check_dequantized(const attn::TransformerModel& m, const std::vector<std::uint8_t>& bytes,
                       attn::SavePrecision p) {
  const float* params = const_cast<attn::TransformerModel&>(m).parameters();
  const std::uint8_t* in = bytes.data() + attn::kImageHeaderBytes;
  for (const attn::ParameterInfo& t : m.tensors()) {
    const float* w = params + t.offset;
    const std::size_t n = t.rows * t.cols;
    std::vector<float> want(n);
    if (t.rows == 1) {
      for (std::size_t i = 0; i < n; ++i, in += 4) want[i] = f32_at(in);
    } else if (p == attn::SavePrecision::float16) {
      for (std::size_t i = 0; i < n; ++i, in += 2)
        want[i] = attn::from_half(static_cast<std::uint16_t>(in[0] | in[1] << 8));
    } else {
      const std::uint8_t* values = in + 4 * t.rows;
      for (std::size_t i = 0; i < n; ++i)
        want[i] = static_cast<float>(static_cast<std::int8_t>(values[i])) * f32_at(in + 4 * (i / t.cols));
      in = values + n;
    }
    FUZZ_CHECK(std::memcmp(want.data(), w, 4 * n) == 0, "a loaded compact parameter is not its dequantized value");
  }
  FUZZ_CHECK(in == bytes.data() + bytes.size() - 8, "the tensors do not end at the hash");
}

// Runs the loaded model on a short batch and a short decode of in-range tokens.
void exercise(attn::TransformerModel& m, fuzz::Decoder& in) {
  const attn::ModelConfig& c = m.config();
  const std::size_t n = in.dim(1, std::min<std::size_t>(c.max_length, 4));
  std::vector<std::int32_t> source(n), input(n), target(n);
  for (std::size_t i = 0; i < n; ++i) {
    source[i] = static_cast<std::int32_t>(in.dim(0, c.vocab_size - 1));
    input[i] = static_cast<std::int32_t>(in.dim(0, c.vocab_size - 1));
    target[i] = static_cast<std::int32_t>(in.dim(0, c.vocab_size - 1));
  }
  const bool seq2seq = c.kind == attn::ModelKind::encoder_decoder;
  attn::Batch b{1, seq2seq ? source.data() : nullptr, seq2seq ? n : 0, input.data(), target.data(), n};
  attn::EvalResult r;
  FUZZ_CHECK(m.evaluate(b, &r) == attn::Status::ok, "evaluate refused a consistent batch of a loaded model");
  // attend: every self-attention map of the one stack (rows sum to 1 but a fully padded row's) and the logits.
  const bool encoder_only = c.kind == attn::ModelKind::encoder_only;
  const std::size_t layers = encoder_only ? c.encoder_layers : c.decoder_layers;
  std::vector<float> weights(layers * c.heads * n * n), logits(n * c.vocab_size);
  const attn::Status attended = m.attend(input.data(), n, weights.data(), logits.data());
  FUZZ_CHECK(attended == (seq2seq ? attn::Status::bad_argument : attn::Status::ok), "attend's status for the kind");
  // Weights beyond kWeightLimit (which the JS layer refuses at load) may overflow into NaN rows.
  const float* params = m.parameters();
  const bool bounded = std::all_of(params, params + m.parameter_count(),
                                   [](float x) { return std::fabs(x) <= attn::kWeightLimit; });
  if (!seq2seq && bounded)
    for (std::size_t row = 0; row < layers * c.heads * n; ++row) {
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) sum += weights[row * n + j];
      FUZZ_CHECK(std::fabs(sum - 1.0) < 1e-4 || sum == 0.0, "an attention row of attend does not sum to 1");
    }
  if (encoder_only) {
    std::int32_t one = 0;
    std::size_t got = 0;
    FUZZ_CHECK(m.generate(nullptr, 0, input.data(), 1, 0, 1, &one, &got, {}) == attn::Status::bad_argument,
               "generate took an encoder-only model");
    return;
  }
  const std::size_t max_new = in.dim(1, std::min<std::size_t>(c.max_length, 8));  // an image may declare 2^28
  std::vector<std::int32_t> out(max_new);
  std::vector<float> dec(c.decoder_layers * c.heads * max_new * max_new);
  std::size_t got = 0;
  attn::AttentionMaps maps{nullptr, dec.data(), nullptr};
  FUZZ_CHECK(m.generate(source.data(), n, input.data(), 1, 0, max_new, out.data(), &got, maps) == attn::Status::ok,
             "generate refused a consistent call of a loaded model");
  FUZZ_CHECK(got >= 1 && got <= max_new, "generate's length");
  for (std::size_t i = 0; i < got; ++i)
    FUZZ_CHECK(out[i] >= 0 && static_cast<std::size_t>(out[i]) < c.vocab_size, "a generated id outside the vocabulary");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 5;
  fuzz::Decoder in(data + 1, size - 1);
  std::vector<std::uint8_t> bytes;
  if (mode < 2) {
    bytes.assign(data + 1, data + size);
    if (mode == 1) fix_hash(bytes);
  } else {
    const auto made = static_cast<attn::SavePrecision>(mode - 2);  // 2 float32, 3 float16, 4 int8
    bytes = small_model_image(in, made);
    if (bytes.empty()) return 0;
    const std::size_t changes = in.dim(0, 4);
    for (std::size_t k = 0; k < changes && !bytes.empty(); ++k) bytes[in.dim(0, bytes.size() - 1)] ^= in.byte();
    const int resize = in.in_range<int>(0, 7);
    if (resize == 1) bytes.resize(in.dim(0, bytes.size()));
    if (resize == 2) bytes.resize(bytes.size() + in.dim(1, 16), in.byte());
    if (in.flag()) fix_hash(bytes);
  }
  attn::Status s = attn::Status::ok;
  // An exactly-sized copy (an empty vector may have no data: pass a null pointer then).
  std::unique_ptr<attn::TransformerModel> m(
      attn::TransformerModel::load(bytes.empty() ? nullptr : bytes.data(), bytes.size(), &s));
  fuzz::report({}, "mode=%d size=%zu status=%d", mode, bytes.size(), static_cast<int>(s));
  FUZZ_CHECK(s == attn::Status::ok || s == attn::Status::bad_argument, "load gave a status other than ok/bad_argument");
  FUZZ_CHECK((m != nullptr) == (s == attn::Status::ok), "a model without ok, or ok without a model");
  if (!m) return 0;
  const auto precision = static_cast<attn::SavePrecision>(bytes[100]);  // a loaded image's is a known one
  const int version = m->config().kind == attn::ModelKind::encoder_only ? 3
                      : precision == attn::SavePrecision::float32 ? 1
                                                                  : 2;
  FUZZ_CHECK(attn::is_save_precision(precision) && bytes[4] == version,
             "a loaded image's version disagrees with its kind and precision");
  FUZZ_CHECK(bytes.size() == m->saved_bytes(precision), "the byte count is not the parameter count's");
  if (precision == attn::SavePrecision::float32)
    FUZZ_CHECK(bytes.size() == attn::image_bytes(m->parameter_count()), "a float32 image's size");
  for (std::size_t i = 0; i < m->parameter_count(); ++i)
    FUZZ_CHECK(std::isfinite(m->parameters()[i]), "a loaded parameter is not finite");
  if (precision != attn::SavePrecision::float32) check_dequantized(*m, bytes, precision);
  std::vector<std::uint8_t> again(m->saved_bytes(precision));
  FUZZ_CHECK(m->save(again.data(), again.size(), precision) == attn::Status::ok, "a loaded model did not save again");
  if (precision != attn::SavePrecision::int8)
    FUZZ_CHECK(again == bytes, "saving a loaded image again gave other bytes");
  attn::Status s2 = attn::Status::ok;
  std::unique_ptr<attn::TransformerModel> reloaded(attn::TransformerModel::load(again.data(), again.size(), &s2));
  FUZZ_CHECK(s2 == attn::Status::ok && reloaded, "an image saved from a loaded model did not load");
  exercise(*m, in);
  return 0;
}
