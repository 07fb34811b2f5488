#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz/fuzz_*.cpp) under ASan + UBSan, for both SIMD back ends of the
# native build: SSE and the plain scalar one that the scalar .wasm compiles (-DATTN_FORCE_SCALAR).
# They are built by CMake in the sanitized build (build/sanitize, -DATTN_FUZZ=ON: the targets link
# the same instrumented core libraries the sanitized GoogleTest run uses), as
# build/sanitize/fuzz-<back end>/fuzz_<target>. The back ends run side by side, one core each.
#
# Two modes:
#   bash tests/fuzz/run.sh            the test stage (npm test, CI): reproducible. Every kept
#                                     reproducer (tests/fuzz/regressions/<target>/) is replayed, then
#                                     each target reads its kept corpus (tests/fuzz/corpus/<target>/)
#                                     and runs FUZZ_RUNS (default 8000) mutations from -seed=1.
#                                     The same commit runs the same inputs every time.
#   bash tests/fuzz/run.sh --explore  open-ended fuzzing (npm run fuzz): FUZZ_SECONDS (default 60)
#                                     per target and back end, a new random seed each run. A crash
#                                     is copied into tests/fuzz/regressions/<target>/, where the test
#                                     stage replays it from then on: fix the defect, commit both.
#
#   FUZZ_TARGETS="softmax nadaraya_watson" bash tests/fuzz/run.sh   # a subset
#   FUZZ_BACKENDS=sse bash tests/fuzz/run.sh                        # one back end (sse or scalar)
#
# A failing input is written to build/sanitize/fuzz-<back end>/artifacts/<target>/; replay it with
#   build/sanitize/fuzz-sse/fuzz_<target> FILE     (ATTN_FUZZ_DUMP=1 prints the decoded arguments)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

explore=false
[[ "${1:-}" == "--explore" ]] && explore=true
read -r -a backends <<<"${FUZZ_BACKENDS:-sse scalar}"
runs=${FUZZ_RUNS:-8000}
seconds=${FUZZ_SECONDS:-60}
build=build/sanitize

if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  targets=()
  for f in tests/fuzz/fuzz_*.cpp; do
    name=$(basename "${f%.cpp}")
    targets+=("${name#fuzz_}")
  done
fi

# The sanitized build with the fuzz targets (incremental; npm test's sanitize stage made it already).
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DATTN_SANITIZE=ON -DATTN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ ${CI:+-DATTN_WERROR=ON} >/dev/null
elif ! grep -q '^ATTN_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake "$build" -DATTN_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j 2 >"$build/fuzz-build.log" 2>&1 || { tail -n 40 "$build/fuzz-build.log"; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Every kept reproducer must pass (a failure is reported, and fuzzing still runs).
replay() {
  local out=$1 backend=$2 t dir input status=0
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
  return $status
}

# Each target from its kept corpus: a fixed number of runs from seed 1, or (--explore) for a time.
fuzz() {
  local out=$1 backend=$2 t work artifacts log result execs cov status=0 budget
  if $explore; then budget=(-max_total_time="$seconds"); else budget=(-seed=1 -runs="$runs"); fi
  for t in "${targets[@]}"; do
    # New inputs go to a work folder, emptied first so that a run starts from the kept corpus only.
    work="$out/corpus/$t"
    artifacts="$out/artifacts/$t/"
    rm -rf "$work"
    mkdir -p "$work" "$artifacts"
    log="$out/fuzz-$t.log"
    if "$out/fuzz_$t" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
      result=ok
    else
      result=FAILED
      status=1
      grep -v '^ *#' "$log" | tail -n 40
      echo "fuzz: $t ($backend) found a bug; the input is in $artifacts" >&2
      if $explore; then
        mkdir -p "tests/fuzz/regressions/$t"
        cp "$artifacts"* "tests/fuzz/regressions/$t/" 2>/dev/null &&
          echo "fuzz: kept in tests/fuzz/regressions/$t/ (the test stage replays it): fix the defect, commit both" >&2
      fi
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*' || true)
    printf '  %-20s %-7s %-7s %12s executions  %6s edges\n' "$t" "$backend" "$result" "${execs:-?}" "${cov:-?}" >>"$out/summary.txt"
  done
  return $status
}

# One back end: replay the kept reproducers, then fuzz; its summary lines go to summary.txt.
run_backend() {
  local backend=$1 out status=0
  case "$backend" in
    sse | scalar) out="$build/fuzz-$backend" ;;
    *) echo "fuzz: unknown back end $backend (sse or scalar)" >&2 && return 2 ;;
  esac
  rm -f "$out/summary.txt"
  replay "$out" "$backend" || status=1
  fuzz "$out" "$backend" || status=1
  return $status
}

status=0
pids=()
for backend in "${backends[@]}"; do
  run_backend "$backend" >"$build/fuzz-$backend.log" 2>&1 &
  pids+=("$!")
done
for i in "${!backends[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$build/fuzz-${backends[$i]}.log"
done

echo
if $explore; then echo "fuzz summary (${seconds}s per target and back end, random seeds):"
else echo "fuzz summary ($runs runs per target and back end from seed 1, after the kept corpus):"; fi
for backend in "${backends[@]}"; do
  cat "$build/fuzz-$backend/summary.txt" 2>/dev/null || echo "  $backend: no summary"
done
exit $status
