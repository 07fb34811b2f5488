// The named parameter table of a TransformerModel: every tensor's name, place
// in the one flat parameter array, shape and initialisation, in a fixed order
// (the order of the saved image and of the seeded initialisation).
//
//   encoder.embedding, encoder.positions (learned only),
//   encoder.<l>.attention.{w_q,w_k,w_v,w_o}, encoder.<l>.attention_norm.{gamma,beta},
//   encoder.<l>.ffn.{w1,b1,w2,b2}, encoder.<l>.ffn_norm.{gamma,beta}, encoder.final_norm (pre-norm),
//   decoder.… the same, with decoder.<l>.cross.{w_q,w_k,w_v,w_o} (+ score_q, score_k: heads·d_k × d_k
//   and score_v: heads × d_k when additive: head h's W_q, W_k are rows h·d_k …, its w_v row h)
//   and decoder.<l>.cross_norm between attention and ffn (encoder–decoder only),
//   output.w (d_model × vocab), output.b.
// An encoder_only model has one stack, encoder.… (without cross-attention), then output.w, output.b.
// Attention projections have no bias (as in D2L's MultiHeadAttention).
#pragma once

#include <cstddef>
#include <vector>

#include "train/transformer_model.h"

namespace attn {

// xavier_per_head: each square cols × cols block of rows on its own (stacked per-head weights).
enum class ParameterInit : int { xavier = 0, zeros = 1, ones = 2, xavier_per_head = 3 };

struct AttentionOffsets {
  std::size_t w_q = 0, w_k = 0, w_v = 0, w_o = 0;
  bool additive = false;
  std::size_t score_q = 0, score_k = 0, score_v = 0;  // additive only
};

struct NormOffsets {
  std::size_t gamma = 0, beta = 0;
};

struct FeedForwardOffsets {
  std::size_t w1 = 0, b1 = 0, w2 = 0, b2 = 0;
};

// One layer: self-attention, (cross-attention,) feed-forward, each with its norm.
struct LayerOffsets {
  AttentionOffsets attention;
  NormOffsets attention_norm;
  bool has_cross = false;
  AttentionOffsets cross;
  NormOffsets cross_norm;
  FeedForwardOffsets ffn;
  NormOffsets ffn_norm;
};

struct StackOffsets {
  std::size_t embedding = 0;
  bool learned_positions = false;
  std::size_t positions = 0;       // learned only: max_length × d_model
  std::vector<LayerOffsets> layers;
  bool final_norm_present = false; // pre-norm
  NormOffsets final_norm;
};

struct ModelLayout {
  std::vector<ParameterInfo> tensors;
  std::vector<ParameterInit> init;  // one per tensor
  StackOffsets encoder;             // encoder_decoder only (no layers otherwise)
  StackOffsets decoder;             // the stack the logits read: the decoder, or an encoder_only
                                    // model's encoder (named encoder.*, run without a causal mask)
  std::size_t output_w = 0, output_b = 0;
  std::size_t count = 0;            // floats in all
};

// The layers of the stack the logits read: decoder_layers, or an encoder_only model's encoder_layers.
std::size_t main_stack_layers(const ModelConfig& config);

// The parameter count of a config, in double (so absurd sizes do not wrap);
// check_config refuses counts above kMaxParameters.
double parameter_count_estimate(const ModelConfig& config);
constexpr std::size_t kMaxParameters = std::size_t{1} << 28;

// The table of a config that check_config accepted.
ModelLayout build_layout(const ModelConfig& config);

}  // namespace attn
