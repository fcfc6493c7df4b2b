#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, in one run (docs/benchmarks.md, "The cuda backend"):
#   1. every test of fastconv_tests (the CUDA ones run against the reference backend; the rest
#      run as they do in CI), in parallel shards;
#   2. compute-sanitizer memcheck on the CUDA tests, racecheck and synccheck on the kernels that
#      exchange through shared memory (sizes up to 2^16: every pass shape of the `fast` kernels
#      below its third pass, in minutes rather than hours);
#   3. the benchmarks: fastconv_cuda_bench (the HBM bound table, dyadic convolution, every
#      variant), seed 004's Tables 2-3 (fastconv bench bikov), seed 001's Table 2 (fastconv bench
#      gajic) and polyhankel against cuDNN (fastconv_conv2d_cudnn).
#
#   bash scripts/gpu_check.sh [BUILD_DIR [LOG_DIR]]      (defaults: build, build/gpu-check)
#   GPU_CHECK_STEPS="tests tests-cuda sanitizer bench conv2d" (the default) picks the steps, and
#   GPU_CHECK_TIMEOUT (seconds, default 600) limits each program run.
#
# BUILD_DIR is a configured and built tree with the cuda backend (scripts/setup.sh, or cmake
# with nvcc on PATH; scripts/pack_gpu_check.sh carries one to a GPU machine without its
# dependencies). Each step writes LOG_DIR/<step>.log and prints one summary line; the exit
# status is 1 when any step failed (a timeout counts as a failure of that step).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
logs=${2:-$build/gpu-check}
steps=${GPU_CHECK_STEPS:-tests tests-cuda sanitizer bench conv2d}
t=${GPU_CHECK_TIMEOUT:-600}
mkdir -p "$logs"
tests=$build/tests/fastconv_tests
cli=$build/tools/fastconv/fastconv
status=0

# The CUDA tests: every case that opens the cuda backend or a device array.
cuda_filter='DeviceTyped/4.*:DeviceTyped/5.*:DeviceTyped/6.*:DeviceTyped/7.*:DeviceHalf/2.*:DeviceHalf/3.*'
cuda_filter+=':Backends/DeviceBackend.*/cuda:DeviceArray*:Conv2dCudaTest.*:Conv2dBackendTest.*:Cli.Conv2dOnCuda'
cuda_filter+=':Cli.CudaBackendWithoutAGpuSaysSo'
# The kernels with shared-memory exchanges (fast, nvidia-radix4, bikov's block kernels): racecheck
# and synccheck are slow, so only float and the 16-bit WHT.
race_filter='DeviceTyped/4.*:DeviceHalf/2.*:DeviceArrayWht/0.*'

step() { [[ " $steps " == *" $1 "* ]]; }
# GoogleTest's closing counts ("[  SKIPPED ] 41 tests."), summed over the log's runs.
count() { grep -hoE "^\[  $1 *\] [0-9]+ tests?[,.]" "$2" | awk '{s += $(NF - 1)} END {print s + 0}'; }
passed() { count PASSED "$1"; }
failed() { grep -cE '^\[  FAILED  \] [A-Za-z_].* \([0-9]+ ms\)$' "$1"; }  # one line per failed test
summary() { printf '%-10s %s\n' "$1" "$2"; }

"$cli" info > "$logs/info.log" 2>&1
summary info "$(grep -m1 -i 'cuda' "$logs/info.log" || echo 'no cuda line in fastconv info')"

if step tests; then
  # Every test, in parallel shards.
  shards=8
  for ((i = 0; i < shards; ++i)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i OMP_NUM_THREADS=2 \
      timeout "$t" "$tests" --gtest_brief=1 > "$logs/tests.$i.log" 2>&1 &
  done
  for ((i = 0; i < shards; ++i)); do wait -n || status=1; done
  cat "$logs"/tests.*.log > "$logs/tests.log" && rm -f "$logs"/tests.*.log
  summary tests "$(passed "$logs/tests.log") passed, $(failed "$logs/tests.log") failed, \
$(count SKIPPED "$logs/tests.log") skipped (all of fastconv_tests, $shards shards)"
fi

if step tests-cuda; then  # the CUDA cases by themselves: what ran on the GPU, and their skips
  OMP_NUM_THREADS=4 timeout "$t" "$tests" --gtest_brief=1 --gtest_filter="$cuda_filter" > "$logs/tests-cuda.log" 2>&1 || status=1
  summary tests-cuda "$(passed "$logs/tests-cuda.log") passed, $(failed "$logs/tests-cuda.log") failed, \
$(count SKIPPED "$logs/tests-cuda.log") skipped (the CUDA cases)"
fi

if step sanitizer; then
  if command -v compute-sanitizer > /dev/null; then
    run_tool() {  # tool filter timeout
      FASTCONV_DEVICE_TEST_MAX_LOG2N=16 timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 --print-limit 20 --target-processes all \
        "$tests" --gtest_brief=1 --gtest_filter="$2" > "$logs/sanitizer-$1.log" 2>&1
      local rc=$?
      echo "$rc" > "$logs/sanitizer-$1.rc"
      summary "$1" "rc=$rc; $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitizer-$1.log" || echo 'no summary (timed out?)')"
    }
    run_tool memcheck "$cuda_filter" "$t" &
    run_tool racecheck "$race_filter" "$t" &
    run_tool synccheck "$race_filter" "$t" &
    wait
    grep -qvx 0 "$logs"/sanitizer-*.rc && status=1
  else
    summary sanitizer "compute-sanitizer is not on PATH: not run"
    status=1
  fi
fi

if step bench; then
  timeout "$t" "$build/bench/fastconv_cuda_bench" > "$logs/cuda_bench.md" 2> "$logs/cuda_bench.err" || status=1
  summary cuda_bench "$(wc -l < "$logs/cuda_bench.md") lines; $(tail -1 "$logs/cuda_bench.err")"
  timeout "$t" "$cli" bench bikov --backend cuda > "$logs/bikov.md" 2>&1 || status=1
  summary bikov "$(wc -l < "$logs/bikov.md") lines"
  timeout "$t" "$cli" bench gajic --backend cuda --reference-max-n 20 > "$logs/gajic.md" 2>&1 || status=1
  summary gajic "$(wc -l < "$logs/gajic.md") lines"
fi

if step conv2d; then
  if [[ -x $build/bench/fastconv_conv2d_cudnn ]]; then
    timeout "$t" "$build/bench/fastconv_conv2d_cudnn" > "$logs/conv2d_cudnn.md" 2> "$logs/conv2d_cudnn.err" || status=1
    summary conv2d "$(grep -c '^|' "$logs/conv2d_cudnn.md") table lines; $(tail -1 "$logs/conv2d_cudnn.err")"
  else
    summary conv2d "fastconv_conv2d_cudnn was not built (no cuDNN): not run"
  fi
fi
exit $status
