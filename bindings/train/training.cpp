// Raw calls of the training family (ops/training.js) over attn::TransformerModel
// (src/train/transformer_model.h). A model is allocated by the core and held by
// JS as a number, its address; every call below names it in its block. Create
// and load write their status into a result slot instead of returning it: a
// refused config or a hostile image is the caller's error, not a bug. So do the
// batch calls: the core refuses a batch whose activations would pass its
// workspace limit (model_state.h), which JS reports as out of memory.
#include <emscripten/bind.h>

#include <cstdint>
#include <cstring>

#include "raw.h"
#include "train/transformer_model.h"

namespace attn_bindings {
namespace {

attn::TransformerModel* model_at(addr p) { return reinterpret_cast<attn::TransformerModel*>(p); }
std::int32_t* i32(addr p) { return reinterpret_cast<std::int32_t*>(p); }
const std::int32_t* ci32(addr p) { return reinterpret_cast<const std::int32_t*>(p); }
double* f64(addr p) { return reinterpret_cast<double*>(p); }

void report(addr handle, addr status_slot, attn::TransformerModel* model, attn::Status s) {
  *reinterpret_cast<addr*>(handle) = reinterpret_cast<addr>(model);
  *i32(status_slot) = static_cast<std::int32_t>(s);
}

int model_create(addr p) {
  const auto& a = block<ModelCreateArgs>(p);
  attn::ModelConfig c;
  c.kind = static_cast<attn::ModelKind>(a.kind);
  c.vocab_size = a.vocabSize;
  c.max_length = a.maxLength;
  c.d_model = a.dModel;
  c.heads = a.heads;
  c.d_ff = a.dFF;
  c.encoder_layers = a.encoderLayers;
  c.decoder_layers = a.decoderLayers;
  c.cross_scoring = static_cast<attn::CrossScoring>(a.crossScoring);
  c.scaled = a.scaled != 0;
  c.norm = static_cast<attn::NormPlacement>(a.norm);
  c.positions = static_cast<attn::PositionKind>(a.positions);
  c.activation = static_cast<attn::Activation>(a.activation);
  c.seed = (static_cast<std::uint64_t>(a.seedHigh) << 32) | a.seedLow;
  c.pad_id = a.padId;
  attn::Status s = attn::Status::ok;
  attn::TransformerModel* model = attn::TransformerModel::create(c, &s);
  report(a.handle, a.status, model, model ? attn::Status::ok : s);
  return 0;
}

int model_load(addr p) {
  const auto& a = block<ModelLoadArgs>(p);
  attn::Status s = attn::Status::ok;
  attn::TransformerModel* model =
      attn::TransformerModel::load(reinterpret_cast<const std::uint8_t*>(a.bytes), a.size, &s);
  report(a.handle, a.status, model, model ? attn::Status::ok : s);
  return 0;
}

int model_destroy(addr p) {
  delete model_at(block<ModelDestroyArgs>(p).model);
  return 0;
}

std::size_t name_bytes(const attn::TransformerModel& m) {
  std::size_t bytes = 0;
  for (const auto& t : m.tensors()) bytes += t.name.size() + 1;
  return bytes;
}

double model_info(addr p) {
  const auto& a = block<ModelInfoArgs>(p);
  const attn::TransformerModel& m = *model_at(a.model);
  switch (a.what) {
    case 0: return static_cast<double>(m.parameter_count());
    case 1: return static_cast<double>(m.tensors().size());
    case 2: return static_cast<double>(name_bytes(m));
    case 3: return static_cast<double>(m.steps());
    case 5: return static_cast<double>(reinterpret_cast<addr>(model_at(a.model)->parameters()));
    case 6: return static_cast<double>(reinterpret_cast<addr>(m.gradients()));
    default: return -1;
  }
}

int model_describe(addr p) {
  const auto& a = block<ModelDescribeArgs>(p);
  const attn::TransformerModel& m = *model_at(a.model);
  const attn::ModelConfig& c = m.config();
  const double config[] = {
      static_cast<double>(c.kind), static_cast<double>(c.vocab_size), static_cast<double>(c.max_length),
      static_cast<double>(c.d_model), static_cast<double>(c.heads), static_cast<double>(c.d_ff),
      static_cast<double>(c.encoder_layers), static_cast<double>(c.decoder_layers),
      static_cast<double>(c.cross_scoring), c.scaled ? 1.0 : 0.0, static_cast<double>(c.norm),
      static_cast<double>(c.positions), static_cast<double>(c.activation), static_cast<double>(c.seed),
      static_cast<double>(c.pad_id)};
  std::memcpy(f64(a.config), config, sizeof config);
  char* names = reinterpret_cast<char*>(a.names);
  std::uint32_t* table = reinterpret_cast<std::uint32_t*>(a.table);
  for (const auto& t : m.tensors()) {
    std::memcpy(names, t.name.data(), t.name.size());
    names += t.name.size();
    *names++ = '\n';
    *table++ = static_cast<std::uint32_t>(t.offset);
    *table++ = static_cast<std::uint32_t>(t.rows);
    *table++ = static_cast<std::uint32_t>(t.cols);
  }
  return 0;
}

template <class Args>
attn::Batch batch_of(const Args& a) {
  attn::Batch b;
  b.size = a.size;
  b.source = ci32(a.source);
  b.source_length = a.sourceLength;
  b.input = ci32(a.input);
  b.target = ci32(a.target);
  b.length = a.length;
  return b;
}

int model_evaluate(addr p) {
  const auto& a = block<ModelEvaluateArgs>(p);
  attn::EvalResult r;
  const attn::Status s = model_at(a.model)->evaluate(batch_of(a), &r);
  const double out[] = {r.loss, r.accuracy, r.exact_match, static_cast<double>(r.counted)};
  std::memcpy(f64(a.result), out, sizeof out);
  *i32(a.status) = status(s);
  return 0;
}

int model_gradients(addr p) {
  const auto& a = block<ModelGradientsArgs>(p);
  *i32(a.status) = status(model_at(a.model)->compute_gradients(batch_of(a), f64(a.loss)));
  return 0;
}

int model_train_step(addr p) {
  const auto& a = block<ModelTrainStepArgs>(p);
  attn::TrainSettings settings;
  settings.adam = {a.learningRate, a.beta1, a.beta2, a.epsilon, a.weightDecay};
  settings.clip_norm = a.clipNorm;
  attn::StepResult r;
  const attn::Status s = model_at(a.model)->train_step(batch_of(a), settings, &r);
  const double out[] = {r.loss, r.gradient_norm, static_cast<double>(r.step), r.diverged ? 1.0 : 0.0};
  std::memcpy(f64(a.result), out, sizeof out);
  *i32(a.status) = status(s);
  return 0;
}

int model_generate(addr p) {
  const auto& a = block<ModelGenerateArgs>(p);
  const attn::AttentionMaps maps{f32(a.encoder), f32(a.decoder), f32(a.cross)};
  std::size_t length = 0;
  const attn::Status s = model_at(a.model)->generate(ci32(a.source), a.sourceLength, ci32(a.prefix), a.prefixLength,
                                                     a.eos, a.maxNew, i32(a.tokens), &length, maps);
  *i32(a.outLength) = static_cast<std::int32_t>(length);
  *i32(a.status) = status(s);
  return 0;
}

int model_attend(addr p) {
  const auto& a = block<ModelAttendArgs>(p);
  *i32(a.status) = status(model_at(a.model)->attend(ci32(a.ids), a.length, f32(a.maps), f32(a.logits), f32(a.inputs)));
  return 0;
}

// JS checks the precision and (float16) the parameters' range first: a refusal here is a bug.
double model_saved_bytes(addr p) {
  const auto& a = block<ModelSavedBytesArgs>(p);
  return static_cast<double>(model_at(a.model)->saved_bytes(static_cast<attn::SavePrecision>(a.precision)));
}

int model_save(addr p) {
  const auto& a = block<ModelSaveArgs>(p);
  return status(model_at(a.model)->save(reinterpret_cast<std::uint8_t*>(a.bytes), a.capacity,
                                        static_cast<attn::SavePrecision>(a.precision)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(training_ops) {
  using namespace attn_bindings;
  emscripten::function("_modelCreate", &model_create);
  emscripten::function("_modelLoad", &model_load);
  emscripten::function("_modelDestroy", &model_destroy);
  emscripten::function("_modelInfo", &model_info);
  emscripten::function("_modelDescribe", &model_describe);
  emscripten::function("_modelEvaluate", &model_evaluate);
  emscripten::function("_modelGradients", &model_gradients);
  emscripten::function("_modelTrainStep", &model_train_step);
  emscripten::function("_modelGenerate", &model_generate);
  emscripten::function("_modelAttend", &model_attend);
  emscripten::function("_modelSavedBytes", &model_saved_bytes);
  emscripten::function("_modelSave", &model_save);
}
