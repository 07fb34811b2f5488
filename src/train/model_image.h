// The saved form of a TransformerModel: a little-endian image
//   offset   0  "ATLM", u32 version: 1 (float32 parameters) or 2 (compact), of an encoder–decoder
//               or decoder-only model; 3 (any precision) of an encoder-only model
//            8  u32 kind (versions 1 and 2: 0 or 1; version 3: 2), cross_scoring, scaled (0/1), norm,
//               positions, activation
//           32  u64 vocab_size, max_length, d_model, heads, d_ff, encoder_layers, decoder_layers, seed
//           96  i32 pad_id, u32 precision: 0 float32 (version 1; was "reserved (0)"), 1 float16, 2 int8 (version 2)
//          104  i64 steps, u64 parameter count
//          120  the parameters, tensor by tensor in the layout's order (model_layout.h):
//                 float32: every tensor as f32 (so a version-1 image is exactly what it was before
//                          compact images existed: 120 + 4 × count + 8 bytes);
//                 float16, int8: a tensor of one row (biases, layer-norm gains and shifts: few
//                          floats, and the most sensitive) as f32; every other tensor
//                          (weight matrices, embeddings) as rows × cols float16 bits (u16), or
//                          as rows f32 scales then rows × cols int8 values, row-major
//                          (quantize.h: the rounding rules)
//          end  u64 FNV-1a hash of every byte before it
// Version 3 is laid out as versions 1 (float32) and 2 (float16, int8) are; its own number keeps a
// reader that knows only versions 1 and 2 from taking an encoder-only model for another kind (such
// a reader refuses the version), and a kind of 2 in a version-1 or -2 header is refused.
// Reading checks everything before the parameters are allocated: the magic
// and version, the byte count (version 1: against the declared count, ≤ 2^28,
// before hashing), the hash, every field's domain, the config, the count
// against the config's layout and (version 2) the byte count against the
// tensors' shapes; then, while copying, that every value is finite: f32 and
// float16 not NaN or ∞; an int8 row's scale finite, not negative, with 127 ×
// scale finite; no -128; a row of scale 0 all zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "status.h"
#include "train/transformer_model.h"

namespace attn {

constexpr std::uint32_t kImageVersion = 1;         // float32
constexpr std::uint32_t kCompactImageVersion = 2;  // float16, int8
constexpr std::uint32_t kEncoderOnlyImageVersion = 3;  // an encoder_only model, any precision
constexpr std::size_t kImageHeaderBytes = 120;

struct ImageHeader {
  ModelConfig config;
  std::int64_t steps = 0;
  std::size_t count = 0;  // parameters
  SavePrecision precision = SavePrecision::float32;
};

bool is_save_precision(SavePrecision precision);

// A float32 (version 1) image of `count` parameters.
std::size_t image_bytes(std::size_t parameter_count);
// An image of these tensors (the layout's, covering the parameters in order) at a precision;
// 0 for an unknown precision.
std::size_t image_bytes(const std::vector<ParameterInfo>& tensors, SavePrecision precision);

// Writes image_bytes(tensors, precision) bytes at out. bad_argument, nothing
// written, for an unknown precision or, for a compact one, a parameter that is
// not finite or (float16) whose magnitude is 65520 or more.
Status write_image(const ModelConfig& config, std::int64_t steps, const float* params,
                   const std::vector<ParameterInfo>& tensors, SavePrecision precision, std::uint8_t* out);

// The header of an image, checked (see above); the caller compares header->count
// with the layout it builds from header->config before reading the parameters.
Status read_image_header(const std::uint8_t* bytes, std::size_t size, ImageHeader* header);

// Copies the parameters out of a checked image (dequantizing a compact one);
// false when a value or scale is not one a valid image holds.
bool read_image_parameters(const std::uint8_t* bytes, const ImageHeader& header,
                           const std::vector<ParameterInfo>& tensors, float* params);

// The FNV-1a 64-bit hash (the image's last 8 bytes hash the rest).
std::uint64_t fnv1a(const std::uint8_t* bytes, std::size_t size);

}  // namespace attn
