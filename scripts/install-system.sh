#!/usr/bin/env bash
# The system packages attention-lab needs, installed with apt on Debian/Ubuntu.
# One list, shared by .ci/run and by `npm start` / `npm test` (scripts/setup.mjs).
# Usage: bash scripts/install-system.sh [--check] [start|test]
#   start    what `npm start` needs: the WebAssembly build (Emscripten, CMake)
#   test     what `npm test` needs: everything (the default; what CI installs)
#   --check  install nothing: print each missing package and what it provides
#            ("package<TAB>command or file"), one a line; nothing when all is there
# Only command and file checks run when nothing is missing; apt runs only to install.
set -euo pipefail

check=false
profile=test
for arg in "$@"; do
  case "$arg" in
    --check) check=true ;;
    start | test) profile="$arg" ;;
    *) echo "usage: bash scripts/install-system.sh [--check] [start|test]" >&2; exit 2 ;;
  esac
done

need=()      # apt packages to install
provides=()  # what each one provides, for the message
want() { need+=("$1"); provides+=("$2"); }

command -v em++ >/dev/null || want emscripten em++
command -v cmake >/dev/null || want cmake cmake
if [ "$profile" = test ]; then
  command -v chromium >/dev/null || want chromium chromium
  command -v wasm-dis >/dev/null || want binaryen wasm-dis
  command -v clang++ >/dev/null || want clang clang++
  # The e2e stage re-takes the README screenshots; pngquant keeps them as small as the committed ones.
  command -v pngquant >/dev/null || want pngquant pngquant
  # The FMA .wasm (relaxed SIMD): em++ drives clang 16 and its wasm-ld (scripts/fma-toolchain.mjs).
  command -v clang++-16 >/dev/null || want clang-16 clang++-16
  command -v wasm-ld-16 >/dev/null || want lld-16 wasm-ld-16
  [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || want libclang-rt-14-dev libFuzzer
  [ -e /usr/include/gtest/gtest.h ] || want libgtest-dev gtest/gtest.h
  [ -e /usr/include/benchmark/benchmark.h ] || want libbenchmark-dev benchmark/benchmark.h
  # A CJK font, so the Chinese pages render (and their screenshots show) real glyphs.
  fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" || want fonts-wqy-microhei "a CJK font"
fi
# Hugo (Debian's 0.111): the embedding tests build the Hugo shortcode from docs/embedding.md.
need_hugo=false
[ "$profile" != test ] || command -v hugo >/dev/null || need_hugo=true

if $check; then
  for i in "${!need[@]}"; do printf '%s\t%s\n' "${need[$i]}" "${provides[$i]}"; done
  if $need_hugo; then printf 'hugo\thugo\n'; fi
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Without its recommends (Go, ~100 MB, is not needed to run hugo).
if $need_hugo; then
  [ ${#need[@]} -gt 0 ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends hugo >/dev/null
fi
