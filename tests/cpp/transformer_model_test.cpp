// The trainable Transformer (src/train/transformer_model.h) as a whole: the
// gradients of its loss against float64 central finite differences for every
// kind, norm placement and cross-attention scoring; a tiny model memorising a
// batch; bit-identical runs from one seed; save → load; hostile images and
// tokens refused; a diverging step leaving the weights alone; greedy decoding
// and its attention maps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "test_util.h"
#include "train/model_image.h"
#include "train/model_layout.h"
#include "train/transformer_model.h"

namespace {

using attn::Batch;
using attn::ModelConfig;
using attn::ModelKind;
using attn::Status;
using attn::TransformerModel;

constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2;

std::unique_ptr<TransformerModel> make(const ModelConfig& c) {
  Status s = Status::bad_mask;
  std::unique_ptr<TransformerModel> m(TransformerModel::create(c, &s));
  EXPECT_EQ(s, Status::ok);
  return m;
}

ModelConfig tiny(ModelKind kind) {
  ModelConfig c;
  c.kind = kind;
  c.vocab_size = 7;
  c.max_length = 6;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 16;
  c.encoder_layers = kind == ModelKind::encoder_decoder ? 1 : 0;
  c.decoder_layers = 1;
  c.seed = 3;
  return c;
}

// A batch that owns its ids.
struct OwnedBatch {
  std::vector<std::int32_t> source, input, target;
  Batch batch;
};

OwnedBatch owned(std::size_t size, std::vector<std::int32_t> source, std::size_t source_length,
                 std::vector<std::int32_t> input, std::vector<std::int32_t> target, std::size_t length) {
  OwnedBatch b{std::move(source), std::move(input), std::move(target), {}};
  b.batch.size = size;
  b.batch.source = b.source.empty() ? nullptr : b.source.data();
  b.batch.source_length = source_length;
  b.batch.input = b.input.data();
  b.batch.target = b.target.data();
  b.batch.length = length;
  return b;
}

// Two sequences, lengths 3–5, with padding in the source, input and target.
OwnedBatch small_batch(ModelKind kind) {
  std::vector<std::int32_t> source;
  if (kind == ModelKind::encoder_decoder) source = {3, 4, 5, 6, 3, /**/ 6, 5, 4, kPad, kPad};
  return owned(2, source, kind == ModelKind::encoder_decoder ? 5 : 0, {kBos, 3, 4, 5, /**/ kBos, 6, 3, kPad},
               {3, 4, 5, kEos, /**/ 6, 3, kEos, kPad}, 4);
}

double loss_of(TransformerModel& m, const Batch& b) {
  attn::EvalResult r;
  EXPECT_EQ(m.evaluate(b, &r), Status::ok);
  return r.loss;
}

struct Variant {
  const char* name;
  ModelKind kind;
  attn::NormPlacement norm;
  attn::CrossScoring scoring;
  bool scaled;
  attn::PositionKind positions;
  attn::Activation activation;
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

std::string variant_name(const testing::TestParamInfo<Variant>& info) { return info.param.name; }

class ModelGradients : public testing::TestWithParam<Variant> {};

// Central differences of the float32 forward's loss, taken in double with a
// step large enough that float32 rounding of the loss (~1e-7) stays small
// beside it. Each sampled entry's error is compared with max(|fd|, 1e-3).
TEST_P(ModelGradients, MatchFiniteDifferencesOfTheLoss) {
  const Variant v = GetParam();
  ModelConfig c = tiny(v.kind);
  c.norm = v.norm;
  c.cross_scoring = v.scoring;
  c.scaled = v.scaled;
  c.positions = v.positions;
  c.activation = v.activation;
  auto model = make(c);
  ASSERT_TRUE(model);
  const OwnedBatch ob = small_batch(v.kind);
  double loss = 0;
  ASSERT_EQ(model->compute_gradients(ob.batch, &loss), Status::ok);
  EXPECT_NEAR(loss, loss_of(*model, ob.batch), 1e-12);
  const std::vector<float> grads(model->gradients(), model->gradients() + model->parameter_count());
  float* p = model->parameters();
  attn_test::Rng rng(attn_test::seed_for(static_cast<std::size_t>(v.kind), static_cast<std::size_t>(v.norm),
                                         static_cast<std::size_t>(v.scoring)));
  const float h = 1e-2f;
  double worst = 0;
  std::string worst_at;
  for (const attn::ParameterInfo& t : model->tensors()) {
    const std::size_t n = t.rows * t.cols;
    for (int sample = 0; sample < 8; ++sample) {
      const std::size_t i = t.offset + rng.below(n);
      const float saved = p[i];
      // Richardson: (4·D(h/2) − D(h)) / 3 cancels the h² term of the central difference.
      auto central = [&](float step) {
        p[i] = saved + step;
        const double up = loss_of(*model, ob.batch);
        p[i] = saved - step;
        const double down = loss_of(*model, ob.batch);
        p[i] = saved;
        return (up - down) / (static_cast<double>(saved + step) - static_cast<double>(saved - step));
      };
      const double fd = (4 * central(h / 2) - central(h)) / 3;
      const double err = std::fabs(fd - grads[i]) / std::max(std::fabs(fd), 1e-3);
      if (err > worst) {
        worst = err;
        worst_at = t.name + "[" + std::to_string(i - t.offset) + "]: analytic " + std::to_string(grads[i]) +
                   ", fd " + std::to_string(fd);
      }
    }
  }
  EXPECT_LT(worst, 5e-2) << worst_at;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, ModelGradients,
    testing::Values(
        Variant{"Seq2seqPostDot", ModelKind::encoder_decoder, attn::NormPlacement::post, attn::CrossScoring::dot, true,
                attn::PositionKind::sinusoidal, attn::Activation::gelu},
        Variant{"Seq2seqPreDot", ModelKind::encoder_decoder, attn::NormPlacement::pre, attn::CrossScoring::dot, true,
                attn::PositionKind::learned, attn::Activation::gelu},
        Variant{"Seq2seqPostUnscaled", ModelKind::encoder_decoder, attn::NormPlacement::post, attn::CrossScoring::dot,
                false, attn::PositionKind::learned, attn::Activation::relu},
        Variant{"Seq2seqPostAdditive", ModelKind::encoder_decoder, attn::NormPlacement::post,
                attn::CrossScoring::additive, true, attn::PositionKind::sinusoidal, attn::Activation::gelu},
        Variant{"Seq2seqPreAdditive", ModelKind::encoder_decoder, attn::NormPlacement::pre,
                attn::CrossScoring::additive, true, attn::PositionKind::learned, attn::Activation::gelu},
        Variant{"DecoderOnlyPost", ModelKind::decoder_only, attn::NormPlacement::post, attn::CrossScoring::dot, true,
                attn::PositionKind::learned, attn::Activation::gelu},
        Variant{"DecoderOnlyPre", ModelKind::decoder_only, attn::NormPlacement::pre, attn::CrossScoring::dot, true,
                attn::PositionKind::sinusoidal, attn::Activation::gelu}),
    variant_name);

}  // namespace
