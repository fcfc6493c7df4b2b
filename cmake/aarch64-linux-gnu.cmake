# Cross-compiling fastconv for 64-bit Arm (scripts/test-aarch64.sh): Debian's aarch64-linux-gnu
# GCC, and Debian's arm64 library packages unpacked (not installed) into a sysroot named by the
# environment variable FASTCONV_AARCH64_SYSROOT. Programs the build runs (GoogleTest's test
# discovery) and ctest's tests run under user-mode QEMU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT DEFINED ENV{FASTCONV_AARCH64_SYSROOT})
  message(FATAL_ERROR "FASTCONV_AARCH64_SYSROOT: set it to the arm64 sysroot (scripts/test-aarch64.sh makes one)")
endif()
set(sysroot $ENV{FASTCONV_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH ${sysroot} /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (the host's) reads only the sysroot's .pc files and puts the sysroot before their
# paths. OpenBLAS's OpenMP build first, the one src/CMakeLists.txt takes with GCC natively
# (Debian's plain openblas.pc is an alternatives link, which unpacking does not make).
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${sysroot})
set(ENV{PKG_CONFIG_LIBDIR} "${sysroot}/usr/lib/aarch64-linux-gnu/openblas-openmp/pkgconfig:${sysroot}/usr/lib/aarch64-linux-gnu/pkgconfig:${sysroot}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Where the linker finds the sysroot libraries' own dependencies (libgfortran, libpng, libgomp).
set(rpath_link "-Wl,-rpath-link,${sysroot}/usr/lib/aarch64-linux-gnu:${sysroot}/lib/aarch64-linux-gnu:${sysroot}/usr/lib/aarch64-linux-gnu/openblas-openmp")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${rpath_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${rpath_link}")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${sysroot})
