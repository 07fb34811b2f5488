// A KV cache: the keys and values of every token seen so far, kept so that a
// decoder attends a new token's query to them instead of recomputing the
// whole prefix. Two caller-owned planes of `capacity` rows per key/value head:
//   keys   [batch, kv_heads, capacity, d_k]      rows 0 … length − 1 filled
//   values [batch, kv_heads, capacity, d_v]
// A call appends n new tokens (rows length … length + n − 1) and attends the
// n new queries to all length + n cached rows, causal bottom-right: new query
// i sits at position length + i and sees keys j ≤ length + i (and, with a
// window w, only the last w of those). The attention itself is
// batched_attention / batched_fused_attention over views of the planes.
#pragma once

#include <cstddef>

#include "batched_attention.h"
#include "head_tensor.h"
#include "status.h"

namespace attn {

struct KVCache {
  float* keys = nullptr;
  float* values = nullptr;
  std::size_t batch = 0, kv_heads = 0, capacity = 0, d_k = 0, d_v = 0;
  std::size_t length = 0;  // tokens cached

  // The filled rows as [batch, kv_heads, length, width] (a head's rows are `capacity` apart).
  HeadTensor cached_keys() const { return view(keys, d_k); }
  HeadTensor cached_values() const { return view(values, d_v); }

 private:
  HeadTensor view(const float* plane, std::size_t width) const {
    return {plane, batch, kv_heads, length, width, kv_heads * capacity * width, capacity * width, width};
  }
};

// The score rules of a cache, fixed when it is created.
struct KVCacheRules {
  float scale = 1.0f;
  float softcap = 0.0f;     // 0: none
  std::uint32_t window = 0;  // 0: none
};

// Writes k [batch, kv_heads, n, d_k] and v [batch, kv_heads, n, d_v] into rows
// length … length + n − 1 and advances length. Refused (nothing written) when
// the shapes disagree with the cache or length + n > capacity.
Status kv_cache_append(KVCache& cache, const HeadTensor& k, const HeadTensor& v);

// One prefill or decode call: appends k, v (as kv_cache_append), then attends
// q [batch, heads, n, d_k] to every cached row into out [batch, heads, n, d_v].
// weights (dense [batch, heads, n, length + n]) keeps the weights; null takes
// the fused path with `scratch` (batched_fused_scratch_floats(d_v) floats).
// On any refusal nothing is written and length is unchanged.
Status kv_cache_forward(KVCache& cache, const KVCacheRules& rules, const HeadTensor& q, const HeadTensor& k,
                        const HeadTensor& v, const MutHeadTensor& out, float* weights, float* scratch);

}  // namespace attn
