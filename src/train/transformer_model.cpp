// TransformerModel: creation and seeded initialisation, the batch checks, and
// the training loop's three calls (evaluate, compute_gradients, train_step).
// The passes themselves are in model_forward.cpp, greedy decoding in
// model_decode.cpp, the saved image in model_image.cpp.
#include "train/transformer_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "train/cross_entropy.h"
#include "train/model_image.h"
#include "train/model_state.h"

namespace attn {
namespace {

// At most this many rows (sequences × length) in one batch: the arena's sizes never wrap.
constexpr std::size_t kMaxBatchRows = std::size_t{1} << 22;

void initialise(ModelState& s) {
  Random random(s.config.seed);
  float* p = s.params.data();
  for (std::size_t t = 0; t < s.layout.tensors.size(); ++t) {
    const ParameterInfo& info = s.layout.tensors[t];
    float* w = p + info.offset;
    switch (s.layout.init[t]) {
      case ParameterInit::xavier: xavier_uniform(dense(w, info.rows, info.cols), random); break;
      case ParameterInit::xavier_per_head:
        for (std::size_t r = 0; r < info.rows; r += info.cols)
          xavier_uniform(dense(w + r * info.cols, info.cols, info.cols), random);
        break;
      case ParameterInit::zeros: std::fill(w, w + info.rows * info.cols, 0.0f); break;
      case ParameterInit::ones: std::fill(w, w + info.rows * info.cols, 1.0f); break;
    }
  }
}

// The config checked, the layout built, parameters allocated (zero); the gradients wait for the
// first compute_gradients, so a model that only runs forward (a reader's) never holds them.
bool set_up(ModelState& state, const ModelConfig& config, Status* status) {
  const Status s = check_config(config);
  if (status) *status = s;
  if (s != Status::ok) return false;
  state.config = config;
  state.layout = build_layout(config);
  state.params.assign(state.layout.count, 0.0f);
  return true;
}

Status check_batch(const ModelConfig& c, const Batch& b) {
  if (b.size == 0 || b.length == 0 || b.length > c.max_length) return Status::bad_argument;
  if (b.input == nullptr || b.target == nullptr) return Status::bad_argument;
  const bool seq2seq = c.kind == ModelKind::encoder_decoder;
  if (seq2seq && (b.source == nullptr || b.source_length == 0)) return Status::shape_mismatch;
  if (seq2seq && b.source_length > c.max_length) return Status::bad_argument;
  if (b.size > kMaxBatchRows / std::max(b.length, seq2seq ? b.source_length : 0)) return Status::bad_argument;
  if (workspace_floats(c, b.size, seq2seq ? b.source_length : 0, b.length) > kMaxWorkspaceFloats)
    return Status::bad_argument;
  const std::size_t n = b.size * b.length;
  if (!ids_in_range(b.input, n, c.vocab_size) || !ids_in_range(b.target, n, c.vocab_size))
    return Status::bad_argument;
  if (seq2seq && !ids_in_range(b.source, b.size * b.source_length, c.vocab_size)) return Status::bad_argument;
  return Status::ok;
}

Status forward_batch(ModelState& s, const Batch& b) {
  if (Status st = check_batch(s.config, b); st != Status::ok) return st;
  const bool seq2seq = s.config.kind == ModelKind::encoder_decoder;
  plan_workspace(s, b.size, seq2seq ? b.source_length : 0, b.length);
  return forward_pass(s, seq2seq ? b.source : nullptr, b.input);
}

// The first largest entry.
std::size_t argmax(const float* row, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

bool all_finite(const float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// Every value finite and at most `limit` in magnitude (a NaN is not).
bool all_within(const float* x, std::size_t n, float limit) {
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::fabs(x[i]) <= limit)) return false;
  return true;
}

Status check_settings(const TrainSettings& t) {
  const AdamSettings& a = t.adam;
  if (!(std::isfinite(a.learning_rate) && a.learning_rate >= 0.0f)) return Status::bad_argument;
  if (!(a.beta1 >= 0.0f && a.beta1 < 1.0f && a.beta2 >= 0.0f && a.beta2 < 1.0f)) return Status::bad_argument;
  if (!(std::isfinite(a.epsilon) && a.epsilon > 0.0f)) return Status::bad_argument;
  if (!(std::isfinite(a.weight_decay) && a.weight_decay >= 0.0f)) return Status::bad_argument;
  if (std::isnan(t.clip_norm)) return Status::bad_argument;
  return Status::ok;
}

}  // namespace

TransformerModel::TransformerModel(State* state) : state_(state) {}
TransformerModel::~TransformerModel() { delete state_; }

TransformerModel* TransformerModel::create(const ModelConfig& config, Status* status) {
  auto* state = new State;
  if (!set_up(*state, config, status)) {
    delete state;
    return nullptr;
  }
  initialise(*state);
  return new TransformerModel(state);
}

const ModelConfig& TransformerModel::config() const { return state_->config; }
std::size_t TransformerModel::parameter_count() const { return state_->params.size(); }
float* TransformerModel::parameters() { return state_->params.data(); }
const float* TransformerModel::gradients() const { return state_->grads.data(); }
const std::vector<ParameterInfo>& TransformerModel::tensors() const { return state_->layout.tensors; }
std::int64_t TransformerModel::steps() const { return state_->steps; }

Status TransformerModel::evaluate(const Batch& batch, EvalResult* result) {
  State& s = *state_;
  if (result == nullptr) return Status::bad_argument;
  if (Status st = forward_batch(s, batch); st != Status::ok) return st;
  CrossEntropyResult ce;
  if (Status st = softmax_cross_entropy(s.logits, batch.target, s.config.pad_id, MatrixView{}, &ce); st != Status::ok)
    return st;
  std::size_t matched = 0;
  for (std::size_t b = 0; b < batch.size; ++b) {
    bool all_right = true;
    for (std::size_t t = 0; t < batch.length && all_right; ++t) {
      const std::size_t row = b * batch.length + t;
      const std::int32_t want = batch.target[row];
      if (want == s.config.pad_id) continue;
      all_right = argmax(s.logits.row(row), s.config.vocab_size) == static_cast<std::size_t>(want);
    }
    matched += all_right ? 1 : 0;
  }
  result->loss = ce.loss;
  result->counted = ce.counted;
  result->accuracy = ce.counted > 0 ? static_cast<double>(ce.correct) / static_cast<double>(ce.counted) : 0.0;
  result->exact_match = static_cast<double>(matched) / static_cast<double>(batch.size);
  return Status::ok;
}

Status TransformerModel::compute_gradients(const Batch& batch, double* loss) {
  State& s = *state_;
  if (Status st = forward_batch(s, batch); st != Status::ok) return st;
  s.grads.assign(s.params.size(), 0.0f);  // allocated the first time
  CrossEntropyResult ce;
  if (Status st = softmax_cross_entropy(s.logits, batch.target, s.config.pad_id, s.logits, &ce); st != Status::ok)
    return st;
  const bool seq2seq = s.config.kind == ModelKind::encoder_decoder;
  if (Status st = backward_pass(s, seq2seq ? batch.source : nullptr, batch.input); st != Status::ok) return st;
  if (loss) *loss = ce.loss;
  return Status::ok;
}

Status TransformerModel::train_step(const Batch& batch, const TrainSettings& settings, StepResult* result) {
  State& s = *state_;
  if (result == nullptr) return Status::bad_argument;
  if (Status st = check_settings(settings); st != Status::ok) return st;
  double loss = 0;
  if (Status st = compute_gradients(batch, &loss); st != Status::ok) return st;
  const std::size_t n = s.params.size();
  const double norm = global_norm(s.grads.data(), n);
  *result = {loss, norm, s.steps, false};
  if (!std::isfinite(loss) || !std::isfinite(norm)) {
    result->diverged = true;
    return Status::ok;
  }
  if (settings.clip_norm > 0) clip_by_global_norm(s.grads.data(), n, settings.clip_norm);
  if (s.adam_m.size() != n) {
    s.adam_m.assign(n, 0.0f);
    s.adam_v.assign(n, 0.0f);
    s.backup.resize(3 * n);
  }
  // Keep what the update overwrites: an update that overflows a weight is undone.
  std::memcpy(s.backup.data(), s.params.data(), n * sizeof(float));
  std::memcpy(s.backup.data() + n, s.adam_m.data(), n * sizeof(float));
  std::memcpy(s.backup.data() + 2 * n, s.adam_v.data(), n * sizeof(float));
  adam_step(s.params.data(), s.grads.data(), s.adam_m.data(), s.adam_v.data(), n, settings.adam, s.moment_steps + 1);
  // A weight beyond kWeightLimit is refused everywhere a model's weights come in (setParameters,
  // load): an update that makes one (a learning rate of 1e20) is undone like one that overflows.
  if (!all_within(s.params.data(), n, kWeightLimit) || !all_finite(s.adam_v.data(), n)) {
    std::memcpy(s.params.data(), s.backup.data(), n * sizeof(float));
    std::memcpy(s.adam_m.data(), s.backup.data() + n, n * sizeof(float));
    std::memcpy(s.adam_v.data(), s.backup.data() + 2 * n, n * sizeof(float));
    result->diverged = true;
    return Status::ok;
  }
  ++s.moment_steps;
  result->step = ++s.steps;
  return Status::ok;
}

std::size_t TransformerModel::saved_bytes(SavePrecision precision) const {
  return image_bytes(state_->layout.tensors, precision);
}

Status TransformerModel::save(std::uint8_t* out, std::size_t capacity, SavePrecision precision) const {
  const std::size_t bytes = saved_bytes(precision);
  if (out == nullptr || bytes == 0 || capacity < bytes) return Status::bad_argument;
  return write_image(state_->config, state_->steps, state_->params.data(), state_->layout.tensors, precision, out);
}

TransformerModel* TransformerModel::load(const std::uint8_t* bytes, std::size_t size, Status* status) {
  ImageHeader header;
  Status st = read_image_header(bytes, size, &header);
  auto* state = new State;
  if (st == Status::ok && !set_up(*state, header.config, &st)) st = Status::bad_argument;
  if (st == Status::ok && (state->params.size() != header.count ||
                           !read_image_parameters(bytes, header, state->layout.tensors, state->params.data())))
    st = Status::bad_argument;
  if (status) *status = st;
  if (st != Status::ok) {
    delete state;
    return nullptr;
  }
  state->steps = header.steps;
  return new TransformerModel(state);
}

}  // namespace attn
