#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.cpp) with ASan + UBSan, for
# both SIMD back ends of the native build: SSE (build/fuzz) and the plain
# scalar one that the scalar .wasm compiles (-DATTN_FORCE_SCALAR,
# build/fuzz-scalar). For each back end it replays the kept reproducers
# (tests/fuzz/regressions/<target>/), then fuzzes each target from its seed
# corpus (tests/fuzz/corpus/<target>/). Fails on any finding; prints the
# executions per target.
#
# Time: FUZZ_SECONDS (default 60) per target, split evenly between the back ends, which run
# side by side (one process each), so the stage's wall time is about half of it per target.
#
#   FUZZ_SECONDS=10 bash tests/fuzz/run.sh            # shorter local run
#   FUZZ_TARGETS="softmax nadaraya_watson" bash ...   # a subset
#   FUZZ_BACKENDS=sse bash tests/fuzz/run.sh          # one back end (sse or scalar)
#
# A crashing input is written to build/fuzz[-scalar]/artifacts/<target>/; replay it with
#   build/fuzz/fuzz_<target> FILE        (ATTN_FUZZ_DUMP=1 prints the decoded arguments)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

read -r -a backends <<<"${FUZZ_BACKENDS:-sse scalar}"
total=${FUZZ_SECONDS:-60}
seconds=$((total / ${#backends[@]}))
((seconds >= 1)) || seconds=1
cxx=${FUZZ_CXX:-clang++}

if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  targets=()
  for f in tests/fuzz/fuzz_*.cpp; do
    name=$(basename "${f%.cpp}")
    targets+=("${name#fuzz_}")
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
summary=()

# Builds the core and the targets for one back end into $out (incrementally).
build() {
  local out=$1
  shift
  local flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -ffp-contract=off -fno-exceptions
    -fsanitize=address,undefined -fno-sanitize-recover=all -Isrc -Itests/fuzz "$@")
  mkdir -p "$out/obj"
  local newest_header src obj bin t
  newest_header=$(ls -t src/*.h src/train/*.h | head -n1)
  objects=()
  for src in src/*.cpp src/train/*.cpp; do
    obj="$out/obj/$(basename "${src%.cpp}").o"
    objects+=("$obj")
    if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
      echo "fuzz: compiling $src ($out)"
      "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
    fi
  done
  for t in "${targets[@]}"; do
    bin="$out/fuzz_$t"
    src="tests/fuzz/fuzz_$t.cpp"
    if [[ ! -f "$bin" || "$src" -nt "$bin" || tests/fuzz/fuzz_common.h -nt "$bin" ]] ||
      [[ -n "$(find "$out/obj" -newer "$bin" -name '*.o' | head -n1)" ]]; then
      echo "fuzz: linking $bin"
      "$cxx" "${flags[@]}" -fsanitize=fuzzer "$src" "${objects[@]}" -o "$bin"
    fi
  done
}

# Every kept reproducer must pass (a failure is reported, and fuzzing still runs).
replay() {
  local out=$1 backend=$2 t dir input
  for t in "${targets[@]}"; do
    dir="tests/fuzz/regressions/$t"
    [[ -d "$dir" ]] && [[ -n "$(ls -A "$dir")" ]] || continue
    for input in "$dir"/*; do
      if ! "$out/fuzz_$t" "$input" >"$out/regression.log" 2>&1; then
        grep -v '^ *#' "$out/regression.log" | tail -n 25
        echo "fuzz: kept reproducer $input fails ($backend)" >&2
        status=1
      fi
    done
    echo "fuzz: replayed $(ls "$dir" | wc -l) reproducer(s) for $t ($backend)"
  done
}

# Fuzz each target for a bounded time.
fuzz() {
  local out=$1 backend=$2 t work artifacts log result execs cov
  for t in "${targets[@]}"; do
    work="$out/corpus/$t"
    artifacts="$out/artifacts/$t/"
    mkdir -p "$work" "$artifacts"
    log="$out/fuzz-$t.log"
    echo "fuzz: $t ($backend) for ${seconds}s"
    if "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
      result=ok
    else
      result=FAILED
      status=1
      grep -v '^ *#' "$log" | tail -n 40
      echo "fuzz: $t ($backend) found a bug; the input is in $artifacts" >&2
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*' || true)
    summary+=("$(printf '%-20s %-7s %-7s %12s executions  %6s edges' "$t" "$backend" "$result" "${execs:-?}" "${cov:-?}")")
  done
}

# One back end: build, replay the kept reproducers, fuzz; its summary lines go to $out/summary.txt.
run_backend() {
  local backend=$1 out
  case "$backend" in
    sse) out=build/fuzz && build "$out" ;;
    scalar) out=build/fuzz-scalar && build "$out" -DATTN_FORCE_SCALAR ;;
    *) echo "fuzz: unknown back end $backend (sse or scalar)" >&2 && return 2 ;;
  esac
  replay "$out" "$backend"
  fuzz "$out" "$backend"
  printf '  %s\n' "${summary[@]}" >"$out/summary.txt"
  return $status
}

# The back ends run side by side, one core each (each fuzzer is one process), so the stage takes
# half the wall time for the same executions. Each one's output is kept in build/fuzz-<back end>.log
# and printed once both are done.
mkdir -p build
rm -f build/fuzz/summary.txt build/fuzz-scalar/summary.txt  # a back end that stops early leaves none
pids=()
for backend in "${backends[@]}"; do
  run_backend "$backend" >"build/fuzz-$backend.log" 2>&1 &
  pids+=("$!")
done
for i in "${!backends[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "build/fuzz-${backends[$i]}.log"
done

echo
echo "fuzz summary (${seconds}s per target and back end, the back ends side by side):"
for backend in "${backends[@]}"; do
  case "$backend" in
    sse) cat build/fuzz/summary.txt 2>/dev/null || echo "  $backend: no summary" ;;
    scalar) cat build/fuzz-scalar/summary.txt 2>/dev/null || echo "  $backend: no summary" ;;
  esac
done
exit $status
