#include "train/model_layout.h"

#include <string>

namespace attn {
namespace {

constexpr std::size_t kMaxDimension = std::size_t{1} << 28;
constexpr std::size_t kMaxLayers = 256;

class Builder {
 public:
  explicit Builder(ModelLayout& layout) : layout_(layout) {}

  std::size_t add(const std::string& name, std::size_t rows, std::size_t cols, ParameterInit init) {
    const std::size_t offset = layout_.count;
    layout_.tensors.push_back({name, offset, rows, cols});
    layout_.init.push_back(init);
    layout_.count += rows * cols;
    return offset;
  }

  NormOffsets norm(const std::string& name, std::size_t d) {
    NormOffsets n;
    n.gamma = add(name + ".gamma", 1, d, ParameterInit::ones);
    n.beta = add(name + ".beta", 1, d, ParameterInit::zeros);
    return n;
  }

  AttentionOffsets attention(const std::string& name, const ModelConfig& c, bool additive) {
    const std::size_t d = c.d_model, dk = c.d_model / c.heads;
    AttentionOffsets a;
    a.w_q = add(name + ".w_q", d, d, ParameterInit::xavier);
    a.w_k = add(name + ".w_k", d, d, ParameterInit::xavier);
    a.w_v = add(name + ".w_v", d, d, ParameterInit::xavier);
    a.w_o = add(name + ".w_o", d, d, ParameterInit::xavier);
    a.additive = additive;
    if (additive) {
      a.score_q = add(name + ".score_q", c.heads * dk, dk, ParameterInit::xavier_per_head);
      a.score_k = add(name + ".score_k", c.heads * dk, dk, ParameterInit::xavier_per_head);
      a.score_v = add(name + ".score_v", c.heads, dk, ParameterInit::xavier);
    }
    return a;
  }

  FeedForwardOffsets ffn(const std::string& name, std::size_t d, std::size_t d_ff) {
    FeedForwardOffsets f;
    f.w1 = add(name + ".w1", d, d_ff, ParameterInit::xavier);
    f.b1 = add(name + ".b1", 1, d_ff, ParameterInit::zeros);
    f.w2 = add(name + ".w2", d_ff, d, ParameterInit::xavier);
    f.b2 = add(name + ".b2", 1, d, ParameterInit::zeros);
    return f;
  }

  StackOffsets stack(const std::string& name, const ModelConfig& c, std::size_t layers, bool cross) {
    StackOffsets s;
    s.embedding = add(name + ".embedding", c.vocab_size, c.d_model, ParameterInit::xavier);
    s.learned_positions = c.positions == PositionKind::learned;
    if (s.learned_positions) s.positions = add(name + ".positions", c.max_length, c.d_model, ParameterInit::xavier);
    for (std::size_t l = 0; l < layers; ++l) {
      const std::string p = name + "." + std::to_string(l);
      LayerOffsets layer;
      layer.attention = attention(p + ".attention", c, false);
      layer.attention_norm = norm(p + ".attention_norm", c.d_model);
      layer.has_cross = cross;
      if (cross) {
        layer.cross = attention(p + ".cross", c, c.cross_scoring == CrossScoring::additive);
        layer.cross_norm = norm(p + ".cross_norm", c.d_model);
      }
      layer.ffn = ffn(p + ".ffn", c.d_model, c.d_ff);
      layer.ffn_norm = norm(p + ".ffn_norm", c.d_model);
      s.layers.push_back(layer);
    }
    s.final_norm_present = c.norm == NormPlacement::pre;
    if (s.final_norm_present) s.final_norm = norm(name + ".final_norm", c.d_model);
    return s;
  }

 private:
  ModelLayout& layout_;
};

double stack_estimate(const ModelConfig& c, std::size_t layers, bool cross) {
  const double d = static_cast<double>(c.d_model), ff = static_cast<double>(c.d_ff);
  const double dk = d / static_cast<double>(c.heads);
  double attention = 4 * d * d;
  double layer = attention + 2 * d * ff + ff + d + 4 * d;
  if (cross) layer += attention + 2 * d + (c.cross_scoring == CrossScoring::additive ? 2 * d * dk + d : 0);
  double total = static_cast<double>(c.vocab_size) * d + static_cast<double>(layers) * layer;
  if (c.norm == NormPlacement::pre) total += 2 * d;  // the final norm
  if (c.positions == PositionKind::learned) total += static_cast<double>(c.max_length) * d;
  return total;
}

}  // namespace

std::size_t main_stack_layers(const ModelConfig& c) {
  return c.kind == ModelKind::encoder_only ? c.encoder_layers : c.decoder_layers;
}

double parameter_count_estimate(const ModelConfig& c) {
  const bool seq2seq = c.kind == ModelKind::encoder_decoder;
  double total = stack_estimate(c, main_stack_layers(c), seq2seq);
  if (seq2seq) total += stack_estimate(c, c.encoder_layers, false);
  return total + static_cast<double>(c.d_model) * static_cast<double>(c.vocab_size) +
         static_cast<double>(c.vocab_size);
}

Status check_config(const ModelConfig& c) {
  const int kind = static_cast<int>(c.kind), scoring = static_cast<int>(c.cross_scoring);
  const int norm = static_cast<int>(c.norm), positions = static_cast<int>(c.positions);
  const int activation = static_cast<int>(c.activation);
  if (kind < 0 || kind > 2 || scoring < 0 || scoring > 1 || norm < 0 || norm > 1 || positions < 0 ||
      positions > 1 || activation < 0 || activation > 1)
    return Status::bad_argument;
  for (std::size_t size : {c.vocab_size, c.max_length, c.d_model, c.heads, c.d_ff})
    if (size == 0 || size > kMaxDimension) return Status::bad_argument;
  const bool has_encoder = c.kind != ModelKind::decoder_only, has_decoder = c.kind != ModelKind::encoder_only;
  if (has_decoder ? c.decoder_layers == 0 || c.decoder_layers > kMaxLayers : c.decoder_layers != 0)
    return Status::bad_argument;
  if (has_encoder ? c.encoder_layers == 0 || c.encoder_layers > kMaxLayers : c.encoder_layers != 0)
    return Status::bad_argument;
  if (c.d_model % c.heads != 0) return Status::bad_argument;
  if (c.pad_id < 0 || static_cast<std::size_t>(c.pad_id) >= c.vocab_size) return Status::bad_argument;
  if (parameter_count_estimate(c) > static_cast<double>(kMaxParameters)) return Status::bad_argument;
  return Status::ok;
}

ModelLayout build_layout(const ModelConfig& c) {
  ModelLayout layout;
  Builder b(layout);
  const bool seq2seq = c.kind == ModelKind::encoder_decoder;
  if (seq2seq) layout.encoder = b.stack("encoder", c, c.encoder_layers, false);
  // The stack the logits read: an encoder-only model's is its encoder (named so), kept where a
  // decoder-only model keeps its decoder, so both take one path through the passes.
  const bool encoder_only = c.kind == ModelKind::encoder_only;
  layout.decoder = b.stack(encoder_only ? "encoder" : "decoder", c, main_stack_layers(c), seq2seq);
  layout.output_w = b.add("output.w", c.d_model, c.vocab_size, ParameterInit::xavier);
  layout.output_b = b.add("output.b", 1, c.vocab_size, ParameterInit::zeros);
  return layout;
}

}  // namespace attn
