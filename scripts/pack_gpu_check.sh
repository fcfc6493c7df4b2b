#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh runs into one archive, for a GPU machine that has the CUDA
# toolkit and driver but none of the build's other dependencies (FFTW, OpenBLAS, M4RI, Open MPI,
# OpenCL's loader, ...):
#
#   bash scripts/pack_gpu_check.sh [BUILD_DIR [ARCHIVE]]     (defaults: build, build-gpu.tar.xz)
#
# The archive holds BUILD_DIR's test, CLI and benchmark programs and fastconv's libraries under
# their own paths (the tests find the CLI and their data by the absolute paths they were built
# with, so unpack it in a checkout at the same path), and in lib/ every other shared library
# they link except glibc's and the CUDA toolkit's. A build whose conv2d FFTs are Intel MKL's
# (scripts/setup.sh on Intel CPUs) also needs the kernel libraries MKL opens at run time for the
# CPU it finds, which no ldd lists: those for AVX-512 CPUs go in by default (the GPU machines
# lent here have had them; PACK_MKL_KERNELS="avx2 vml_avx2" names others, each lib from
# libmkl_<name>.so.*), about 18 MB more. On the GPU machine, in the checkout's root:
#
#   tar -xJf ARCHIVE && export LD_LIBRARY_PATH=$PWD/lib:<the toolkit's lib64> && bash scripts/gpu_check.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
archive=$(realpath -m "${2:-build-gpu.tar.xz}")
programs=("$build/tests/fastconv_tests" "$build/tools/fastconv/fastconv")
for p in fastconv_cuda_bench fastconv_conv2d_cudnn; do
  [[ -x $build/bench/$p ]] && programs+=("$build/bench/$p")
done
for p in "${programs[@]}"; do
  [[ -x $p ]] || { echo "pack_gpu_check: $p is missing: build $build first" >&2; exit 1; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
# Every resolved dependency outside BUILD_DIR, less glibc (the target's own must be used) and CUDA.
ldd "${programs[@]}" "$build"/src/libfastconv*.so.* 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
  sort -u | grep -vE '^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^ ]*)\.so|^libcu|^libnv|libfastconv' |
  while read -r name path; do cp -L "$path" "$stage/lib/$name"; done
if [[ -f $stage/lib/libmkl_core.so.3 ]]; then
  mkl_lib=$(dirname "$(ldd "$build"/src/libfastconv.so | awk '$1 == "libmkl_core.so.3" {print $3}')")
  for kernel in ${PACK_MKL_KERNELS:-avx512 vml_avx512}; do cp -L "$mkl_lib"/libmkl_"$kernel".so.* "$stage/lib/"; done
fi
tar -cJf "$archive" "${programs[@]}" "$build"/src/libfastconv*.so* -C "$stage" lib
echo "$archive: $(du -h "$archive" | cut -f1), $(find "$stage/lib" -type f | wc -l) libraries"
