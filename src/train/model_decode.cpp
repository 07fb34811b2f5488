// Greedy decoding: run the model on the tokens so far, append the argmax of
// the last row, stop at eos or after max_new tokens. The encoder runs once;
// each step recomputes the decoder over the whole (short) sequence; with causal self-attention row i of the last pass
// is exactly what step i computed, so the attention maps are read from it.
// attend: one forward pass over given ids, its attention maps, logits and attention inputs (without the
// output head when no logits are asked for: it is most of a small model's pass over a large vocabulary).
#include <algorithm>
#include <cstring>

#include "train/model_state.h"

namespace attn {
namespace {

std::size_t argmax(const float* row, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

// The saved weights (heads × n × m, batch 1) of every attention sublayer of one
// kind, into layer × heads × rows_out × cols_out maps (zero outside n × m).
void copy_maps(const StackRun& run, std::size_t first, std::size_t per_layer, std::size_t heads, std::size_t n,
               std::size_t m, std::size_t rows_out, std::size_t cols_out, float* maps) {
  const std::size_t layers = run.subs.size() / per_layer;
  std::fill(maps, maps + layers * heads * rows_out * cols_out, 0.0f);
  for (std::size_t l = 0; l < layers; ++l)
    for (std::size_t h = 0; h < heads; ++h) {
      const float* from = run.subs[l * per_layer + first].attention.weights + h * n * m;
      float* to = maps + (l * heads + h) * rows_out * cols_out;
      for (std::size_t i = 0; i < n; ++i) std::memcpy(to + i * cols_out, from + i * m, m * sizeof(float));
    }
}

}  // namespace

Status TransformerModel::generate(const std::int32_t* source, std::size_t source_length, const std::int32_t* prefix,
                                  std::size_t prefix_length, std::int32_t eos, std::size_t max_new, std::int32_t* out,
                                  std::size_t* out_length, const AttentionMaps& maps) {
  State& s = *state_;
  const ModelConfig& c = s.config;
  const bool seq2seq = c.kind == ModelKind::encoder_decoder;
  if (c.kind == ModelKind::encoder_only) return Status::bad_argument;  // it fills masks, it does not continue
  if (out_length == nullptr || (max_new > 0 && out == nullptr)) return Status::bad_argument;
  if (prefix == nullptr || prefix_length == 0 || prefix_length > c.max_length) return Status::bad_argument;
  if (max_new > c.max_length - prefix_length + 1) return Status::bad_argument;
  if (seq2seq && (source == nullptr || source_length == 0)) return Status::shape_mismatch;
  if (seq2seq && source_length > c.max_length) return Status::bad_argument;
  if (workspace_floats(c, 1, seq2seq ? source_length : 0, prefix_length + max_new) > kMaxWorkspaceFloats)
    return Status::bad_argument;
  if (!ids_in_range(prefix, prefix_length, c.vocab_size)) return Status::bad_argument;
  if (seq2seq && !ids_in_range(source, source_length, c.vocab_size)) return Status::bad_argument;
  *out_length = 0;
  if (max_new == 0) return Status::ok;
  const std::size_t S = seq2seq ? source_length : 0;
  const std::size_t T = prefix_length + max_new - 1;  // the most positions the decoder reads
  s.ids.reserve(T);
  s.ids.assign(prefix, prefix + prefix_length);
  plan_workspace(s, 1, S, T);  // the arena at its largest first: later plans only shrink the layout
  std::size_t n = 0;
  for (;;) {
    const std::size_t L = s.ids.size();
    plan_workspace(s, 1, S, L);
    // The encoder runs once; its activations keep their place in the arena.
    if (Status st = forward_pass(s, seq2seq ? source : nullptr, s.ids.data(), n == 0); st != Status::ok) return st;
    const auto next = static_cast<std::int32_t>(argmax(s.logits.row(L - 1), c.vocab_size));
    out[n++] = next;
    if (next == eos || n == max_new) break;
    s.ids.push_back(next);
  }
  *out_length = n;
  // Every position the decoder read: prefix_length + max_new − 1 rows at most.
  const std::size_t L = s.ids.size(), per = seq2seq ? 3 : 2;
  if (seq2seq && maps.encoder) copy_maps(s.encoder, 0, 2, c.heads, S, S, S, S, maps.encoder);
  if (maps.decoder) copy_maps(s.decoder, 0, per, c.heads, L, L, T, T, maps.decoder);
  if (seq2seq && maps.cross) copy_maps(s.decoder, 1, per, c.heads, L, S, T, S, maps.cross);
  return Status::ok;
}

Status TransformerModel::attend(const std::int32_t* ids, std::size_t length, float* maps, float* logits,
                                float* inputs) {
  State& s = *state_;
  const ModelConfig& c = s.config;
  if (c.kind == ModelKind::encoder_decoder) return Status::bad_argument;
  if (ids == nullptr || length == 0 || length > c.max_length) return Status::bad_argument;
  if (workspace_floats(c, 1, 0, length) > kMaxWorkspaceFloats) return Status::bad_argument;
  if (!ids_in_range(ids, length, c.vocab_size)) return Status::bad_argument;
  // 1. One pass of batch 1 over the ids (the decoder's mask causal, the encoder's not).
  plan_workspace(s, 1, 0, length);
  if (Status st = forward_pass(s, nullptr, ids, true, logits != nullptr); st != Status::ok) return st;
  // 2. Every self-attention sublayer's weights (the first of each layer's two), then the logits.
  if (maps) copy_maps(s.decoder, 0, 2, c.heads, length, length, length, length, maps);
  // 3. Each self-attention sublayer's input: the stream, or its layer norm (pre-norm).
  if (inputs)
    for (std::size_t l = 0; l < s.decoder.subs.size() / 2; ++l) {
      const ConstMatrixView x = c.norm == NormPlacement::pre ? ConstMatrixView(s.decoder.subs[2 * l].aux)
                                                             : ConstMatrixView(s.decoder.streams[2 * l]);
      for (std::size_t i = 0; i < length; ++i)
        std::memcpy(inputs + (l * length + i) * c.d_model, x.row(i), c.d_model * sizeof(float));
    }
  if (logits)
    for (std::size_t i = 0; i < length; ++i)
      std::memcpy(logits + i * c.vocab_size, s.logits.row(i), c.vocab_size * sizeof(float));
  return Status::ok;
}

}  // namespace attn
