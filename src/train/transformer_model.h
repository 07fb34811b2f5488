// A small trainable Transformer, owned by the core: its parameters, their
// gradients and Adam moments live in flat arrays allocated once; activations
// are kept for the backward pass in buffers that grow only when a batch is
// larger than any before (so a steady training loop allocates nothing).
//
// Three kinds, as Dive into Deep Learning (10.7), GPT and BERT build them:
//   encoder_decoder  encoder: embedding + positions, N × [self-attention, add & norm, FFN, add & norm];
//                    decoder: embedding + positions, N × [causal self-attention, add & norm,
//                    cross-attention over the encoder's output, add & norm, FFN, add & norm];
//                    then a linear layer to vocabulary logits.
//   decoder_only     the decoder without cross-attention (a causal language model).
//   encoder_only     one stack of encoder layers (every position sees every other, padding
//                    aside), then the linear layer to vocabulary logits: trained by masked
//                    prediction (a batch's target is the original id where a token was masked,
//                    pad_id elsewhere). Its stack is named encoder.*; it has encoder_layers
//                    layers and decoder_layers = 0, and reads no source (its ids are `input`).
// Norm placement post (as in the paper and D2L) or pre (x + f(LN(x)), a final LN).
// The cross-attention's scores: scaled dot-product, unscaled dot-product
// (scaled = false) or additive, so the scoring functions and the √d_k
// argument can be trained side by side on one task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "status.h"
#include "train/feed_forward.h"
#include "train/optimizer.h"

namespace attn {

enum class ModelKind : int { encoder_decoder = 0, decoder_only = 1, encoder_only = 2 };
enum class CrossScoring : int { dot = 0, additive = 1 };
enum class NormPlacement : int { post = 0, pre = 1 };
enum class PositionKind : int { sinusoidal = 0, learned = 1 };

// How save() stores the parameters (model_image.h): float32 exactly; float16; or int8 with one
// float32 scale per row (quantize.h). Compact images keep tensors of one row (biases, layer-norm
// gains and shifts) in float32 and store every other tensor (weight matrices, embeddings) compactly;
// loading one gives exactly the dequantized values.
enum class SavePrecision : std::uint32_t { float32 = 0, float16 = 1, int8 = 2 };

struct ModelConfig {
  ModelKind kind = ModelKind::encoder_decoder;
  std::size_t vocab_size = 0;
  std::size_t max_length = 0;  // the longest source or decoder sequence the model takes
  std::size_t d_model = 32;
  std::size_t heads = 4;       // d_model % heads == 0
  std::size_t d_ff = 64;
  std::size_t encoder_layers = 1;  // 0 for decoder_only
  std::size_t decoder_layers = 1;  // 0 for encoder_only
  CrossScoring cross_scoring = CrossScoring::dot;
  bool scaled = true;          // ÷√d_k in the dot-product scores (self and cross)
  NormPlacement norm = NormPlacement::post;
  PositionKind positions = PositionKind::sinusoidal;
  Activation activation = Activation::relu;
  std::uint64_t seed = 1;      // Xavier initialisation
  std::int32_t pad_id = 0;     // a padding token: masked as a key, ignored in the loss
};

// bad_argument for a size of 0 (but encoder_layers of a decoder-only model and
// decoder_layers of an encoder-only one), d_model not divisible by heads, an
// unknown enum, a pad_id outside the vocabulary, or a parameter count above
// 2^28. A decoder_only model must have encoder_layers = 0, an encoder_only one
// decoder_layers = 0; layers are at most 256 per stack.
Status check_config(const ModelConfig& config);

// A batch of `size` sequences padded with pad_id. Teacher forcing: input row
// b is what the decoder reads (BOS then the target shifted right), target row
// b the token it should predict at each position (pad_id: not counted).
// An encoder_only model reads input (its masked ids) and predicts target at
// each position in the same way (masked prediction).
struct Batch {
  std::size_t size = 0;
  const std::int32_t* source = nullptr;  // size × source_length (encoder_decoder only)
  std::size_t source_length = 0;
  const std::int32_t* input = nullptr;   // size × length
  const std::int32_t* target = nullptr;  // size × length
  std::size_t length = 0;
};

struct TrainSettings {
  AdamSettings adam;            // adam.learning_rate is the rate of this step
  double clip_norm = 1.0;       // ≤ 0: no clipping
};

// The largest weight magnitude a model holds (float16's largest finite value): larger ones give NaN
// activations. The JS layer refuses them in setParameters and load; train_step undoes an update that
// makes one.
inline constexpr float kWeightLimit = 65504.0f;

struct StepResult {
  double loss = 0;              // before the update
  double gradient_norm = 0;     // before clipping
  std::int64_t step = 0;        // updates applied so far (unchanged when diverged)
  bool diverged = false;        // loss or gradient not finite, or an update that overflows or takes
                                // a weight beyond kWeightLimit: no update applied
};

struct EvalResult {
  double loss = 0;
  double accuracy = 0;          // counted target positions predicted right (teacher forcing)
  double exact_match = 0;       // sequences with every counted position right (of all; none counted: right)
  std::size_t counted = 0;
};

// One named parameter tensor inside the flat parameter array.
struct ParameterInfo {
  std::string name;             // e.g. "encoder.0.attention.w_q", "decoder.1.cross.w_o", "output.w"
  std::size_t offset = 0;       // in floats
  std::size_t rows = 0;
  std::size_t cols = 0;         // a vector has rows = 1
};

// Attention weights of one greedy decode, each optional (nullptr: not wanted),
// layer-major, then head, then query row (stride = the maximum length asked for).
// The decoder's rows are the positions it read: T = prefix_length + max_new − 1
// (= max_new for a one-token BOS prefix); rows past the decode's end are 0.
// encoder and cross are not written for a decoder_only model.
struct AttentionMaps {
  float* encoder = nullptr;     // encoder_layers × heads × S × S
  float* decoder = nullptr;     // decoder_layers × heads × T × T
  float* cross = nullptr;       // decoder_layers × heads × T × S
};

class TransformerModel {
 public:
  // nullptr when check_config fails (status written).
  static TransformerModel* create(const ModelConfig& config, Status* status);
  ~TransformerModel();

  const ModelConfig& config() const;
  std::size_t parameter_count() const;
  float* parameters();                    // parameter_count() floats
  const float* gradients() const;         // of the last compute_gradients() / train_step() (clipped by it); nullptr before the first
  const std::vector<ParameterInfo>& tensors() const;
  std::int64_t steps() const;             // updates applied

  // Forward only: loss and accuracies. bad_argument for a token id outside
  // the vocabulary or lengths above max_length; shape_mismatch for a missing source.
  Status evaluate(const Batch& batch, EvalResult* result);
  // Forward and backward: gradients() holds ∂loss/∂parameters afterwards.
  Status compute_gradients(const Batch& batch, double* loss);
  // compute_gradients, clipping, one AdamW update (skipped when diverged).
  Status train_step(const Batch& batch, const TrainSettings& settings, StepResult* result);

  // Greedy decoding: the encoder reads source (encoder_decoder; ignored for
  // decoder_only, whose prompt is `prefix`), the decoder starts from prefix
  // (BOS for a seq2seq model) and appends argmax tokens until eos or max_new
  // tokens. out: max_new ids; *out_length written. bad_argument when
  // prefix_length + max_new − 1 exceeds max_length (no position left to read).
  Status generate(const std::int32_t* source, std::size_t source_length, const std::int32_t* prefix,
                  std::size_t prefix_length, std::int32_t eos, std::size_t max_new, std::int32_t* out,
                  std::size_t* out_length, const AttentionMaps& maps);
  // (bad_argument for an encoder_only model: it predicts masked tokens, it does not continue text.)

  // One forward pass over `ids` (batch 1, n = length ids, 1 ≤ n ≤ max_length) of a decoder_only or
  // encoder_only model: maps (layers × heads × n × n, layer-major; each row sums to 1 over its
  // visible keys: j ≤ i for the decoder, every non-padding key for the encoder) and logits
  // (n × vocab_size, row i the prediction at position i) and inputs (layers × n × d_model: each
  // layer's self-attention input, the hidden state after the pre-norm when norm is pre; X W_Q,
  // X W_K, X W_V of it are the layer's Q, K, V). Any output may be nullptr; without logits the
  // output head is not computed.
  // bad_argument for an encoder_decoder model, a length of 0 or above max_length, or an id
  // outside the vocabulary; nothing is written then.
  Status attend(const std::int32_t* ids, std::size_t length, float* maps, float* logits,
                float* inputs = nullptr);

  // A versioned little-endian image: magic "ATLM", version, the config, the
  // step count, the parameters (Adam moments are not saved). float32 (version 1)
  // is bit-exact; float16 and int8 (version 2) are about 1/2 and 1/4 of it; an
  // encoder_only model's image is version 3 at any precision (model_image.h).
  // saved_bytes is 0 for an unknown precision. save gives bad_argument (nothing
  // written) for a capacity below saved_bytes, an unknown precision, or a
  // compact precision and a parameter that is not finite or (float16) of
  // magnitude 65520 or more.
  std::size_t saved_bytes(SavePrecision precision = SavePrecision::float32) const;
  Status save(std::uint8_t* out, std::size_t capacity, SavePrecision precision = SavePrecision::float32) const;
  // Bounds-checked: a short, corrupt or hostile image gives bad_argument and nullptr.
  // Any version and precision save() writes; the parameters are then those the image holds
  // (a compact image's dequantized: the same bits as quantize.h's from_half / from_int8).
  static TransformerModel* load(const std::uint8_t* bytes, std::size_t size, Status* status);

 private:
  struct State;
  explicit TransformerModel(State* state);
  State* state_;
};

}  // namespace attn
