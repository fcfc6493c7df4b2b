#!/usr/bin/env bash
# tests/fuzz/run_fuzz.sh — how ctest runs a fuzz target (tests/fuzz/CMakeLists.txt):
#   run_fuzz.sh replay FUZZER CORPUS REGRESSIONS [LIBFUZZER_FLAGS...]
#       runs every input of CORPUS and REGRESSIONS once;
#   run_fuzz.sh fuzz FUZZER CORPUS REGRESSIONS WORKDIR SECONDS DICT [LIBFUZZER_FLAGS...]
#       fuzzes for SECONDS from those inputs (DICT: a dictionary, or ""); new inputs go to
#       WORKDIR/corpus, a crashing input to WORKDIR/artifacts (libFuzzer writes to its first
#       corpus directory only, so CORPUS and REGRESSIONS are never written).
# A crash, a sanitizer report, a leak, a timeout, an out-of-memory (a single allocation over
# -malloc_limit_mb included) or a failed check fails the run.
set -euo pipefail
# Paths are made absolute: the CLI's targets run each input in a scratch directory.
absolute() { if [[ $1 = /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
mode=$1 fuzzer=$(absolute "$2") corpus=$(absolute "$3") regressions=$(absolute "$4")
shift 4
dirs=()
for dir in "$corpus" "$regressions"; do
  if [ -d "$dir" ]; then dirs+=("$dir"); fi
done
limits=(-rss_limit_mb=2048 -timeout=10)
case $mode in
  replay)
    find "${dirs[@]}" -type f -print0 | sort -z | xargs -0 -r "$fuzzer" "${limits[@]}" "$@"
    ;;
  fuzz)
    work=$(absolute "$1") seconds=$2 dict=$3
    shift 3
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    args=("${limits[@]}" "$@" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/")
    if [ -n "$dict" ]; then args+=(-dict="$(absolute "$dict")"); fi
    cd "$work"
    "$fuzzer" "${args[@]}" "$work/corpus" "${dirs[@]}"
    ;;
  *)
    echo "run_fuzz.sh: unknown mode '$mode' (replay or fuzz)" >&2
    exit 2
    ;;
esac
