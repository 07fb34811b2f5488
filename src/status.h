// How the core reports a failure: a status code, never an exception or an
// abort. The JS layer validates first and turns any non-ok status that still
// slips through into an AttentionError; the fuzzers rely on the core checking
// its own arguments.
#pragma once

namespace attn {

enum class Status : int {
  ok = 0,
  shape_mismatch = 1,   // two arguments' sizes disagree
  bad_argument = 2,     // a value outside its domain (bandwidth <= 0, unknown kernel, ...)
  bad_mask = 3,         // mask kind unknown, or mask data of the wrong size
};

inline const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::shape_mismatch: return "shape_mismatch";
    case Status::bad_argument: return "bad_argument";
    case Status::bad_mask: return "bad_mask";
  }
  return "unknown";
}

}  // namespace attn
