// The raw embind layer. Each operation family binds its raw functions in
// bindings/ops/<family>.cpp, beside the JS module that calls them
// (ops/<family>.js); this file binds what belongs to no family.
//
// Every raw function takes one argument, the heap address of its argument
// block: a struct generated from bindings/arg-blocks.js (arg_blocks.h), the
// single definition of the layout both sides read. It unpacks the block into
// views, forwards to the core and returns the core's Status as an int.
#include <emscripten/bind.h>

#include <cstdint>
#include <cstring>

#include "raw.h"

namespace {

bool simd_enabled() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

// The blocks as this binary was compiled (see compiled_arg_blocks):
// tests/js/arg-blocks.test.js checks them against arg-blocks.js, so a stale or
// hand-edited build is caught. `out` is null to ask for the number of words.
std::uint32_t arg_block_layouts(attn_bindings::addr out) {
  if (out) attn_bindings::compiled_arg_blocks(reinterpret_cast<std::uint32_t*>(out));
  return attn_bindings::kArgBlockLayoutWords;
}

// The blocks' and fields' names, in the same order; `out` is null to ask for the length.
std::uint32_t arg_block_names(attn_bindings::addr out) {
  constexpr std::uint32_t length = sizeof attn_bindings::kArgBlockNames - 1;
  if (out) std::memcpy(reinterpret_cast<char*>(out), attn_bindings::kArgBlockNames, length);
  return length;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
  emscripten::function("_simdEnabled", &simd_enabled);
  emscripten::function("_argBlockLayouts", &arg_block_layouts);
  emscripten::function("_argBlockNames", &arg_block_names);
}
