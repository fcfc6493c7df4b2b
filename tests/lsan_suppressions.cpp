// tests/lsan_suppressions.cpp — what LeakSanitizer must not report in the test programs.
//
// PoCL 3.1 (Debian 12's pocl-opencl-icd): when its pthread device compiles a kernel that is not
// in its disk cache (~/.cache/pocl), a worker thread allocates 16 bytes in
// pocl_check_kernel_disk_cache that are never freed (once per process, however many kernels it
// compiles). With a cold cache the sanitizer build's tests that build OpenCL kernels then failed
// at exit, 27 of 512 ("Direct leak of 16 byte(s) … in pocl_check_kernel_disk_cache …
// libpocl-devices-pthread.so … start_thread"); with a warm one (scripts/test.sh's Release stage
// compiles them first) none did. The suppression names PoCL's library, not that function:
// LeakSanitizer's fast unwinder (the default) stops at the first frame in libpocl, which has no
// frame pointers, so the stack it keeps names only the module. What it lets through besides:
// allocations made inside PoCL, e.g. an OpenCL object we never released (the OpenCL C++
// bindings' handles release theirs); every allocation of ours is still checked.
//
// LeakSanitizer calls this hook itself, whichever way the program is run (ctest, by hand).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FASTCONV_TESTS_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FASTCONV_TESTS_LSAN 1
#endif

#ifdef FASTCONV_TESTS_LSAN
extern "C" const char* __lsan_default_suppressions() { return "leak:libpocl.so\n"; }
#endif
