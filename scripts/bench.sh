#!/usr/bin/env bash
# Builds fastconv (scripts/setup.sh: installs what is missing, then builds build/) and runs the
# Google Benchmark program build/bench/fastconv_bench. Arguments go to the program.
# Usage: bash scripts/bench.sh [--quick] [fastconv_bench flags...]
#   --quick   a smoke run: sizes up to 2^16, the reference backend up to 2^12, 0.01 s per case
# The comparison with FFHT is a separate script: bash bench/compare_ffht.sh (see bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
if [[ ${1:-} == --quick ]]; then
  quick=(--fastconv_max_log2n=16 --fastconv_reference_max_log2n=12 --benchmark_min_time=0.01)
  shift
fi
bash scripts/setup.sh build
exec build/bench/fastconv_bench "${quick[@]}" "$@"
