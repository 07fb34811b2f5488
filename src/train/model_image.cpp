#include "train/model_image.h"

#include <cmath>
#include <cstring>

#include "train/model_layout.h"
#include "train/quantize.h"

namespace attn {
namespace {

const std::uint8_t kMagic[4] = {'A', 'T', 'L', 'M'};
constexpr std::size_t kHashBytes = 8;
constexpr std::size_t kPrecisionOffset = 100;

// The version an image of this kind and precision is written as (model_image.h).
std::uint32_t image_version(ModelKind kind, SavePrecision precision) {
  if (kind == ModelKind::encoder_only) return kEncoderOnlyImageVersion;
  return precision == SavePrecision::float32 ? kImageVersion : kCompactImageVersion;
}

// How one tensor's values are stored in an image of some precision.
enum class Storage { f32, f16, int8 };

Storage storage_of(const ParameterInfo& t, SavePrecision precision) {
  if (precision == SavePrecision::float32 || t.rows == 1) return Storage::f32;
  return precision == SavePrecision::float16 ? Storage::f16 : Storage::int8;
}

std::size_t tensor_bytes(const ParameterInfo& t, SavePrecision precision) {
  const std::size_t n = t.rows * t.cols;
  switch (storage_of(t, precision)) {
    case Storage::f32: return 4 * n;
    case Storage::f16: return 2 * n;
    case Storage::int8: return 4 * t.rows + n;
  }
  return 0;
}

void put(std::uint8_t*& out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) *out++ = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint64_t get(const std::uint8_t* in, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

void put_f32(std::uint8_t*& out, float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  put(out, bits, 4);
}

float get_f32(const std::uint8_t* in) {
  const auto bits = static_cast<std::uint32_t>(get(in, 4));
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// Every value can be stored as the precision stores its tensor (float32: anything, as before).
bool storable(const float* params, const std::vector<ParameterInfo>& tensors, SavePrecision precision) {
  if (precision == SavePrecision::float32) return true;
  for (const ParameterInfo& t : tensors) {
    const bool half = storage_of(t, precision) == Storage::f16;
    for (std::size_t i = 0; i < t.rows * t.cols; ++i) {
      const float x = params[t.offset + i];
      if (!std::isfinite(x) || (half && !fits_half(x))) return false;
    }
  }
  return true;
}

void write_header(std::uint8_t*& out, const ModelConfig& c, std::int64_t steps, std::size_t count,
                  SavePrecision precision) {
  std::memcpy(out, kMagic, 4);
  out += 4;
  put(out, image_version(c.kind, precision), 4);
  for (int e : {static_cast<int>(c.kind), static_cast<int>(c.cross_scoring), c.scaled ? 1 : 0,
                static_cast<int>(c.norm), static_cast<int>(c.positions), static_cast<int>(c.activation)})
    put(out, static_cast<std::uint32_t>(e), 4);
  for (std::uint64_t v : {std::uint64_t{c.vocab_size}, std::uint64_t{c.max_length}, std::uint64_t{c.d_model},
                          std::uint64_t{c.heads}, std::uint64_t{c.d_ff}, std::uint64_t{c.encoder_layers},
                          std::uint64_t{c.decoder_layers}, c.seed})
    put(out, v, 8);
  put(out, static_cast<std::uint32_t>(c.pad_id), 4);
  put(out, static_cast<std::uint32_t>(precision), 4);
  put(out, static_cast<std::uint64_t>(steps), 8);
  put(out, count, 8);
}

// int8: the tensor's row scales, then its values (row-major), in one pass.
void write_int8(std::uint8_t*& out, const float* w, const ParameterInfo& t) {
  std::uint8_t* values = out + 4 * t.rows;
  for (std::size_t r = 0; r < t.rows; ++r) {
    const float* row = w + r * t.cols;
    const float scale = int8_scale(row, t.cols);
    put_f32(out, scale);
    for (std::size_t c = 0; c < t.cols; ++c) *values++ = static_cast<std::uint8_t>(to_int8(row[c], scale));
  }
  out = values;
}

void write_tensor(std::uint8_t*& out, const float* w, const ParameterInfo& t, SavePrecision precision) {
  const std::size_t n = t.rows * t.cols;
  switch (storage_of(t, precision)) {
    case Storage::f32:
      for (std::size_t i = 0; i < n; ++i) put_f32(out, w[i]);
      break;
    case Storage::f16:
      for (std::size_t i = 0; i < n; ++i) put(out, to_half(w[i]), 2);
      break;
    case Storage::int8: write_int8(out, w, t); break;
  }
}

// Magic, version and precision agree; a float32 byte count is its declared count's; the hash.
Status check_framing(const std::uint8_t* bytes, std::size_t size, SavePrecision* precision,
                     std::uint32_t* version_out) {
  if (bytes == nullptr || size < image_bytes(0)) return Status::bad_argument;
  if (std::memcmp(bytes, kMagic, 4) != 0) return Status::bad_argument;
  const std::uint64_t version = get(bytes + 4, 4);
  const auto code = static_cast<SavePrecision>(get(bytes + kPrecisionOffset, 4));
  const bool compact = code == SavePrecision::float16 || code == SavePrecision::int8;
  if (!(version == kImageVersion && code == SavePrecision::float32) && !(version == kCompactImageVersion && compact) &&
      !(version == kEncoderOnlyImageVersion && (compact || code == SavePrecision::float32)))
    return Status::bad_argument;
  const std::uint64_t declared = get(bytes + 112, 8);
  if (declared > kMaxParameters) return Status::bad_argument;
  // A float32 image (version 1 or 3) must be exactly the size of the count it declares (checked before hashing).
  if (!compact && ((size - image_bytes(0)) / 4 != declared || (size - image_bytes(0)) % 4 != 0))
    return Status::bad_argument;
  if (fnv1a(bytes, size - kHashBytes) != get(bytes + size - kHashBytes, 8)) return Status::bad_argument;
  *precision = code;
  *version_out = static_cast<std::uint32_t>(version);
  return Status::ok;
}

// The config fields and the step count, each in its domain: the kind the version's (0 or 1 in
// versions 1 and 2, 2 in version 3), every other enum 0 or 1.
Status read_config(const std::uint8_t* bytes, std::uint32_t version, ModelConfig* config, std::int64_t* steps) {
  std::uint32_t e[6];
  for (std::size_t i = 0; i < 6; ++i) {
    e[i] = static_cast<std::uint32_t>(get(bytes + 8 + 4 * i, 4));
    if (i > 0 && e[i] > 1) return Status::bad_argument;
  }
  const std::uint32_t encoder_only = static_cast<std::uint32_t>(ModelKind::encoder_only);
  if (version == kEncoderOnlyImageVersion ? e[0] != encoder_only : e[0] > 1) return Status::bad_argument;
  std::uint64_t dims[7];
  for (std::size_t i = 0; i < 7; ++i) {
    dims[i] = get(bytes + 32 + 8 * i, 8);
    if (dims[i] > kMaxParameters) return Status::bad_argument;  // before narrowing to size_t
  }
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
  *config = c;
  *steps = step_count;
  return Status::ok;
}

bool read_f32s(const std::uint8_t*& in, std::size_t n, float* w) {
  for (std::size_t i = 0; i < n; ++i, in += 4) {
    w[i] = get_f32(in);
    if (!std::isfinite(w[i])) return false;
  }
  return true;
}

bool read_halves(const std::uint8_t*& in, std::size_t n, float* w) {
  for (std::size_t i = 0; i < n; ++i, in += 2) {
    const auto bits = static_cast<std::uint16_t>(get(in, 2));
    if (!half_is_finite(bits)) return false;
    w[i] = from_half(bits);
  }
  return true;
}

// Only what write_int8 writes: valid scales, no -128, a row of scale 0 all zeros.
bool read_int8(const std::uint8_t*& in, const ParameterInfo& t, float* w) {
  const std::uint8_t* values = in + 4 * t.rows;
  for (std::size_t r = 0; r < t.rows; ++r) {
    const float scale = get_f32(in + 4 * r);
    if (!int8_scale_is_valid(scale)) return false;
    for (std::size_t c = 0; c < t.cols; ++c) {
      const auto q = static_cast<std::int8_t>(*values++);
      if (q == -128 || (scale == 0.0f && q != 0)) return false;
      w[r * t.cols + c] = from_int8(q, scale);
    }
  }
  in = values;
  return true;
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

bool is_save_precision(SavePrecision p) {
  return p == SavePrecision::float32 || p == SavePrecision::float16 || p == SavePrecision::int8;
}

std::size_t image_bytes(std::size_t count) { return kImageHeaderBytes + 4 * count + kHashBytes; }

std::size_t image_bytes(const std::vector<ParameterInfo>& tensors, SavePrecision precision) {
  if (!is_save_precision(precision)) return 0;
  std::size_t body = 0;
  for (const ParameterInfo& t : tensors) body += tensor_bytes(t, precision);
  return kImageHeaderBytes + body + kHashBytes;
}

Status write_image(const ModelConfig& config, std::int64_t steps, const float* params,
                   const std::vector<ParameterInfo>& tensors, SavePrecision precision, std::uint8_t* out) {
  if (!is_save_precision(precision) || !storable(params, tensors, precision)) return Status::bad_argument;
  std::size_t count = 0;
  for (const ParameterInfo& t : tensors) count += t.rows * t.cols;
  std::uint8_t* const start = out;
  write_header(out, config, steps, count, precision);
  for (const ParameterInfo& t : tensors) write_tensor(out, params + t.offset, t, precision);
  put(out, fnv1a(start, static_cast<std::size_t>(out - start)), 8);
  return Status::ok;
}

Status read_image_header(const std::uint8_t* bytes, std::size_t size, ImageHeader* header) {
  SavePrecision precision = SavePrecision::float32;
  std::uint32_t version = 0;
  if (Status s = check_framing(bytes, size, &precision, &version); s != Status::ok) return s;
  ImageHeader h;
  h.precision = precision;
  if (Status s = read_config(bytes, version, &h.config, &h.steps); s != Status::ok) return s;
  // The declared count must be the config's (estimated first: no table is built for a wild one).
  const std::uint64_t declared = get(bytes + 112, 8);
  if (parameter_count_estimate(h.config) != static_cast<double>(declared)) return Status::bad_argument;
  h.count = static_cast<std::size_t>(declared);
  // A compact image's size follows from its tensors' shapes: the table (names and shapes, not
  // the parameters) is built to know it.
  if (precision != SavePrecision::float32 && image_bytes(build_layout(h.config).tensors, precision) != size)
    return Status::bad_argument;
  *header = h;
  return Status::ok;
}

bool read_image_parameters(const std::uint8_t* bytes, const ImageHeader& header,
                           const std::vector<ParameterInfo>& tensors, float* params) {
  const std::uint8_t* in = bytes + kImageHeaderBytes;
  std::size_t next = 0;  // the tensors must tile the parameters in order, as the writer assumes
  for (const ParameterInfo& t : tensors) {
    const std::size_t n = t.rows * t.cols;
    if (t.offset != next || n > header.count - next) return false;
    next += n;
    float* w = params + t.offset;
    bool ok = false;
    switch (storage_of(t, header.precision)) {
      case Storage::f32: ok = read_f32s(in, n, w); break;
      case Storage::f16: ok = read_halves(in, n, w); break;
      case Storage::int8: ok = read_int8(in, t, w); break;
    }
    if (!ok) return false;
  }
  return next == header.count;
}

}  // namespace attn
