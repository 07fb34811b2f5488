// Raw calls of the positional family (ops/positional.js): the sinusoidal
// encoding, alone or added to an (optionally scaled) input.
#include <emscripten/bind.h>

#include "positional_encoding.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int positional_encoding(addr p) {
  const auto& a = block<PositionalEncodingArgs>(p);
  return status(attn::positional_encoding(a.base, out(a.P, a.n, a.d)));
}

int add_positional_encoding(addr p) {
  const auto& a = block<AddPositionalEncodingArgs>(p);
  return status(attn::add_positional_encoding(in(a.X, a.n, a.d), a.base, a.scale, out(a.output, a.n, a.d)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(positional_ops) {
  using namespace attn_bindings;
  emscripten::function("_positionalEncoding", &positional_encoding);
  emscripten::function("_addPositionalEncoding", &add_positional_encoding);
}
