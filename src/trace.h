// A trace: where a call writes the intermediates a learner wants to see.
// Each pointer is an n×m row-major buffer owned by the caller; a null pointer
// means "not asked for" and costs nothing. The weights and the output are not
// here: every call returns them.
#pragma once

namespace attn {

struct AttentionTrace {
  float* scores = nullptr;  // raw scores: QKᵀ for dot-product, w_vᵀtanh(…) for additive
  float* scaled = nullptr;  // scores × scale (dot-product only)
  float* masked = nullptr;  // the mask applied: masked entries hold -FLT_MAX (only with a mask)
};

}  // namespace attn
