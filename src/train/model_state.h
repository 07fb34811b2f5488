// Inside a TransformerModel (private to src/train/model_*.cpp): the flat
// parameter, gradient and Adam arrays, the layout, and the activations the
// forward pass keeps for the backward pass. Activations live in one arena that
// is laid out afresh for each batch's sizes and grows only when a batch needs
// more than any before, so a steady training loop allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "matrix.h"
#include "train/feed_forward.h"
#include "train/model_attention.h"
#include "train/model_layout.h"
#include "train/transformer_model.h"

namespace attn {

// One residual sublayer's saved values: y = LN(x + f(x)) (post) or y = x + f(LN(x)) (pre).
struct SublayerSaved {
  MatrixView aux;        // post: x + f(x), the norm's input; pre: LN(x), f's input
  float* mean = nullptr;
  float* rstd = nullptr;
  AttentionSaved attention;        // attention sublayers
  FeedForwardActivations ffn;      // feed-forward sublayers
};

// One stack (encoder or decoder) over one batch: streams[k] is sublayer k's input.
struct StackRun {
  std::size_t batch = 0, length = 0, rows = 0;
  std::vector<MatrixView> streams;   // sublayers + 1, rows × d_model
  std::vector<SublayerSaved> subs;
  MatrixView final_out;              // pre-norm: LN(streams.back())
  float* final_mean = nullptr;
  float* final_rstd = nullptr;
  std::vector<std::uint8_t> self_bits;  // batch × length × length, grown only
  ConstMatrixView output(bool pre) const { return pre ? final_out : streams.back(); }
};

struct ModelState {
  ModelConfig config;
  ModelLayout layout;
  std::vector<float> params;
  std::vector<float> grads;               // allocated by the first compute_gradients
  std::vector<float> adam_m, adam_v;      // allocated by the first train_step
  std::vector<float> backup;              // params, m, v before an update (undone when it overflows)
  std::int64_t steps = 0;                 // updates applied
  std::int64_t moment_steps = 0;          // updates since the moments were zero (bias correction)

  // Activations and scratch, laid out by plan_workspace.
  std::vector<float> arena;
  StackRun encoder, decoder;
  std::vector<std::uint8_t> cross_bits;   // batch × T × S
  std::vector<float> sinusoid;            // sinusoid_rows × d_model, grown only
  std::size_t sinusoid_rows = 0;
  MatrixView logits;                      // B·T × vocab
  MatrixView f_out, d_tmp, d_stream, d_memory, d_hidden;
  AttentionLayerBuffers attention_buffers;
  float* forward_scratch = nullptr;
  float* backward_scratch = nullptr;
  float* pack_scratch = nullptr;          // a dense layer's packed weights (linear_pack_floats)
  std::vector<std::int32_t> ids;          // generate's growing decoder input
};

struct TransformerModel::State : ModelState {};

// The arena's floats for a batch, in double (no wrap on a 32-bit size_t);
// calls whose workspace would exceed kMaxWorkspaceFloats are refused.
double workspace_floats(const ModelConfig& c, std::size_t batch, std::size_t source_length, std::size_t length);
constexpr double kMaxWorkspaceFloats = 67108864.0;  // 2^26 floats: 256 MiB

// Lays out the arena for a batch (source length 0 for decoder_only); grows it when needed.
void plan_workspace(ModelState& s, std::size_t batch, std::size_t source_length, std::size_t length);

// The forward pass of the planned batch: encoder (seq2seq), decoder, logits.
// encode false: the encoder's activations of the last pass are reused (the
// same batch and source length, planned again for a longer decoder input:
// the encoder's part of the arena comes first and keeps its place).
// logits: false leaves s.logits as it was (a caller that reads only the attention skips the output head,
// a d_model × vocab_size product per row).
Status forward_pass(ModelState& s, const std::int32_t* source, const std::int32_t* input, bool encode = true,
                    bool logits = true);

// The backward pass from d_logits (held in s.logits) into s.grads (accumulated).
Status backward_pass(ModelState& s, const std::int32_t* source, const std::int32_t* input);

// Every id of a row-major batch × length block inside [0, vocab).
bool ids_in_range(const std::int32_t* ids, std::size_t count, std::size_t vocab);

}  // namespace attn
