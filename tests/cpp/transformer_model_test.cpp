// The trainable Transformer (src/train/transformer_model.h) as a whole: the
// gradients of its loss against float64 central finite differences for every
// kind, norm placement and cross-attention scoring; a tiny model memorising a
// batch; bit-identical runs from one seed; save → load; hostile images and
// tokens refused; a diverging step leaving the weights alone; greedy decoding
// and its attention maps; the encoder-only kind (masked prediction) and attend:
// its maps against a float64 reference, which rows see which tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "reference.h"
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
  c.encoder_layers = kind == ModelKind::decoder_only ? 0 : 1;
  c.decoder_layers = kind == ModelKind::encoder_only ? 0 : 1;
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

constexpr std::int32_t kMask = 6;  // the mask token of the encoder-only batches (vocabulary 7)

// Two sequences, lengths 3–5, with padding in the source, input and target. Encoder-only: masked
// prediction (the target the original id at masked or replaced positions, pad elsewhere).
OwnedBatch small_batch(ModelKind kind) {
  if (kind == ModelKind::encoder_only)
    return owned(2, {}, 0, {3, kMask, 5, 4, /**/ kMask, 5, 3, kPad}, {kPad, 4, kPad, 3, /**/ 4, kPad, kPad, kPad}, 4);
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
                attn::PositionKind::sinusoidal, attn::Activation::gelu},
        Variant{"EncoderOnlyPost", ModelKind::encoder_only, attn::NormPlacement::post, attn::CrossScoring::dot, true,
                attn::PositionKind::learned, attn::Activation::gelu},
        Variant{"EncoderOnlyPre", ModelKind::encoder_only, attn::NormPlacement::pre, attn::CrossScoring::dot, true,
                attn::PositionKind::sinusoidal, attn::Activation::relu}),
    variant_name);

// ---- training

ModelConfig memoriser(ModelKind kind) {
  ModelConfig c;
  c.kind = kind;
  c.vocab_size = 10;
  c.max_length = 8;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.encoder_layers = kind == ModelKind::decoder_only ? 0 : 1;
  c.decoder_layers = kind == ModelKind::encoder_only ? 0 : 1;
  c.seed = 11;
  return c;
}

// Four pairs: reverse the source (padded with 0); the decoder reads BOS + target.
OwnedBatch reverse_batch() {
  return owned(4, {3, 4, 5, 6, 7, /**/ 8, 9, 3, kPad, kPad, /**/ 5, 5, 6, 9, kPad, /**/ 7, 3, kPad, kPad, kPad}, 5,
               {kBos, 7, 6, 5, 4, 3, /**/ kBos, 3, 9, 8, kPad, kPad, /**/ kBos, 9, 6, 5, 5, kPad,
                /**/ kBos, 3, 7, kPad, kPad, kPad},
               {7, 6, 5, 4, 3, kEos, /**/ 3, 9, 8, kEos, kPad, kPad, /**/ 9, 6, 5, 5, kEos, kPad,
                /**/ 3, 7, kEos, kPad, kPad, kPad},
               6);
}

attn::TrainSettings settings(float learning_rate) {
  attn::TrainSettings t;
  t.adam.learning_rate = learning_rate;
  t.clip_norm = 1.0;
  return t;
}

std::vector<double> train(TransformerModel& m, const Batch& b, int steps, float learning_rate) {
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    attn::StepResult r;
    EXPECT_EQ(m.train_step(b, settings(learning_rate), &r), Status::ok);
    EXPECT_FALSE(r.diverged) << "step " << i;
    EXPECT_EQ(r.step, i + 1);
    losses.push_back(r.loss);
  }
  return losses;
}

TEST(TransformerModel, Seq2seqMemorisesAFixedBatchAndDecodesIt) {
  for (auto scoring : {attn::CrossScoring::dot, attn::CrossScoring::additive}) {
    ModelConfig c = memoriser(ModelKind::encoder_decoder);
    c.cross_scoring = scoring;
    auto m = make(c);
    const OwnedBatch ob = reverse_batch();
    const std::vector<double> losses = train(*m, ob.batch, 300, 1e-2f);
    EXPECT_GT(losses.front(), 1.0);
    attn::EvalResult r;
    ASSERT_EQ(m->evaluate(ob.batch, &r), Status::ok);
    EXPECT_LT(r.loss, 0.01);
    EXPECT_EQ(r.accuracy, 1.0);
    EXPECT_EQ(r.exact_match, 1.0);
    EXPECT_EQ(r.counted, 6u + 4u + 5u + 3u);
    for (std::size_t b = 0; b < 4; ++b) {
      std::int32_t out[6];
      std::size_t n = 0;
      ASSERT_EQ(m->generate(ob.source.data() + b * 5, 5, &kBos, 1, kEos, 6, out, &n, {}), Status::ok);
      std::vector<std::int32_t> want;
      for (std::size_t t = 0; t < 6 && ob.target[b * 6 + t] != kPad; ++t) want.push_back(ob.target[b * 6 + t]);
      EXPECT_EQ(std::vector<std::int32_t>(out, out + n), want) << "sequence " << b;
    }
  }
}

TEST(TransformerModel, DecoderOnlyMemorisesAFixedBatch) {
  auto m = make(memoriser(ModelKind::decoder_only));
  // Next-token prediction, counting only the second half (a copy of the first).
  const OwnedBatch ob = owned(2, {}, 0, {kBos, 4, 7, 5, 4, 7, 5, /**/ kBos, 9, 3, 8, 9, 3, 8},
                              {kPad, kPad, kPad, 4, 7, 5, kEos, /**/ kPad, kPad, kPad, 9, 3, 8, kEos}, 7);
  train(*m, ob.batch, 200, 1e-2f);
  attn::EvalResult r;
  ASSERT_EQ(m->evaluate(ob.batch, &r), Status::ok);
  EXPECT_LT(r.loss, 0.01);
  EXPECT_EQ(r.exact_match, 1.0);
  std::int32_t out[4];
  std::size_t n = 0;
  const std::int32_t prompt[] = {kBos, 9, 3, 8};
  ASSERT_EQ(m->generate(nullptr, 0, prompt, 4, kEos, 4, out, &n, {}), Status::ok);
  EXPECT_EQ(std::vector<std::int32_t>(out, out + n), (std::vector<std::int32_t>{9, 3, 8, kEos}));
}

TEST(TransformerModel, TheSameSeedGivesABitIdenticalLossCurve) {
  ModelConfig c = memoriser(ModelKind::encoder_decoder);
  c.norm = attn::NormPlacement::pre;
  auto a = make(c), b = make(c);
  const OwnedBatch ob = reverse_batch();
  const std::vector<double> la = train(*a, ob.batch, 25, 3e-3f), lb = train(*b, ob.batch, 25, 3e-3f);
  ASSERT_EQ(la.size(), lb.size());
  for (std::size_t i = 0; i < la.size(); ++i) EXPECT_EQ(std::memcmp(&la[i], &lb[i], sizeof(double)), 0) << i;
  EXPECT_EQ(std::memcmp(a->parameters(), b->parameters(), a->parameter_count() * sizeof(float)), 0);
  c.seed = 12;
  auto other = make(c);
  EXPECT_NE(std::memcmp(a->parameters(), other->parameters(), 64), 0);
}

TEST(TransformerModel, PaddingKeysAreMasked) {
  // Longer padding after the same tokens changes nothing but the rounding.
  auto m = make(tiny(ModelKind::encoder_decoder));
  const OwnedBatch short_b = owned(1, {3, 4, 5}, 3, {kBos, 3, 4}, {3, 4, kEos}, 3);
  const OwnedBatch long_b = owned(1, {3, 4, 5, kPad, kPad, kPad}, 6, {kBos, 3, 4, kPad, kPad},
                                  {3, 4, kEos, kPad, kPad}, 5);
  EXPECT_NEAR(loss_of(*m, short_b.batch), loss_of(*m, long_b.batch), 1e-6);
  // A padding key in the middle of the source is masked too: its embedding gets no gradient.
  const OwnedBatch mid = owned(1, {3, kPad, 5}, 3, {kBos, 3, 4}, {3, 4, kEos}, 3);
  double loss = 0;
  ASSERT_EQ(m->compute_gradients(mid.batch, &loss), Status::ok);
  const attn::ParameterInfo& table = m->tensors()[0];
  ASSERT_EQ(table.name, "encoder.embedding");
  for (std::size_t j = 0; j < table.cols; ++j) EXPECT_EQ(m->gradients()[table.offset + kPad * table.cols + j], 0.0f);
  EXPECT_NE(m->gradients()[table.offset + 3 * table.cols], 0.0f);
}

TEST(TransformerModel, ADivergingStepLeavesTheWeightsAsTheyWere) {
  auto m = make(tiny(ModelKind::encoder_decoder));
  const OwnedBatch ob = small_batch(ModelKind::encoder_decoder);
  const std::size_t n = m->parameter_count();
  // An enormous rate: an update or two, then a loss or gradient that is not finite.
  bool diverged = false;
  for (int i = 0; i < 10 && !diverged; ++i) {
    const std::vector<float> before(m->parameters(), m->parameters() + n);
    const std::int64_t step = m->steps();
    attn::StepResult r;
    ASSERT_EQ(m->train_step(ob.batch, settings(1e30f), &r), Status::ok);
    diverged = r.diverged;
    if (diverged) {
      EXPECT_EQ(std::memcmp(before.data(), m->parameters(), n * sizeof(float)), 0);
      EXPECT_EQ(r.step, step);
      EXPECT_EQ(m->steps(), step);
    }
  }
  EXPECT_TRUE(diverged);
  // An update that itself overflows (lr · weight decay is infinite in float32): undone.
  {
    auto m2 = make(tiny(ModelKind::encoder_decoder));
    const std::vector<float> before(m2->parameters(), m2->parameters() + n);
    attn::TrainSettings t = settings(1e30f);
    t.adam.weight_decay = 1e10f;
    attn::StepResult r;
    ASSERT_EQ(m2->train_step(ob.batch, t, &r), Status::ok);
    EXPECT_TRUE(std::isfinite(r.loss) && std::isfinite(r.gradient_norm));
    EXPECT_TRUE(r.diverged);
    EXPECT_EQ(m2->steps(), 0);
    EXPECT_EQ(std::memcmp(before.data(), m2->parameters(), n * sizeof(float)), 0);
    ASSERT_EQ(m2->train_step(ob.batch, settings(1e-3f), &r), Status::ok);  // and it trains on afterwards
    EXPECT_FALSE(r.diverged);
    EXPECT_EQ(r.step, 1);
  }
  // A rate that takes the weights to 1e20 in one step, without clipping: every value stays finite,
  // but beyond kWeightLimit; the step is undone (weights and moments), and normal steps go on.
  {
    auto m3 = make(tiny(ModelKind::encoder_decoder));
    const std::vector<float> before(m3->parameters(), m3->parameters() + n);
    attn::TrainSettings t = settings(1e20f);
    t.clip_norm = 0;
    attn::StepResult r;
    ASSERT_EQ(m3->train_step(ob.batch, t, &r), Status::ok);
    EXPECT_TRUE(std::isfinite(r.loss) && std::isfinite(r.gradient_norm));
    EXPECT_TRUE(r.diverged);
    EXPECT_EQ(m3->steps(), 0);
    EXPECT_EQ(std::memcmp(before.data(), m3->parameters(), n * sizeof(float)), 0);
    // The same step as on a model that never saw the refused one: its moments were restored too.
    auto twin = make(tiny(ModelKind::encoder_decoder));
    attn::StepResult a, b;
    ASSERT_EQ(m3->train_step(ob.batch, settings(1e-3f), &a), Status::ok);
    ASSERT_EQ(twin->train_step(ob.batch, settings(1e-3f), &b), Status::ok);
    EXPECT_FALSE(a.diverged);
    EXPECT_EQ(std::memcmp(twin->parameters(), m3->parameters(), n * sizeof(float)), 0);
  }
  // A weight that is already infinite: the loss is not finite, nothing moves.
  auto fresh = make(tiny(ModelKind::encoder_decoder));
  fresh->parameters()[fresh->tensors().back().offset] = INFINITY;
  const std::vector<float> before(fresh->parameters(), fresh->parameters() + n);
  attn::StepResult r;
  ASSERT_EQ(fresh->train_step(ob.batch, settings(1e-3f), &r), Status::ok);
  EXPECT_TRUE(r.diverged);
  EXPECT_EQ(r.step, 0);
  EXPECT_EQ(std::memcmp(before.data(), fresh->parameters(), n * sizeof(float)), 0);
}

// ---- checks

TEST(TransformerModel, RefusesBadConfigs) {
  const ModelConfig good = tiny(ModelKind::encoder_decoder);
  EXPECT_EQ(attn::check_config(good), Status::ok);
  auto refused = [&](auto change) {
    ModelConfig c = good;
    change(c);
    Status s = Status::ok;
    EXPECT_EQ(TransformerModel::create(c, &s), nullptr);
    return s;
  };
  EXPECT_EQ(refused([](ModelConfig& c) { c.vocab_size = 0; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.max_length = 0; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.d_model = 6; c.heads = 4; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.encoder_layers = 0; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.decoder_layers = 0; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.pad_id = 7; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.pad_id = -1; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.norm = static_cast<attn::NormPlacement>(2); }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.kind = ModelKind::decoder_only; }), Status::bad_argument);
  // An encoder-only model has encoder layers and no decoder layers.
  EXPECT_EQ(refused([](ModelConfig& c) { c.kind = ModelKind::encoder_only; }), Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.kind = ModelKind::encoder_only; c.encoder_layers = 0; c.decoder_layers = 0; }),
            Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.kind = ModelKind::encoder_only; c.encoder_layers = 257; c.decoder_layers = 0; }),
            Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.kind = static_cast<ModelKind>(3); }), Status::bad_argument);
  EXPECT_EQ(attn::check_config(tiny(ModelKind::encoder_only)), Status::ok);
  // 2^28 parameters is the limit: vocab 2^20 × d_model 256 in the embeddings alone is over it.
  EXPECT_EQ(refused([](ModelConfig& c) { c.vocab_size = std::size_t{1} << 20; c.d_model = 256; }),
            Status::bad_argument);
  EXPECT_EQ(refused([](ModelConfig& c) { c.d_model = SIZE_MAX / 2; c.heads = 1; }), Status::bad_argument);
}

TEST(TransformerModel, NamesEveryTensorOnceAndInitialisesThem) {
  for (auto kind : {ModelKind::encoder_decoder, ModelKind::decoder_only, ModelKind::encoder_only}) {
    ModelConfig c = tiny(kind);
    c.cross_scoring = attn::CrossScoring::additive;
    c.norm = attn::NormPlacement::pre;
    c.positions = attn::PositionKind::learned;
    auto m = make(c);
    std::size_t next = 0;
    std::vector<std::string> names;
    for (const attn::ParameterInfo& t : m->tensors()) {
      EXPECT_EQ(t.offset, next) << t.name;
      next += t.rows * t.cols;
      names.push_back(t.name);
      const float* w = m->parameters() + t.offset;
      const bool gamma = t.name.ends_with(".gamma"), zero = t.name.ends_with(".beta") || t.name.ends_with(".b") ||
                                                           t.name.ends_with(".b1") || t.name.ends_with(".b2");
      for (std::size_t i = 0; i < t.rows * t.cols; ++i) {
        if (gamma) { EXPECT_EQ(w[i], 1.0f) << t.name; }
        if (zero) { EXPECT_EQ(w[i], 0.0f) << t.name; }
        const double bound = std::sqrt(6.0 / static_cast<double>(t.cols + 1));  // Xavier's largest
        if (!gamma && !zero) { EXPECT_LE(std::fabs(w[i]), bound) << t.name; }
      }
    }
    EXPECT_EQ(next, m->parameter_count());
    EXPECT_EQ(static_cast<double>(next), attn::parameter_count_estimate(c));
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
    const bool seq2seq = kind == ModelKind::encoder_decoder;
    EXPECT_EQ(std::count(names.begin(), names.end(), "decoder.0.cross.score_v"), seq2seq ? 1 : 0);
    const bool encoder_only = kind == ModelKind::encoder_only;
    EXPECT_EQ(std::count(names.begin(), names.end(), "decoder.final_norm.gamma"), encoder_only ? 0 : 1);
    EXPECT_EQ(std::count(names.begin(), names.end(), "encoder.final_norm.gamma"), encoder_only || seq2seq ? 1 : 0);
    if (encoder_only)
      for (const std::string& name : names) EXPECT_FALSE(name.starts_with("decoder.")) << name;
    EXPECT_EQ(names.back(), "output.b");
  }
}

TEST(TransformerModel, RefusesTokensOutsideTheVocabularyAndBadLengths) {
  auto m = make(tiny(ModelKind::encoder_decoder));
  attn::EvalResult r;
  attn::StepResult sr;
  double loss = 0;
  for (int where = 0; where < 3; ++where)
    for (std::int32_t bad : {7, -1, 1 << 30}) {
      OwnedBatch ob = small_batch(ModelKind::encoder_decoder);
      (where == 0 ? ob.source : where == 1 ? ob.input : ob.target)[3] = bad;
      EXPECT_EQ(m->evaluate(ob.batch, &r), Status::bad_argument);
      EXPECT_EQ(m->compute_gradients(ob.batch, &loss), Status::bad_argument);
      EXPECT_EQ(m->train_step(ob.batch, settings(1e-3f), &sr), Status::bad_argument);
    }
  EXPECT_EQ(m->steps(), 0);
  OwnedBatch ob = small_batch(ModelKind::encoder_decoder);
  Batch b = ob.batch;
  b.source = nullptr;
  EXPECT_EQ(m->evaluate(b, &r), Status::shape_mismatch);
  b = ob.batch;
  b.length = 7;  // above max_length 6
  EXPECT_EQ(m->evaluate(b, &r), Status::bad_argument);
  b = ob.batch;
  b.size = 0;
  EXPECT_EQ(m->evaluate(b, &r), Status::bad_argument);
  {
    // A batch whose saved attention weights alone (heads × length²) would pass the workspace limit.
    ModelConfig wide = tiny(ModelKind::decoder_only);
    wide.max_length = 8192;
    auto big = make(wide);
    const std::vector<std::int32_t> ids(8192, 3);
    const Batch huge{1, nullptr, 0, ids.data(), ids.data(), 8192};
    EXPECT_EQ(big->evaluate(huge, &r), Status::bad_argument);
    std::int32_t one = 0;
    std::size_t got = 0;
    EXPECT_EQ(big->generate(nullptr, 0, ids.data(), 8000, kEos, 1, &one, &got, {}), Status::bad_argument);
    const Batch fits{1, nullptr, 0, ids.data(), ids.data(), 512};
    EXPECT_EQ(big->evaluate(fits, &r), Status::ok);
  }
  attn::TrainSettings nan_rate = settings(NAN);
  EXPECT_EQ(m->train_step(ob.batch, nan_rate, &sr), Status::bad_argument);
  std::int32_t out[6];
  std::size_t n = 0;
  const std::int32_t bad_source[] = {3, 9};
  EXPECT_EQ(m->generate(bad_source, 2, &kBos, 1, kEos, 4, out, &n, {}), Status::bad_argument);
  EXPECT_EQ(m->generate(nullptr, 0, &kBos, 1, kEos, 4, out, &n, {}), Status::shape_mismatch);
  EXPECT_EQ(m->generate(ob.source.data(), 5, &kBos, 1, kEos, 7, out, &n, {}), Status::bad_argument);
  const std::int32_t bad_prefix = 8;
  EXPECT_EQ(m->generate(ob.source.data(), 5, &bad_prefix, 1, kEos, 4, out, &n, {}), Status::bad_argument);
}

// ---- greedy decoding

TEST(TransformerModel, GenerateFillsAttentionMapsThatAreRowsOfWeights) {
  ModelConfig c = tiny(ModelKind::encoder_decoder);
  c.max_length = 8;
  auto m = make(c);
  const std::int32_t source[] = {3, 4, kPad, 5, kPad};  // padding in the middle and at the end
  const std::size_t S = 5, max_new = 6, T = max_new, H = c.heads;
  std::vector<float> enc(H * S * S, -1.0f), dec(H * T * T, -1.0f), cross(H * T * S, -1.0f);
  std::int32_t out[max_new];
  std::size_t n = 0;
  ASSERT_EQ(m->generate(source, S, &kBos, 1, -1 /* never stops early */, max_new, out, &n,
                        {enc.data(), dec.data(), cross.data()}),
            Status::ok);
  EXPECT_EQ(n, max_new);
  const std::size_t rows = n;  // BOS + the first n − 1 generated tokens
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < T; ++i) {
      double dec_sum = 0, cross_sum = 0;
      for (std::size_t j = 0; j < T; ++j) {
        const float w = dec[(h * T + i) * T + j];
        if (j > i || i >= rows) { EXPECT_EQ(w, 0.0f) << "decoder " << h << " " << i << " " << j; }
        dec_sum += w;
      }
      for (std::size_t j = 0; j < S; ++j) {
        const float w = cross[(h * T + i) * S + j];
        if (source[j] == kPad) { EXPECT_EQ(w, 0.0f); }
        cross_sum += w;
      }
      EXPECT_NEAR(dec_sum, i < rows ? 1.0 : 0.0, 1e-5);
      EXPECT_NEAR(cross_sum, i < rows ? 1.0 : 0.0, 1e-5);
      if (i >= S) continue;
      double enc_sum = 0;
      for (std::size_t j = 0; j < S; ++j) {
        const float w = enc[(h * S + i) * S + j];
        if (source[j] == kPad) { EXPECT_EQ(w, 0.0f); }
        enc_sum += w;
      }
      EXPECT_NEAR(enc_sum, 1.0, 1e-5);
    }
  // Greedy decoding is the argmax of the teacher-forced pass over its own output
  // (the encoder, run once by generate, gives the same rows as a full pass).
  std::vector<std::int32_t> read = {kBos};
  read.insert(read.end(), out, out + n - 1);
  const OwnedBatch forced = owned(1, std::vector<std::int32_t>(source, source + S), S, read,
                                  std::vector<std::int32_t>(out, out + n), n);
  attn::EvalResult r;
  ASSERT_EQ(m->evaluate(forced.batch, &r), Status::ok);
  EXPECT_EQ(r.accuracy, 1.0);
  EXPECT_EQ(r.exact_match, 1.0);
  // The same decode without maps gives the same tokens; stopping at eos shortens it.
  std::int32_t again[max_new];
  std::size_t n2 = 0;
  ASSERT_EQ(m->generate(source, S, &kBos, 1, -1, max_new, again, &n2, {}), Status::ok);
  EXPECT_EQ(std::vector<std::int32_t>(out, out + n), std::vector<std::int32_t>(again, again + n2));
  ASSERT_EQ(m->generate(source, S, &kBos, 1, out[1], max_new, again, &n2, {}), Status::ok);
  EXPECT_LE(n2, 2u);
  EXPECT_EQ(again[n2 - 1], out[1]);
}

// ---- the encoder-only kind and attend

// attend's outputs of a model over ids: maps (layers × heads × n × n) and logits (n × vocab).
struct Attended {
  std::vector<float> maps, logits;
};

Attended attended(TransformerModel& m, const std::vector<std::int32_t>& ids) {
  const ModelConfig& c = m.config();
  const std::size_t n = ids.size();
  const std::size_t layers = c.kind == ModelKind::encoder_only ? c.encoder_layers : c.decoder_layers;
  Attended a{std::vector<float>(layers * c.heads * n * n, -1.0f), std::vector<float>(n * c.vocab_size, -1.0f)};
  EXPECT_EQ(m.attend(ids.data(), n, a.maps.data(), a.logits.data()), Status::ok);
  return a;
}

// Layer 0's self-attention weights against float64 attention over the model's own embeddings:
// X = √d · E[id] + P[i] (learned positions), heads side by side in W_Q and W_K, the decoder's mask
// causal and the encoder's over every non-padding key.
TEST(TransformerModel, AttendGivesLayerZerosWeightsAsAFloat64Reference) {
  for (auto kind : {ModelKind::decoder_only, ModelKind::encoder_only}) {
    ModelConfig c = tiny(kind);
    c.positions = attn::PositionKind::learned;
    c.encoder_layers = kind == ModelKind::encoder_only ? 2 : 0;
    c.decoder_layers = kind == ModelKind::decoder_only ? 2 : 0;
    auto m = make(c);
    const std::vector<std::int32_t> ids = {kBos, 3, kPad, 5, 4};  // a padding key in the middle
    const Attended a = attended(*m, ids);
    const std::string stack = kind == ModelKind::encoder_only ? "encoder" : "decoder";
    auto tensor = [&](const std::string& name) {
      for (const attn::ParameterInfo& t : m->tensors())
        if (t.name == name) {
          ref::MatD out(t.rows, t.cols);
          for (std::size_t i = 0; i < t.rows * t.cols; ++i) out.data[i] = m->parameters()[t.offset + i];
          return out;
        }
      ADD_FAILURE() << "no tensor " << name;
      return ref::MatD();
    };
    const ref::MatD table = tensor(stack + ".embedding"), positions = tensor(stack + ".positions");
    const std::size_t n = ids.size(), d = c.d_model;
    ref::MatD x(n, d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j)
        x.at(i, j) = std::sqrt(static_cast<double>(d)) * table.at(static_cast<std::size_t>(ids[i]), j) + positions.at(i, j);
    ref::Visibility vis(n, std::vector<bool>(n));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) vis[i][j] = ids[j] != kPad && (kind == ModelKind::encoder_only || j <= i);
    const ref::MultiHead want = ref::multi_head_attention(x, c.heads, tensor(stack + ".0.attention.w_q"),
                                                          tensor(stack + ".0.attention.w_k"),
                                                          tensor(stack + ".0.attention.w_v"),
                                                          tensor(stack + ".0.attention.w_o"), vis);
    for (std::size_t h = 0; h < c.heads; ++h)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const double ref_w = want.heads[h].weights.at(i, j), got = a.maps[(h * n + i) * n + j];
          EXPECT_NEAR(got, ref_w, 1e-5 + 1e-4 * std::fabs(ref_w)) << stack << " head " << h << " row " << i << " col " << j;
        }
    // Every layer's rows sum to 1; masked keys (padding; later ones for the decoder) are exactly 0.
    for (std::size_t l = 0; l < 2; ++l)
      for (std::size_t h = 0; h < c.heads; ++h)
        for (std::size_t i = 0; i < n; ++i) {
          double sum = 0;
          for (std::size_t j = 0; j < n; ++j) {
            const float w = a.maps[((l * c.heads + h) * n + i) * n + j];
            if (!vis[i][j]) { EXPECT_EQ(w, 0.0f) << stack << " " << l << " " << h << " " << i << " " << j; }
            sum += w;
          }
          EXPECT_NEAR(sum, 1.0, 1e-5);
        }
  }
}

// attend's inputs are each layer's self-attention input: float64 attention over them with the
// layer's W_Q, W_K gives that layer's maps, for both kinds and both norm placements; with post-norm
// layer 0's input is the embedded ids.
TEST(TransformerModel, AttendsInputsReproduceEveryLayersMaps) {
  for (auto kind : {ModelKind::decoder_only, ModelKind::encoder_only})
    for (auto norm : {attn::NormPlacement::post, attn::NormPlacement::pre}) {
      ModelConfig c = tiny(kind);
      c.norm = norm;
      c.encoder_layers = kind == ModelKind::encoder_only ? 3 : 0;
      c.decoder_layers = kind == ModelKind::decoder_only ? 3 : 0;
      auto m = make(c);
      const std::vector<std::int32_t> ids = {kBos, 3, 5, 4, 6};
      const std::size_t n = ids.size(), d = c.d_model, L = 3;
      const Attended a = attended(*m, ids);
      std::vector<float> inputs(L * n * d, -1.0f);
      ASSERT_EQ(m->attend(ids.data(), n, nullptr, nullptr, inputs.data()), Status::ok);
      const std::string stack = kind == ModelKind::encoder_only ? "encoder" : "decoder";
      auto tensor = [&](const std::string& name) {
        for (const attn::ParameterInfo& t : m->tensors())
          if (t.name == name) {
            ref::MatD out(t.rows, t.cols);
            for (std::size_t i = 0; i < t.rows * t.cols; ++i) out.data[i] = m->parameters()[t.offset + i];
            return out;
          }
        ADD_FAILURE() << "no tensor " << name;
        return ref::MatD();
      };
      ref::Visibility vis(n, std::vector<bool>(n));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) vis[i][j] = kind == ModelKind::encoder_only || j <= i;
      for (std::size_t l = 0; l < L; ++l) {
        ref::MatD x(n, d);
        for (std::size_t k = 0; k < n * d; ++k) x.data[k] = inputs[l * n * d + k];
        const std::string at = stack + "." + std::to_string(l) + ".attention.";
        const ref::MultiHead want = ref::multi_head_attention(x, c.heads, tensor(at + "w_q"), tensor(at + "w_k"),
                                                              tensor(at + "w_v"), tensor(at + "w_o"), vis);
        for (std::size_t h = 0; h < c.heads; ++h)
          for (std::size_t k = 0; k < n * n; ++k) {
            const double w = want.heads[h].weights.data[k];
            EXPECT_NEAR(a.maps[(l * c.heads + h) * n * n + k], w, 1e-5 + 1e-4 * std::fabs(w))
                << stack << " layer " << l << " head " << h << " entry " << k;
          }
      }
      if (norm == attn::NormPlacement::post) {
        const ref::MatD table = tensor(stack + ".embedding");
        const double root = std::sqrt(static_cast<double>(d));
        // sinusoidal positions: row 0 is (0, 1, 0, 1, …); later rows differ from the bare embedding
        for (std::size_t j = 0; j < d; ++j)
          EXPECT_NEAR(inputs[j], root * table.at(static_cast<std::size_t>(ids[0]), j) + (j % 2), 1e-5) << j;
      }
    }
}

// Without logits, attend skips the output head: the maps and inputs are bit for bit those of a call
// with logits, and a later call with logits gives the first call's logits (the skipped head left no state).
TEST(TransformerModel, AttendWithoutLogitsGivesTheSameMapsAndInputs) {
  for (auto kind : {ModelKind::decoder_only, ModelKind::encoder_only}) {
    auto m = make(tiny(kind));
    const std::vector<std::int32_t> ids = {kBos, 3, 5, 4, 6}, other = {kBos, 4, 4};
    const std::size_t n = ids.size(), layers = 1;  // tiny: one layer
    const Attended full = attended(*m, ids);
    const std::size_t map_floats = full.maps.size(), input_floats = layers * n * m->config().d_model;
    std::vector<float> with_inputs(input_floats), maps(map_floats, -1.0f), inputs(input_floats, -1.0f);
    ASSERT_EQ(m->attend(ids.data(), n, nullptr, nullptr, with_inputs.data()), Status::ok);
    ASSERT_EQ(attended(*m, other).maps.size(), layers * m->config().heads * other.size() * other.size());
    ASSERT_EQ(m->attend(ids.data(), n, maps.data(), nullptr, inputs.data()), Status::ok);
    EXPECT_EQ(std::memcmp(maps.data(), full.maps.data(), map_floats * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(inputs.data(), with_inputs.data(), input_floats * sizeof(float)), 0);
    const Attended again = attended(*m, ids);
    EXPECT_EQ(std::memcmp(again.logits.data(), full.logits.data(), full.logits.size() * sizeof(float)), 0);
  }
}

// Changing a later token moves an encoder row's logits; a decoder row's stay bit for bit the same.
TEST(TransformerModel, AnEncoderRowSeesLaterTokensADecoderRowDoesNot) {
  for (auto kind : {ModelKind::decoder_only, ModelKind::encoder_only}) {
    auto m = make(tiny(kind));
    const std::vector<std::int32_t> ids = {3, 4, 5, 3, 4}, changed = {3, 4, 5, 6, 4};  // position 3 differs
    const Attended a = attended(*m, ids), b = attended(*m, changed);
    const std::size_t V = m->config().vocab_size, n = ids.size();
    for (std::size_t i = 0; i < 3; ++i) {
      const bool same = std::memcmp(a.logits.data() + i * V, b.logits.data() + i * V, V * sizeof(float)) == 0;
      EXPECT_EQ(same, kind == ModelKind::decoder_only) << "row " << i;
    }
    // The encoder's row 0 puts weight on every later key; the decoder's on none.
    for (std::size_t h = 0; h < m->config().heads; ++h)
      for (std::size_t j = 1; j < n; ++j) {
        const float w = a.maps[h * n * n + j];
        if (kind == ModelKind::encoder_only) { EXPECT_GT(w, 0.0f) << h << " " << j; }
        else { EXPECT_EQ(w, 0.0f) << h << " " << j; }
      }
  }
}

// For a decoder-only model, attend over the ids a decode read gives the maps generate returned,
// bit for bit, and its last row's argmax is the decode's last token.
TEST(TransformerModel, AttendGivesTheMapsGenerateReturns) {
  ModelConfig c = tiny(ModelKind::decoder_only);
  c.decoder_layers = 2;
  c.max_length = 8;
  auto m = make(c);
  const std::int32_t prefix[] = {kBos, 3, 4};
  const std::size_t max_new = 4, T = 3 + max_new - 1, H = c.heads, L = 2;
  std::vector<float> dec(L * H * T * T, -1.0f);
  std::int32_t out[max_new];
  std::size_t n = 0;
  ASSERT_EQ(m->generate(nullptr, 0, prefix, 3, -1, max_new, out, &n, {nullptr, dec.data(), nullptr}), Status::ok);
  ASSERT_EQ(n, max_new);
  std::vector<std::int32_t> read(prefix, prefix + 3);
  read.insert(read.end(), out, out + n - 1);
  ASSERT_EQ(read.size(), T);
  const Attended a = attended(*m, read);
  EXPECT_EQ(std::memcmp(a.maps.data(), dec.data(), dec.size() * sizeof(float)), 0);
  const float* last = a.logits.data() + (T - 1) * c.vocab_size;
  EXPECT_EQ(std::max_element(last, last + c.vocab_size) - last, out[n - 1]);
  // Either output may be left out.
  std::vector<float> logits(T * c.vocab_size);
  ASSERT_EQ(m->attend(read.data(), T, nullptr, logits.data()), Status::ok);
  EXPECT_EQ(logits, a.logits);
}

TEST(TransformerModel, AttendAndGenerateRefuseWhatTheyCannotDo) {
  std::vector<float> maps(2 * 8 * 8), logits(8 * 7);
  const std::vector<std::int32_t> ids = {3, 4, 5, 6, 3, 4, 5};  // 7 ids, above max_length 6
  auto seq2seq = make(tiny(ModelKind::encoder_decoder));
  EXPECT_EQ(seq2seq->attend(ids.data(), 3, maps.data(), logits.data()), Status::bad_argument);
  for (auto kind : {ModelKind::decoder_only, ModelKind::encoder_only}) {
    auto m = make(tiny(kind));
    EXPECT_EQ(m->attend(ids.data(), 0, maps.data(), logits.data()), Status::bad_argument);
    EXPECT_EQ(m->attend(ids.data(), 7, maps.data(), logits.data()), Status::bad_argument);
    EXPECT_EQ(m->attend(nullptr, 3, maps.data(), logits.data()), Status::bad_argument);
    for (std::int32_t bad : {7, -1}) {
      std::vector<std::int32_t> with_bad = {3, bad, 4};
      EXPECT_EQ(m->attend(with_bad.data(), 3, maps.data(), logits.data()), Status::bad_argument);
    }
    EXPECT_EQ(m->attend(ids.data(), 6, maps.data(), logits.data()), Status::ok);
  }
  // An encoder-only model fills in masked tokens; it does not continue text.
  auto mlm = make(tiny(ModelKind::encoder_only));
  std::int32_t out[2];
  std::size_t n = 0;
  EXPECT_EQ(mlm->generate(nullptr, 0, &kBos, 1, kEos, 2, out, &n, {}), Status::bad_argument);
}

// Masked prediction that only both directions solve: in each row the masked token equals the
// token two places after it (the token before it says nothing), so a causal model cannot learn it.
TEST(TransformerModel, EncoderOnlyLearnsAMaskedTokenFromTheRightWhereADecoderCannot) {
  double accuracy[2] = {0, 0};
  for (auto kind : {ModelKind::encoder_only, ModelKind::decoder_only}) {
    ModelConfig c = memoriser(kind);
    c.vocab_size = 13;
    c.max_length = 5;
    auto m = make(c);
    std::vector<std::int32_t> input, target;
    for (std::int32_t x = 3; x < 12; ++x)
      for (std::int32_t y : {4, 9}) {
        // [y, mask, x', x, y]: the masked position holds x, the same as position 3.
        const std::int32_t row_in[] = {y, 12, (x + 2) % 9 + 3, x, y}, row_target[] = {kPad, x, kPad, kPad, kPad};
        input.insert(input.end(), row_in, row_in + 5);
        target.insert(target.end(), row_target, row_target + 5);
      }
    const Batch b{input.size() / 5, nullptr, 0, input.data(), target.data(), 5};
    train(*m, b, 150, 1e-2f);
    attn::EvalResult r;
    ASSERT_EQ(m->evaluate(b, &r), Status::ok);
    accuracy[kind == ModelKind::encoder_only ? 0 : 1] = r.accuracy;
  }
  EXPECT_EQ(accuracy[0], 1.0);
  EXPECT_LE(accuracy[1], 0.5);
}

// ---- save and load

std::vector<std::uint8_t> saved(const TransformerModel& m) {
  std::vector<std::uint8_t> bytes(m.saved_bytes());
  EXPECT_EQ(m.save(bytes.data(), bytes.size()), Status::ok);
  return bytes;
}

TEST(TransformerModel, SaveThenLoadGivesIdenticalOutputsAndBytes) {
  ModelConfig c = tiny(ModelKind::encoder_decoder);
  c.cross_scoring = attn::CrossScoring::additive;
  c.positions = attn::PositionKind::learned;
  c.activation = attn::Activation::gelu;
  c.seed = 0xFEEDFACECAFEull;
  auto m = make(c);
  const OwnedBatch ob = small_batch(ModelKind::encoder_decoder);
  train(*m, ob.batch, 5, 1e-2f);
  const std::vector<std::uint8_t> bytes = saved(*m);
  EXPECT_EQ(bytes.size(), attn::kImageHeaderBytes + 4 * m->parameter_count() + 8);
  Status s = Status::bad_mask;
  std::unique_ptr<TransformerModel> back(TransformerModel::load(bytes.data(), bytes.size(), &s));
  ASSERT_EQ(s, Status::ok);
  EXPECT_EQ(back->steps(), 5);
  EXPECT_EQ(back->config().seed, c.seed);
  EXPECT_EQ(back->config().cross_scoring, c.cross_scoring);
  EXPECT_EQ(saved(*back), bytes);
  ASSERT_EQ(back->parameter_count(), m->parameter_count());
  EXPECT_EQ(std::memcmp(back->parameters(), m->parameters(), m->parameter_count() * sizeof(float)), 0);
  attn::EvalResult a, b;
  ASSERT_EQ(m->evaluate(ob.batch, &a), Status::ok);
  ASSERT_EQ(back->evaluate(ob.batch, &b), Status::ok);
  EXPECT_EQ(std::memcmp(&a.loss, &b.loss, sizeof(double)), 0);
  std::int32_t out_a[6], out_b[6];
  std::size_t na = 0, nb = 0;
  ASSERT_EQ(m->generate(ob.source.data(), 5, &kBos, 1, kEos, 6, out_a, &na, {}), Status::ok);
  ASSERT_EQ(back->generate(ob.source.data(), 5, &kBos, 1, kEos, 6, out_b, &nb, {}), Status::ok);
  EXPECT_EQ(std::vector<std::int32_t>(out_a, out_a + na), std::vector<std::int32_t>(out_b, out_b + nb));
  // Training goes on from a loaded model (fresh Adam moments).
  attn::StepResult r;
  ASSERT_EQ(back->train_step(ob.batch, settings(1e-2f), &r), Status::ok);
  EXPECT_FALSE(r.diverged);
  EXPECT_EQ(r.step, 6);
  EXPECT_EQ(m->save(nullptr, bytes.size()), Status::bad_argument);
  EXPECT_EQ(m->save(std::vector<std::uint8_t>(bytes.size() - 1).data(), bytes.size() - 1), Status::bad_argument);
}

void rehash(std::vector<std::uint8_t>& bytes) {
  const std::uint64_t h = attn::fnv1a(bytes.data(), bytes.size() - 8);
  for (std::size_t i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<std::uint8_t>(h >> (8 * i));
}

Status load_status(const std::vector<std::uint8_t>& bytes) {
  Status s = Status::ok;
  std::unique_ptr<TransformerModel> m(TransformerModel::load(bytes.data(), bytes.size(), &s));
  EXPECT_EQ(m == nullptr, s != Status::ok);
  return s;
}

TEST(TransformerModel, RefusesTruncatedCorruptAndHostileImages) {
  auto m = make(tiny(ModelKind::decoder_only));
  const std::vector<std::uint8_t> good = saved(*m);
  ASSERT_EQ(load_status(good), Status::ok);
  for (std::size_t size = 0; size < good.size(); size += (size < 130 ? 1 : 97))
    EXPECT_EQ(load_status(std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<long>(size))),
              Status::bad_argument)
        << "truncated to " << size;
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_EQ(load_status(longer), Status::bad_argument);
  for (std::size_t at = 0; at < good.size(); at += 13) {  // any flipped byte breaks the hash
    std::vector<std::uint8_t> bad = good;
    bad[at] ^= 0x40;
    EXPECT_EQ(load_status(bad), Status::bad_argument) << "byte " << at;
  }
  // With the hash made right again, each field is still checked.
  auto field = [&](std::size_t offset, std::uint64_t value, std::size_t width) {
    std::vector<std::uint8_t> bad = good;
    for (std::size_t i = 0; i < width; ++i) bad[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
    rehash(bad);
    return load_status(bad);
  };
  EXPECT_EQ(field(0, 'X', 1), Status::bad_argument);                      // magic
  EXPECT_EQ(field(4, 2, 4), Status::bad_argument);                        // version
  EXPECT_EQ(field(8, 7, 4), Status::bad_argument);                        // kind
  EXPECT_EQ(field(16, 2, 4), Status::bad_argument);                       // scaled is 0 or 1
  EXPECT_EQ(field(32, 0, 8), Status::bad_argument);                       // vocab 0
  EXPECT_EQ(field(32, 8, 8), Status::bad_argument);                       // vocab: count disagrees
  EXPECT_EQ(field(32, std::uint64_t{1} << 40, 8), Status::bad_argument);  // vocab huge
  EXPECT_EQ(field(56, 3, 8), Status::bad_argument);                       // heads do not divide d_model
  EXPECT_EQ(field(72, 1, 8), Status::bad_argument);                       // encoder layers in a decoder-only model
  EXPECT_EQ(field(96, 99, 4), Status::bad_argument);                      // pad id outside the vocabulary
  EXPECT_EQ(field(100, 1, 4), Status::bad_argument);                      // reserved
  EXPECT_EQ(field(104, std::uint64_t{1} << 63, 8), Status::bad_argument);  // negative step count
  EXPECT_EQ(field(112, std::uint64_t{1} << 28, 8), Status::bad_argument);  // a count the bytes do not hold
  EXPECT_EQ(field(120, 0x7FC00000u, 4), Status::bad_argument);            // a NaN parameter
  EXPECT_EQ(field(120, 0x7F800000u, 4), Status::bad_argument);            // an infinite one
  EXPECT_EQ(field(120, 0x3F800000u, 4), Status::ok);                      // a finite one is fine
  EXPECT_EQ(field(88, 12345, 8), Status::ok);                             // any seed
}

// A measurement, not a check (run it with --gtest_also_run_disabled_tests
// --gtest_filter='*DatesSized*'): training steps per second of a model the size
// of the dates task's (vocab 60, d_model 64, 4 heads, d_ff 128, 2 + 2 layers,
// source 30, target 11, batch 32), by wall clock and by this process's CPU time.
TEST(TransformerModel, DISABLED_DatesSizedStepsPerSecond) {
  for (auto scoring : {attn::CrossScoring::dot, attn::CrossScoring::additive}) {
    ModelConfig c;
    c.vocab_size = 60;
    c.max_length = 32;
    c.d_model = 64;
    c.heads = 4;
    c.d_ff = 128;
    c.encoder_layers = c.decoder_layers = 2;
    c.cross_scoring = scoring;
    auto m = make(c);
    const std::size_t B = 32, S = 30, T = 11;
    attn_test::Rng rng(5);
    std::vector<std::int32_t> source(B * S), input(B * T), target(B * T);
    for (std::size_t b = 0; b < B; ++b) {
      const std::size_t used = 10 + rng.below(21);
      for (std::size_t t = 0; t < S; ++t)
        source[b * S + t] = t < used ? static_cast<std::int32_t>(4 + rng.below(56)) : kPad;
      for (std::size_t t = 0; t < T; ++t) {
        target[b * T + t] = static_cast<std::int32_t>(4 + rng.below(56));
        input[b * T + t] = t == 0 ? kBos : target[b * T + t - 1];
      }
    }
    const Batch batch{B, source.data(), S, input.data(), target.data(), T};
    attn::StepResult r;
    auto run = [&](int count) {
      for (int i = 0; i < count; ++i) ASSERT_EQ(m->train_step(batch, settings(1e-3f), &r), Status::ok);
    };
    run(3);
    const int steps = 50;
    const std::clock_t cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    run(steps);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    std::printf("%s cross-attention, %zu parameters: %.1f steps/s wall, %.1f steps/s CPU time\n",
                scoring == attn::CrossScoring::dot ? "dot" : "additive", m->parameter_count(), steps / wall,
                steps / cpu);
  }
}

}  // namespace
