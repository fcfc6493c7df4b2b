#!/usr/bin/env bash
# Builds fastconv (installing what is missing) and runs every test:
#   1. the GoogleTest suite (library, I/O, CLI, MPI, memory limits) on the Release build (GCC);
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer, built with Clang and
#      libFuzzer's instrumentation so that the same build also holds the fuzz targets;
#   3. the fuzz targets (tests/fuzz): each replays its corpus, then fuzzes for
#      FASTCONV_FUZZ_SECONDS (default here 10; longer runs: tests/fuzz/README.md) more;
#   4. the concurrency tests under ThreadSanitizer (Clang, with LLVM's OpenMP and its Archer
#      tool, which tells ThreadSanitizer about OpenMP's synchronisation);
#   5. `cmake --install`, then a separate project that uses find_package(fastconv) and one
#      built with pkg-config, against the installed tree;
#   6. the Python package: `pip install .` into a virtual environment under build/, then pytest;
#   7. on x86-64, the build for 64-bit Arm (the cpu kernels as NEON code) and its test suites under
#      user-mode QEMU (scripts/test-aarch64.sh, into build-aarch64/).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage() { echo "== $1 (at ${SECONDS} s)"; }
# ccache (stages 1 and 6) keeps its cache in the build directory, like everything else here.
export CCACHE_DIR="$PWD/build/ccache"
# The tests run $jobs at a time, each with an OpenMP team as large as the machine: a team's
# threads that wait for work between parallel regions should sleep, not spin on a core another
# test needs (LLVM's runtime spins 200 ms by default). On the 2-vCPU Zen 3 VM the 195-201 kernel,
# transform, S-box and dyadic tests took 49-52 s instead of 59-73 (Release) and 207 instead of
# 231 s (sanitizers).
export OMP_WAIT_POLICY=passive

stage "1/7 Release build and tests"
# Without a GPU the CUDA sources are compiled (and their tests skip): for one architecture, which
# takes nvcc half the time of the default three. With a GPU, the default architectures.
cuda_args=()
if ! nvidia-smi -L >/dev/null 2>&1; then cuda_args=(-DCMAKE_CUDA_ARCHITECTURES=90-real); fi
# Through ccache, so that the Python package's build (stage 6) takes the objects it compiles
# alike, the instruction sets' copies of the kernels above all, from this one.
bash scripts/setup.sh build "${cuda_args[@]}" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
# Stage 6's virtual environment, made meanwhile: pip mostly waits on downloads and the disk.
# Nothing global is touched: the build tools, NumPy, pytest and SciPy (the tests' reference)
# go into it, with JAX (CPU), whose arrays exercise the DLPack path and bfloat16 (PyTorch, 3 GB
# with its CUDA libraries, and CuPy are tested where installed; their tests say they were
# skipped otherwise).
(python3 -m venv build/venv &&
  exec build/venv/bin/python -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" numpy pytest scipy jax) \
  > build/venv.log 2>&1 &
venv_pid=$!
cleanup() { kill "$venv_pid" 2>/dev/null || true; }  # when a stage fails before stage 6 waits for it
trap cleanup EXIT
ctest --test-dir build --output-on-failure -j "$jobs"

# The cpu kernels are compiled once per instruction set and picked at run time (src/cpu/dispatch.cpp).
# The sanitizer builds below compile only the copies this CPU runs, as the Release build's
# `fastconv info` lists them (its cpu line, then "variants: portable, sse4, avx2 (default)"):
# stage 2 all of those (the tests run each), stage 4 the default. A copy the CPU cannot run
# (avx512 on an AVX2-only machine: 56 s of the sanitizer build's CPU there, and 21 s more for
# conv2d's AVX-512 loops, which are built with it) would only be compiled; the Release build
# above compiles every one. If the list cannot be read, the variables are empty and those
# builds take every copy.
cpu_info=$(build/tools/fastconv/fastconv info | sed -n '/^  cpu: /{p;n;p}')
runnable_isas=$(sed -n 's/^ *variants: //p' <<<"$cpu_info" | sed 's/ (default)//; s/, /;/g')
default_isa=$(sed -n 's/^  cpu: \([a-z0-9_]*\) variant.*/\1/p' <<<"$cpu_info")

stage "2/7 AddressSanitizer + UndefinedBehaviorSanitizer build (Clang, with the fuzz targets) and tests"
# (the CUDA sources are compiled by the Release build above; nvcc takes no sanitizer, so skip them here)
# Line tables are all the sanitizers' reports need, and build much faster than full debug info.
fuzz_seconds=${FASTCONV_FUZZ_SECONDS:-10}
# FFTW for conv2d's FFTs here, whatever the Release build took: on Intel CPUs, where that one
# has MKL (scripts/setup.sh), both FFT libraries are then built and tested in every run.
CC=clang CXX=clang++ bash scripts/setup.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFASTCONV_FFT=fftw \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DFASTCONV_SANITIZE=ON \
  -DFASTCONV_FUZZ=ON -DFASTCONV_FUZZ_SECONDS="$fuzz_seconds" -DFASTCONV_BUILD_BENCH=OFF -DFASTCONV_CUDA=OFF \
  -DFASTCONV_CPU_ISAS="$runnable_isas"
# intercept_tls_get_addr=0: LeakSanitizer does not track the dynamic TLS of dlopen()ed libraries.
# PoCL loads every compiled kernel as such a library, and at the exit of a process that had
# built many of them (DeviceTyped.DyadicOperationsUpTo20<double, OpenCl>: two variants × 21
# sizes × the pass kinds) LeakSanitizer's tracer crashed on a bogus dynamic-TLS range it had
# recorded ("DTLS 8 at 0x1d4f-0x800002e51", then "Tracer caught signal 11 … LeakSanitizer has
# encountered a fatal error"), every time, after the test had passed. Our libraries' own
# thread-locals are in static TLS, which LeakSanitizer still scans.
export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1
# The device tests "up to 2^20" stop at 2^17 here (the Release stage runs them to 2^20): 2^17 is
# the first size in two passes on PoCL (tiles of 2^16 floats), and larger sizes add only PoCL
# kernels (which AddressSanitizer does not see) on larger arrays. 146 s of this stage's CPU
# time, 49 s with the cap.
FASTCONV_DEVICE_TEST_MAX_LOG2N=17 ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE fuzz

stage "3/7 Fuzz targets: replay the corpora, then fuzz each for ${fuzz_seconds} s"
ctest --test-dir build-asan --output-on-failure -j "$jobs" -L fuzz
unset ASAN_OPTIONS UBSAN_OPTIONS

stage "4/7 ThreadSanitizer build of the concurrency tests"
# Of the cpu kernels' copies, only the default (and portable): the concurrency tests call no
# other; the rest cost this build about 45 s of CPU.
CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DFASTCONV_TSAN=ON -DFASTCONV_CPU_ISAS="$default_isa" \
  -DFASTCONV_CUDA=OFF -DFASTCONV_MPI=OFF -DFASTCONV_BUILD_BENCH=OFF -DFASTCONV_BUILD_CLI=OFF >/dev/null
cmake --build build-tsan -j "$jobs" --target fastconv_concurrency_tests
OMP_TOOL_LIBRARIES=$(clang -print-resource-dir)/../../libarcher.so \
  TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
  build-tsan/tests/fastconv_concurrency_tests

stage "5/7 Install, then consume with find_package and with pkg-config"
prefix=$(mktemp -d)
trap 'cleanup; rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix" >/dev/null
"$prefix/bin/fastconv" --version
cmake -S tests/consumer -B "$prefix/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build"
"$prefix/consumer-build/consumer"
# shellcheck disable=SC2046
g++ -o "$prefix/consumer-pc" tests/consumer/main.cpp \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs fastconv) -Wl,-rpath,"$prefix/lib"
"$prefix/consumer-pc"

stage "6/7 Python package: pip install . into build/venv, then pytest"
# The virtual environment made in the background during stage 1. No build isolation, so that
# build/python is reused.
if ! wait "$venv_pid"; then
  cat build/venv.log
  echo "test: making the virtual environment build/venv failed (above)" >&2
  exit 1
fi
venv_pid=  # reaped: nothing for cleanup() to stop
# The Release build's compiler, by the same name: ccache tells c++ from g++ even where they are one.
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/CMakeCache.txt)
ccache --zero-stats >/dev/null
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" build/venv/bin/python -m pip install -q --no-build-isolation -C build-dir=build/python \
  -C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache -C cmake.define.CMAKE_CXX_COMPILER="$cxx" .
echo "test: the Python package's compilations found in ccache:$(ccache --show-stats | grep -m1 'Hits:' | tr -s ' ' | cut -d: -f2)"
# Run from outside the source tree so that the installed package is the one imported. pytest
# exits 5 when it collects no test: that fails this script like any other failure.
(cd build && venv/bin/python -m pytest -q -rs ../tests/python)

stage "7/7 The 64-bit Arm build (NEON kernels), its tests under QEMU"
# About 9 minutes on 2 vCPUs (540 s on the Zen 3 VM, 2026-12-06), most of it the suites emulated.
if [ "$(uname -m)" = x86_64 ]; then
  bash scripts/test-aarch64.sh build-aarch64
else
  echo "test: skipped: this machine is not x86-64; stage 1 built and tested its own architecture"
fi
stage "all tests passed"
