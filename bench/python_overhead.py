"""Per-call cost of the Python package on small inputs, beside the extension's own entry point
(what the C++ side costs) and NumPy's FFT of the same length (a well-kept library's per-call
cost), in one run. Prints a Markdown table: microseconds per call, best of 7 repeats.

    build/venv/bin/python bench/python_overhead.py [--log2n 10]

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
    args = parser.parse_args()
    n = 1 << args.log2n
    rng = np.random.default_rng(1)
    x, g = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    xi = rng.integers(-9, 9, n).astype(np.int32)
    batch = rng.standard_normal((4, n)).astype(np.float32)
    row = x.reshape(1, -1).copy()
    out = np.empty_like(x)
    system = fastconv.DyadicSystem(g)
    cases = [
        ("extension entry point `_wht_float32` (in place)", lambda: _fastconv._wht_float32(row, "hadamard", "none", "native", "auto")),
        ("`wht(x)` float32", lambda: fastconv.wht(x)),
        ("`wht(x, out=x)` float32 (in place)", lambda: fastconv.wht(x, out=x)),
        ("`wht(x, out=out)` float32", lambda: fastconv.wht(x, out=out)),
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


if __name__ == "__main__":
    main()
