// Raw calls of the relative-position family (ops/relative-position.js):
// rotary position embedding and its angles, ALiBi's slopes and bias.
#include <emscripten/bind.h>

#include "alibi.h"
#include "raw.h"
#include "rotary_embedding.h"

namespace attn_bindings {
namespace {

// layout 0: [batch, heads, n, d]; 1: [batch, n, heads·d] (a matrix is batch 1).
int rotary_embedding(addr p) {
  const auto& a = block<RotaryEmbeddingArgs>(p);
  const attn::RotaryOptions o{a.base, a.offset, a.interleaved != 0};
  if (a.layout == 1)
    return status(attn::rotary_embedding(attn::rows_major(cf32(a.X), a.batch, a.heads, a.n, a.d), o,
                                         attn::rows_major(f32(a.output), a.batch, a.heads, a.n, a.d)));
  return status(attn::rotary_embedding(attn::heads_major(cf32(a.X), a.batch, a.heads, a.n, a.d), o,
                                       attn::heads_major(f32(a.output), a.batch, a.heads, a.n, a.d)));
}

int rotary_angles(addr p) {
  const auto& a = block<RotaryAnglesArgs>(p);
  return status(attn::rotary_angles(a.d, {a.base, a.offset, false}, out(a.angles, a.n, a.d / 2)));
}

int alibi_slopes(addr p) {
  const auto& a = block<AlibiSlopesArgs>(p);
  return status(attn::alibi_slopes(a.heads, f32(a.slopes)));
}

int alibi_bias(addr p) {
  const auto& a = block<AlibiBiasArgs>(p);
  return status(attn::alibi_bias({a.offset, a.symmetric != 0}, attn::heads_major(f32(a.bias), 1, a.heads, a.queries, a.keys)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(relative_position_ops) {
  using namespace attn_bindings;
  emscripten::function("_rotaryEmbedding", &rotary_embedding);
  emscripten::function("_rotaryAngles", &rotary_angles);
  emscripten::function("_alibiSlopes", &alibi_slopes);
  emscripten::function("_alibiBias", &alibi_bias);
}
