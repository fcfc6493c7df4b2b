#!/usr/bin/env bash
# Installs what fastconv needs (Debian 12; apt-get, as root or through sudo) and builds it.
# Usage: scripts/setup.sh [BUILD_DIR [CMAKE_ARGS...]]   (default BUILD_DIR: build)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libhwy-dev libcli11-dev libgtest-dev libbenchmark-dev
          libm4ri-dev libfftw3-dev libopenblas-dev
          libopenblas-openmp-dev libopenblas-pthread-dev nlohmann-json3-dev python3-dev python3-venv libopenmpi-dev openmpi-bin
          ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd
          clang libclang-rt-14-dev libomp-dev  # the tests' sanitizer, libFuzzer and ThreadSanitizer builds
          ccache)  # scripts/test.sh: the Python package's build reuses the Release build's kernels
bash scripts/apt-install.sh "${packages[@]}"

build_dir=${1:-build}
shift || true

# conv2d's FFT library (src/CMakeLists.txt, FASTCONV_FFT): Intel MKL on Intel x86-64 CPUs,
# where its FFTs ran 2-3x faster than Debian's FFTW (no AVX-512 codelets; docs/benchmarks.md),
# installed from PyPI (mkl-devel) into .deps/mkl; FFTW elsewhere, and wherever MKL cannot be
# installed. FASTCONV_FFT=fftw or mkl in the environment, or -DFASTCONV_FFT=... among the CMake
# arguments, decides instead.
fft_args=()
if [[ " $* " != *" -DFASTCONV_FFT="* ]]; then
  fft=${FASTCONV_FFT:-auto}
  if [ "$fft" = auto ]; then
    fft=fftw
    if [ "$(uname -m)" = x86_64 ] && grep -q -m1 'GenuineIntel' /proc/cpuinfo; then fft=mkl; fi
  fi
  mkl=$PWD/.deps/mkl
  if [ "$fft" = mkl ] && [ ! -f "$mkl/include/mkl_dfti.h" ]; then
    echo "setup: installing Intel MKL (PyPI's mkl-devel) into $mkl for conv2d's FFTs"
    if ! { python3 -m venv "$mkl" && "$mkl/bin/python" -m pip install -q "mkl-devel==2026.2.0"; }; then
      echo "setup: could not install MKL; conv2d's FFTs use FFTW"
      fft=fftw
    fi
  fi
  fft_args=(-DFASTCONV_FFT="$fft")
  if [ "$fft" = mkl ]; then fft_args+=(-DFASTCONV_MKL_ROOT="$mkl"); fi
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${fft_args[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
