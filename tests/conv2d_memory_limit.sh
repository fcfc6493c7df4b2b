#!/bin/sh
# conv2d under an address-space limit (prlimit --as, as in out_of_core_memory_limit.sh) that
# holds the output but not fft2d's work space. fft2d is refused before it allocates anything:
# exit 1, saying what it needs and what is available, and no output file. auto leaves fft2d
# (and whatever else does not fit) out of its race and computes the convolution, within
# rounding of direct's without a limit. Before, fft2d on a shape whose work space exceeded the
# machine's memory was ended by the OOM killer (`--padding 20000`: after 33 s, at 24 GB).
#
# Sizes: one 4x4 image and one 3x3 filter, float32, padding 4000 on every side: the output is
# 8002x8002 values (256 MB); fft2d's work space for FFTs of 8064x8064 points on 2 threads is
# 2.2 GiB. The
# limit is 1.5 GiB: the CLI's baseline address space is about 310 MiB with FFTW and 700 MiB
# with MKL's libraries beside cuFFT (out_of_core_memory_limit.sh). Python's standard library
# alone writes and reads the .npy files. Every run has a time limit.
# Usage: conv2d_memory_limit.sh FASTCONV
set -eu
fastconv=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
limit=$((1536 * 1024 * 1024))
padding=4000

python3 - "$dir" <<'EOF'
import struct, sys
def save(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
save(sys.argv[1] + "/x.npy", (1, 1, 4, 4), [i / 8 for i in range(16)])
save(sys.argv[1] + "/w.npy", (1, 1, 3, 3), [i - 4 for i in range(9)])
EOF

code=0
timeout 120 prlimit --as=$limit "$fastconv" conv2d "$dir/x.npy" "$dir/w.npy" "$dir/fft2d.npy" --padding $padding \
  --algorithm fft2d --threads 2 2>"$dir/err.txt" || code=$?
[ "$code" -eq 1 ] || { echo "fft2d under the limit exited $code, not 1"; cat "$dir/err.txt"; exit 1; }
grep -Eq '^fastconv: error: conv2d fft2d: its work space for FFTs of [0-9]+x[0-9]+ points needs [0-9.]+ GiB, [0-9.]+ (MiB|GiB) available: give it smaller inputs or sizes, or run it where more memory is free$' \
  "$dir/err.txt" || { cat "$dir/err.txt"; exit 1; }
[ ! -e "$dir/fft2d.npy" ] || { echo "the refused run left an output file"; exit 1; }

timeout 300 prlimit --as=$limit "$fastconv" conv2d "$dir/x.npy" "$dir/w.npy" "$dir/auto.npy" --padding $padding \
  --show-algorithm 2>"$dir/auto.txt" || { cat "$dir/auto.txt"; exit 1; }
grep -Eq '^fastconv: conv2d algorithm: (direct|im2col_gemm|winograd|polyhankel)$' "$dir/auto.txt" \
  || { cat "$dir/auto.txt"; exit 1; }
timeout 300 "$fastconv" conv2d "$dir/x.npy" "$dir/w.npy" "$dir/direct.npy" --padding $padding --algorithm direct

python3 - "$dir" <<'EOF'
import array, struct, sys
def load(path):
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    assert "'<f4'" in header and "(1, 1, 8002, 8002)" in header, header
    values = array.array("f")
    values.frombytes(data[10 + length:])
    return values
auto, direct = load(sys.argv[1] + "/auto.npy"), load(sys.argv[1] + "/direct.npy")
# Each output is a sum of at most 9 products of values up to 1.875 and 4: 67.5 at most.
worst = max(abs(a - d) for a, d in zip(auto, direct))
assert len(auto) == len(direct) == 8002 * 8002 and worst <= 1e-4, (len(auto), worst)
assert any(d != 0 for d in direct)
EOF
echo "conv2d under a $limit-byte address-space limit: fft2d refused, auto ($(cut -d' ' -f4 "$dir/auto.txt")) equal to direct"
