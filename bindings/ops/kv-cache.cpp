// Raw calls of the KV-cache family (ops/kv-cache.js): one prefill or decode
// call against a cache whose planes live in a heap block of their own, and
// the work and memory formulas of kv_cache_cost.h.
#include <emscripten/bind.h>

#include "kv_cache.h"
#include "kv_cache_cost.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int kv_cache_forward(addr p) {
  const auto& a = block<KvCacheForwardArgs>(p);
  attn::KVCache cache{f32(a.keys), f32(a.values), a.batch, a.kvHeads, a.capacity, a.dK, a.dV, a.length};
  const attn::KVCacheRules rules{a.scale, a.softcap, a.window};
  const auto q = attn::heads_major(cf32(a.Q), a.batch, a.heads, a.n, a.dK);
  const auto k = attn::heads_major(cf32(a.K), a.batch, a.kvHeads, a.n, a.dK);
  const auto v = attn::heads_major(cf32(a.V), a.batch, a.kvHeads, a.n, a.dV);
  const auto out = attn::heads_major(f32(a.output), a.batch, a.heads, a.n, a.dV);
  return status(attn::kv_cache_forward(cache, rules, q, k, v, out, f32(a.weights), f32(a.scratch)));
}

double kv_cache_work(addr p) {
  const auto& a = block<KvCacheWorkArgs>(p);
  const attn::KVWork work = attn::kv_cache_work({a.batch, a.heads, a.dK, a.dV, a.window}, a.past, a.n);
  return a.withCache ? work.with_cache : work.without_cache;
}

double kv_cache_bytes(addr p) {
  const auto& a = block<KvCacheBytesArgs>(p);
  return attn::kv_cache_bytes(a.layers, a.batch, a.kvHeads, a.dK, a.dV, a.tokens, a.bytesPerValue);
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(kv_cache_ops) {
  using namespace attn_bindings;
  emscripten::function("_kvCacheForward", &kv_cache_forward);
  emscripten::function("_kvCacheWork", &kv_cache_work);
  emscripten::function("_kvCacheBytes", &kv_cache_bytes);
}
