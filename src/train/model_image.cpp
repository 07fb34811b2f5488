#include "train/model_image.h"

#include <cmath>
#include <cstring>

#include "train/model_layout.h"

namespace attn {
namespace {

const std::uint8_t kMagic[4] = {'A', 'T', 'L', 'M'};
constexpr std::size_t kHashBytes = 8;

void put(std::uint8_t*& out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) *out++ = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint64_t get(const std::uint8_t* in, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

}  // namespace

std::uint64_t fnv1a(const std::uint8_t* bytes, std::size_t size) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::size_t image_bytes(std::size_t count) { return kImageHeaderBytes + 4 * count + kHashBytes; }

void write_image(const ModelConfig& c, std::int64_t steps, const float* params, std::size_t count,
                 std::uint8_t* out) {
  std::uint8_t* const start = out;
  std::memcpy(out, kMagic, 4);
  out += 4;
  put(out, kImageVersion, 4);
  for (int e : {static_cast<int>(c.kind), static_cast<int>(c.cross_scoring), c.scaled ? 1 : 0,
                static_cast<int>(c.norm), static_cast<int>(c.positions), static_cast<int>(c.activation)})
    put(out, static_cast<std::uint32_t>(e), 4);
  for (std::uint64_t v : {std::uint64_t{c.vocab_size}, std::uint64_t{c.max_length}, std::uint64_t{c.d_model},
                          std::uint64_t{c.heads}, std::uint64_t{c.d_ff}, std::uint64_t{c.encoder_layers},
                          std::uint64_t{c.decoder_layers}, c.seed})
    put(out, v, 8);
  put(out, static_cast<std::uint32_t>(c.pad_id), 4);
  put(out, 0, 4);
  put(out, static_cast<std::uint64_t>(steps), 8);
  put(out, count, 8);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &params[i], 4);
    put(out, bits, 4);
  }
  put(out, fnv1a(start, static_cast<std::size_t>(out - start)), 8);
}

Status read_image_header(const std::uint8_t* bytes, std::size_t size, ModelConfig* config, std::int64_t* steps,
                         std::size_t* count) {
  if (bytes == nullptr || size < image_bytes(0)) return Status::bad_argument;
  if (std::memcmp(bytes, kMagic, 4) != 0 || get(bytes + 4, 4) != kImageVersion) return Status::bad_argument;
  // The byte count must be exactly that of the parameter count it declares.
  const std::uint64_t declared = get(bytes + 112, 8);
  if (declared > kMaxParameters || (size - image_bytes(0)) / 4 != declared || (size - image_bytes(0)) % 4 != 0)
    return Status::bad_argument;
  if (fnv1a(bytes, size - kHashBytes) != get(bytes + size - kHashBytes, 8)) return Status::bad_argument;
  std::uint32_t e[6];
  for (std::size_t i = 0; i < 6; ++i) {
    e[i] = static_cast<std::uint32_t>(get(bytes + 8 + 4 * i, 4));
    if (e[i] > 1) return Status::bad_argument;
  }
  std::uint64_t dims[7];
  for (std::size_t i = 0; i < 7; ++i) {
    dims[i] = get(bytes + 32 + 8 * i, 8);
    if (dims[i] > kMaxParameters) return Status::bad_argument;  // before narrowing to size_t
  }
  if (get(bytes + 100, 4) != 0) return Status::bad_argument;
  const auto step_count = static_cast<std::int64_t>(get(bytes + 104, 8));
  if (step_count < 0) return Status::bad_argument;
  ModelConfig c;
  c.kind = static_cast<ModelKind>(e[0]);
  c.cross_scoring = static_cast<CrossScoring>(e[1]);
  c.scaled = e[2] == 1;
  c.norm = static_cast<NormPlacement>(e[3]);
  c.positions = static_cast<PositionKind>(e[4]);
  c.activation = static_cast<Activation>(e[5]);
  c.vocab_size = static_cast<std::size_t>(dims[0]);
  c.max_length = static_cast<std::size_t>(dims[1]);
  c.d_model = static_cast<std::size_t>(dims[2]);
  c.heads = static_cast<std::size_t>(dims[3]);
  c.d_ff = static_cast<std::size_t>(dims[4]);
  c.encoder_layers = static_cast<std::size_t>(dims[5]);
  c.decoder_layers = static_cast<std::size_t>(dims[6]);
  c.seed = get(bytes + 88, 8);
  c.pad_id = static_cast<std::int32_t>(static_cast<std::uint32_t>(get(bytes + 96, 4)));
  if (Status s = check_config(c); s != Status::ok) return s;
  // The declared count must be the config's (estimated first: no table is built for a wild one).
  if (parameter_count_estimate(c) != static_cast<double>(declared)) return Status::bad_argument;
  *config = c;
  *steps = step_count;
  *count = static_cast<std::size_t>(declared);
  return Status::ok;
}

bool read_image_parameters(const std::uint8_t* bytes, std::size_t count, float* params) {
  const std::uint8_t* in = bytes + kImageHeaderBytes;
  for (std::size_t i = 0; i < count; ++i) {
    const auto bits = static_cast<std::uint32_t>(get(in + 4 * i, 4));
    std::memcpy(&params[i], &bits, 4);
    if (!std::isfinite(params[i])) return false;
  }
  return true;
}

}  // namespace attn
