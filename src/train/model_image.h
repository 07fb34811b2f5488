// The saved form of a TransformerModel: a little-endian image
//   offset   0  "ATLM", u32 version (1)
//            8  u32 kind, cross_scoring, scaled (0/1), norm, positions, activation
//           32  u64 vocab_size, max_length, d_model, heads, d_ff, encoder_layers, decoder_layers, seed
//           96  i32 pad_id, u32 reserved (0)
//          104  i64 steps, u64 parameter count
//          120  parameter count × f32, in the layout's order
//          end  u64 FNV-1a hash of every byte before it
// Reading checks everything before allocating: the byte count against the
// parameter count (≤ 2^28), the hash, every field's domain, the config, the
// count against the config's layout, and that every parameter is finite.
#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"
#include "train/transformer_model.h"

namespace attn {

constexpr std::uint32_t kImageVersion = 1;
constexpr std::size_t kImageHeaderBytes = 120;

std::size_t image_bytes(std::size_t parameter_count);

// out: image_bytes(count) bytes.
void write_image(const ModelConfig& config, std::int64_t steps, const float* params, std::size_t count,
                 std::uint8_t* out);

// The header of an image, checked; *count is the parameter count, which the
// caller compares with the config's layout before reading the parameters.
Status read_image_header(const std::uint8_t* bytes, std::size_t size, ModelConfig* config, std::int64_t* steps,
                         std::size_t* count);

// Copies the parameters out of a checked image; false when one is not finite.
bool read_image_parameters(const std::uint8_t* bytes, std::size_t count, float* params);

// The FNV-1a 64-bit hash (the image's last 8 bytes hash the rest).
std::uint64_t fnv1a(const std::uint8_t* bytes, std::size_t size);

}  // namespace attn
