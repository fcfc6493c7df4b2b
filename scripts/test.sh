#!/usr/bin/env bash
# Builds fastconv (installing what is missing) and runs every test:
#   1. the GoogleTest suite (library, I/O, CLI) on the Release build;
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. `cmake --install`, then a separate project that uses find_package(fastconv) and one
#      built with pkg-config, against the installed tree.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

echo "== 1/3 Release build and tests"
bash scripts/setup.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== 2/3 AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
# (the CUDA sources are compiled by the Release build above; nvcc takes no sanitizer, so skip them here)
bash scripts/setup.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFASTCONV_SANITIZE=ON -DFASTCONV_BUILD_BENCH=OFF -DFASTCONV_CUDA=OFF
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== 3/3 Install, then consume with find_package and with pkg-config"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix" >/dev/null
"$prefix/bin/fastconv" --version
cmake -S tests/consumer -B "$prefix/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build"
"$prefix/consumer-build/consumer"
# shellcheck disable=SC2046
g++ -o "$prefix/consumer-pc" tests/consumer/main.cpp \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs fastconv) -Wl,-rpath,"$prefix/lib"
"$prefix/consumer-pc"
echo "== all tests passed"
