#!/bin/sh
# The out-of-core WHT under an address-space limit (prlimit --as; the cgroup here is v1 and
# systemd-run --scope needs a systemd session, so RLIMIT_AS is what works everywhere) smaller
# than the file it transforms, with the memory budget decided from that limit (no --memory).
# The result must be byte-identical to the in-memory transform's (int32: exact).
#
# Sizes: the CLI's baseline address space (libraries, OpenMP, OpenBLAS's buffers, before any
# data) is about 310 MiB with FFTW and 700 MiB with MKL's libraries beside cuFFT (below about
# 700 MiB OpenBLAS's start-up then retried its allocations forever), so the limit is 960 MiB and
# the file 1 GiB (2^28 int32 values of 0 or 1, so that the transform stays in int32's own ring).
# Every run has a time limit: a hang fails the test instead of holding up the suite.
# Usage: out_of_core_memory_limit.sh FASTCONV
set -eu
fastconv=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
limit=$((960 * 1024 * 1024))
count=$((1 << 28))

python3 -c "
import os, sys
table = bytes(b & 1 for b in range(256))
with open(sys.argv[1], 'wb') as f:
    for _ in range(${count} // (1 << 22)):
        values = bytearray(4 << 22)
        values[0::4] = os.urandom(1 << 22).translate(table)
        f.write(values)
" "$dir/x.bin"
size=$(stat -c %s "$dir/x.bin")
[ "$size" -gt "$limit" ] || { echo "the file ($size bytes) is not larger than the limit ($limit)"; exit 1; }

# The in-memory transform refuses to start under the limit (it would hold the whole array):
# exit 1, saying what it needs and what is available, before allocating anything...
code=0
timeout 120 prlimit --as=$limit "$fastconv" wht --dtype int32 "$dir/x.bin" "$dir/mem.bin" 2>"$dir/err.txt" || code=$?
[ "$code" -eq 1 ] || { echo "the in-memory transform under the limit exited $code, not 1"; cat "$dir/err.txt"; exit 1; }
grep -Eq "^fastconv: error: .*x\.bin: reading 268435456 int32 values needs 1\.0 GiB, [0-9.]+ MiB available \(try --out-of-core, which reads float16/32/64 and int32/64 files\)$" \
  "$dir/err.txt" || { cat "$dir/err.txt"; exit 1; }
[ ! -e "$dir/mem.bin" ] || { echo "the refused run left an output file"; exit 1; }
# ...the out-of-core one succeeds...
timeout 300 prlimit --as=$limit "$fastconv" wht --out-of-core --dtype int32 "$dir/x.bin" "$dir/ooc.bin"
# ...and equals the in-memory result computed without a limit.
timeout 300 "$fastconv" wht --dtype int32 "$dir/x.bin" "$dir/mem.bin"
cmp "$dir/ooc.bin" "$dir/mem.bin"
echo "out-of-core WHT of a $size-byte file under a $limit-byte address-space limit: equal to the in-memory result"
