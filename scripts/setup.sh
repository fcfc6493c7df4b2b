#!/usr/bin/env bash
# Installs what fastconv needs (Debian 12; apt-get, as root or through sudo) and builds it.
# Usage: scripts/setup.sh [BUILD_DIR [CMAKE_ARGS...]]   (default BUILD_DIR: build)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libhwy-dev libcli11-dev libgtest-dev libbenchmark-dev
          libm4ri-dev libfftw3-dev libopenblas-dev
          libopenblas-openmp-dev libopenblas-pthread-dev nlohmann-json3-dev python3-dev python3-venv libopenmpi-dev openmpi-bin
          ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd
          clang libclang-rt-14-dev libomp-dev)  # the tests' sanitizer, libFuzzer and ThreadSanitizer builds
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${1:-build}
shift || true
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
