"""Per-call cost of the Python package on small inputs, beside the extension's own entry point
(what the C++ side costs) and NumPy's FFT of the same length (a well-kept library's per-call
cost), in one run. Prints a Markdown table: microseconds per call, best of 7 repeats. With
--batches, a second table: wht of 2-D arrays of short rows (float32, float16, int32; natural
and sequency order), a new array and in place, ms per call.

    build/venv/bin/python bench/python_overhead.py [--log2n 10] [--batches]

The time above the binding's is the wrapper's own: argument checks, dtype dispatch, the copy
that keeps the input (wht(x) returns a new array; wht(x, out=x) works in place).
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np

import fastconv
from fastconv import _fastconv


def per_call_us(f, number: int) -> float:
    return min(timeit.repeat(f, number=number, repeat=7)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=10, help="length 2^N of the inputs (default 10)")
    parser.add_argument("--number", type=int, default=2000, help="calls per repeat (default 2000)")
    parser.add_argument("--batches", action="store_true", help="also time 2-D arrays of short rows")
    args = parser.parse_args()
    n = 1 << args.log2n
    rng = np.random.default_rng(1)
    x, g = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    xi = rng.integers(-9, 9, n).astype(np.int32)
    batch = rng.standard_normal((4, n)).astype(np.float32)
    row = x.reshape(1, -1).copy()
    out = np.empty_like(x)
    strided = np.empty(2 * n, np.float32)[::2]
    system = fastconv.DyadicSystem(g)
    cases = [
        ("extension entry point `_wht_float32` (in place)", lambda: _fastconv._wht_float32(row, "hadamard", "none", "native", "auto")),
        ("`wht(x)` float32", lambda: fastconv.wht(x)),
        ("`wht(x, out=x)` float32 (in place)", lambda: fastconv.wht(x, out=x)),
        ("`wht(x, out=out)` float32", lambda: fastconv.wht(x, out=out)),
        ("`wht(x, out=out[::2])` float32 (a strided out: the general path)", lambda: fastconv.wht(x, out=strided)),
        ("`wht(x)` int32 (exact)", lambda: fastconv.wht(xi)),
        ("`wht(x)` float32, 4 rows", lambda: fastconv.wht(batch)),
        ("`wht(x, order=\"sequency\", normalize=\"orthonormal\")`", lambda: fastconv.wht(x, order="sequency", normalize="orthonormal")),
        ("extension entry point `_convolve_float32`", lambda: _fastconv._convolve_float32(x, g, "native", "auto")),
        ("`dyadic_convolve(f, g)`", lambda: fastconv.dyadic_convolve(x, g)),
        ("`dyadic_autocorrelate(f)`", lambda: fastconv.dyadic_autocorrelate(x)),
        ("`DyadicSystem.apply(x)`", lambda: system.apply(x)),
        ("NumPy `np.fft.rfft(x)` (for scale)", lambda: np.fft.rfft(x)),
    ]
    print(f"| call, 2^{args.log2n} elements | µs per call |")
    print("|---|---|")
    for name, f in cases:
        print(f"| {name} | {per_call_us(f, args.number):.2f} |", flush=True)
    if args.batches:
        batches()


def batches() -> None:
    rng = np.random.default_rng(2)
    print("\n| rows × length, dtype, order | `wht(x)` ms | `wht(x, out=x)` ms |")
    print("|---|---|---|")
    shapes = [((1 << 18, 4), np.float32, "hadamard"), ((1 << 16, 16), np.float32, "hadamard"),
              ((4096, 128), np.float32, "hadamard"), ((4096, 128), np.float32, "sequency"),
              ((4096, 128), np.float16, "hadamard"), ((4096, 1024), np.float16, "hadamard"),
              ((4096, 128), np.int32, "hadamard")]
    for shape, dtype, order in shapes:
        x = rng.integers(-8, 8, shape).astype(dtype)
        work = x.copy()
        new = per_call_us(lambda: fastconv.wht(x, order=order), 20) / 1e3
        # In place, repeated: integer values would outgrow int32, so int32 is timed new only.
        inplace = per_call_us(lambda: fastconv.wht(work, order=order, out=work), 20) / 1e3 if dtype != np.int32 else None
        name = f"{shape[0]} × {shape[1]}, {np.dtype(dtype).name}, {order}"
        print(f"| {name} | {new:.3f} | {'' if inplace is None else f'{inplace:.3f}'} |", flush=True)


if __name__ == "__main__":
    main()
