#include "kv_cache.h"

#include <cstring>

namespace attn {
namespace {

bool fits(const KVCache& c, const HeadTensor& k, const HeadTensor& v) {
  return k.batch == c.batch && v.batch == c.batch && k.heads == c.kv_heads && v.heads == c.kv_heads &&
         k.cols == c.d_k && v.cols == c.d_v && k.rows == v.rows;
}

// Rows of `fresh` into rows at … at + fresh.rows − 1 of a plane of `capacity` rows per head.
void write_rows(float* plane, std::size_t capacity, std::size_t at, const HeadTensor& fresh) {
  const std::size_t width = fresh.cols;
  if (width == 0) return;  // nothing to copy (and the plane may be empty, with no data)
  for (std::size_t b = 0; b < fresh.batch; ++b)
    for (std::size_t g = 0; g < fresh.heads; ++g) {
      float* dst = plane + ((b * fresh.heads + g) * capacity + at) * width;
      const ConstMatrixView src = fresh.head(b, g);
      for (std::size_t i = 0; i < fresh.rows; ++i) std::memcpy(dst + i * width, src.row(i), width * sizeof(float));
    }
}

}  // namespace

Status kv_cache_append(KVCache& cache, const HeadTensor& k, const HeadTensor& v) {
  if (!fits(cache, k, v)) return Status::shape_mismatch;
  if (cache.length > cache.capacity || k.rows > cache.capacity - cache.length) return Status::bad_argument;
  const std::size_t rows = cache.batch * cache.kv_heads * cache.capacity;  // a plane may be empty, never missing
  if ((rows * cache.d_k > 0 && !cache.keys) || (rows * cache.d_v > 0 && !cache.values)) return Status::bad_argument;
  write_rows(cache.keys, cache.capacity, cache.length, k);
  write_rows(cache.values, cache.capacity, cache.length, v);
  cache.length += k.rows;
  return Status::ok;
}

Status kv_cache_forward(KVCache& cache, const KVCacheRules& rules, const HeadTensor& q, const HeadTensor& k,
                        const HeadTensor& v, const MutHeadTensor& out, float* weights, float* scratch) {
  // 1. every check before anything is written: q against the cache, the rules
  if (q.batch != cache.batch || q.cols != cache.d_k || q.rows != k.rows) return Status::shape_mismatch;
  if (cache.kv_heads == 0 || q.heads % cache.kv_heads != 0) return Status::shape_mismatch;
  if (out.batch != q.batch || out.heads != q.heads || out.rows != q.rows || out.cols != cache.d_v)
    return Status::shape_mismatch;
  ScoreRules score;
  score.scale = rules.scale;
  score.softcap = rules.softcap;
  score.causal = true;
  score.causal_offset = static_cast<std::int32_t>(cache.length);  // bottom-right: new query i is token length + i
  score.window = rules.window;
  if (Status s = check_rules(score, q.batch, cache.length + k.rows); s != Status::ok) return s;
  if (!weights && !scratch) return Status::bad_argument;
  // 2. append the new keys and values, 3. attend over all cached rows
  if (Status s = kv_cache_append(cache, k, v); s != Status::ok) return s;
  const Status s = weights ? batched_attention(q, cache.cached_keys(), cache.cached_values(), score, out, weights, nullptr)
                           : batched_fused_attention(q, cache.cached_keys(), cache.cached_values(), score, out, scratch);
  if (s != Status::ok) cache.length -= k.rows;  // (not reached: checked above) a refused call leaves no token behind
  return s;
}

}  // namespace attn
