#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.cpp) with ASan + UBSan into
# build/fuzz, replays the kept reproducers (tests/fuzz/regressions/<target>/),
# then fuzzes each target for FUZZ_SECONDS (default 60) starting from its seed
# corpus (tests/fuzz/corpus/<target>/). Fails on any finding; prints the
# executions per target.
#
#   FUZZ_SECONDS=10 bash tests/fuzz/run.sh            # shorter local run
#   FUZZ_TARGETS="softmax nadaraya_watson" bash ...   # a subset
#   FUZZ_SCALAR=1 bash tests/fuzz/run.sh              # the scalar back end (-DATTN_FORCE_SCALAR)
#
# A crashing input is written to build/fuzz/artifacts/<target>/; replay it with
#   build/fuzz/fuzz_<target> <file>
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

seconds=${FUZZ_SECONDS:-60}
cxx=${FUZZ_CXX:-clang++}
out=build/fuzz
variant_flags=()
if [[ "${FUZZ_SCALAR:-0}" == 1 ]]; then
  out=build/fuzz-scalar
  variant_flags=(-DATTN_FORCE_SCALAR)
fi

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -ffp-contract=off -fno-exceptions
  -fsanitize=address,undefined -fno-sanitize-recover=all -Isrc -Itests/fuzz "${variant_flags[@]}")

mkdir -p "$out/obj"

# 1. the core, once, instrumented for coverage (rebuilt when a source or header changed)
newest_header=$(ls -t src/*.h | head -n1)
objects=()
for src in src/*.cpp; do
  obj="$out/obj/$(basename "${src%.cpp}").o"
  objects+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
    echo "fuzz: compiling $src"
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
done

# 2. the targets
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  targets=()
  for f in tests/fuzz/fuzz_*.cpp; do
    name=$(basename "${f%.cpp}")
    targets+=("${name#fuzz_}")
  done
fi
for t in "${targets[@]}"; do
  bin="$out/fuzz_$t"
  src="tests/fuzz/fuzz_$t.cpp"
  if [[ ! -f "$bin" || "$src" -nt "$bin" || tests/fuzz/fuzz_common.h -nt "$bin" || "${objects[0]}" -nt "$bin" ]] ||
    [[ -n "$(find "$out/obj" -newer "$bin" -name '*.o' | head -n1)" ]]; then
    echo "fuzz: linking $bin"
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "$src" "${objects[@]}" -o "$bin"
  fi
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# 3. every kept reproducer must now pass (a failure is reported, and fuzzing still runs)
status=0
for t in "${targets[@]}"; do
  dir="tests/fuzz/regressions/$t"
  if [[ -d "$dir" ]] && [[ -n "$(ls -A "$dir")" ]]; then
    for input in "$dir"/*; do
      if ! "$out/fuzz_$t" "$input" >"$out/regression.log" 2>&1; then
        grep -v '^ *#' "$out/regression.log" | tail -n 25
        echo "fuzz: kept reproducer $input fails" >&2
        status=1
      fi
    done
    echo "fuzz: replayed $(ls "$dir" | wc -l) reproducer(s) for $t"
  fi
done

# 4. fuzz each target for a bounded time
summary=()
for t in "${targets[@]}"; do
  work="$out/corpus/$t"
  artifacts="$out/artifacts/$t/"
  mkdir -p "$work" "$artifacts"
  seeds="tests/fuzz/corpus/$t"
  log="$out/fuzz-$t.log"
  echo "fuzz: $t for ${seconds}s"
  if "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "$seeds" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
    tail -n 60 "$log"
    echo "fuzz: $t found a bug; the input is in $artifacts" >&2
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*' || true)
  summary+=("$(printf '%-24s %-7s %12s executions  %6s edges' "$t" "$result" "${execs:-?}" "${cov:-?}")")
done

echo
echo "fuzz summary (${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
exit $status
