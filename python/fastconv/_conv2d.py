"""2-D convolution of neural networks (PyTorch's conv2d: a cross-correlation, stride 1) on
NumPy arrays and CPU tensors, by the C++ library's algorithms."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _fastconv

PaddingLike = Union[int, str, Sequence[int]]

ALGORITHMS = ("auto", "direct", "im2col_gemm", "fft2d", "winograd", "polyhankel")


def _invalid(message: str) -> Exception:
    return _fastconv.InvalidArgumentError(message)


def padding_of(padding: PaddingLike, kernel: Tuple[int, int]) -> Tuple[int, int, int, int]:
    """(top, bottom, left, right) from PyTorch's forms: p, (ph, pw), "valid", "same" — or
    fastconv's own (top, bottom, left, right)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding == "same":  # PyTorch: the extra row/column of an even kernel goes last
            kh, kw = kernel
            return ((kh - 1) // 2, kh // 2, (kw - 1) // 2, kw // 2)
        raise _invalid(f"padding '{padding}' is not 'valid', 'same', an int, (ph, pw) or (top, bottom, left, right)")
    values = (padding,) if isinstance(padding, (int, np.integer)) else tuple(padding)
    if not all(isinstance(v, (int, np.integer)) and v >= 0 for v in values):
        raise _invalid(f"padding {padding!r} must hold whole numbers >= 0")
    if len(values) == 1:
        return (int(values[0]),) * 4
    if len(values) == 2:
        return (int(values[0]), int(values[0]), int(values[1]), int(values[1]))
    if len(values) == 4:
        return tuple(int(v) for v in values)  # type: ignore[return-value]
    raise _invalid(f"padding {padding!r} has {len(values)} values: give p, (ph, pw) or (top, bottom, left, right)")


def _host(x: Any) -> np.ndarray:
    """A NumPy view of a host array or CPU tensor; CUDA tensors are refused (conv2d runs on the CPU)."""
    framework = _arrays.framework_of(x)
    if framework is None:
        return _arrays.to_numpy(x)
    if framework.is_cuda(x):
        raise _fastconv.UnsupportedError("conv2d runs on the CPU: move the tensor to the host (.cpu()) first")
    if framework.dtype_name(x) == "bfloat16":  # NumPy has no bfloat16 of its own: computed in float32
        x = framework.astype(x, "float32")
    return framework.to_numpy(x)


def _float_dtype(*arrays: np.ndarray) -> np.dtype:
    """float32 when every operand is float32 (or float16), else float64."""
    narrow = all(a.dtype in (np.float32, np.float16) for a in arrays)
    return np.dtype(np.float32 if narrow else np.float64)


class Conv2dPlan:
    """A convolution planned once for one weight tensor and input shape, executed many times:
    FFT plans, kernel spectra and Winograd filter transforms are made at construction (with
    algorithm="auto", each applicable algorithm is also timed once per shape and process, and
    the fastest kept, as cuDNN's find does)."""

    def __init__(
        self,
        input_shape: Sequence[int],
        weights: Any,
        bias: Any = None,
        padding: PaddingLike = 0,
        algorithm: str = "auto",
        threads: int = 0,
        dtype: Optional[Any] = None,
    ) -> None:
        w = _host(weights)
        if w.ndim != 4:
            raise _invalid(f"weights must have shape (K, C, Kh, Kw), not {w.shape}")
        if len(input_shape) not in (3, 4):
            raise _invalid(f"the input shape must be (N, C, H, W) or (C, H, W), not {tuple(input_shape)}")
        n, c, h, wd = (1, *input_shape) if len(input_shape) == 3 else tuple(input_shape)
        if c != w.shape[1]:
            raise _invalid(f"the weights take {w.shape[1]} input channels, the input has {c}")
        b = None if bias is None else _host(bias)
        self.dtype = np.dtype(dtype) if dtype is not None else _float_dtype(w, *(() if b is None else (b,)))
        if self.dtype not in (np.float32, np.float64):
            raise _invalid(f"conv2d computes in float32 or float64, not {self.dtype}")
        w = np.ascontiguousarray(w, dtype=self.dtype)
        if b is not None:
            b = np.ascontiguousarray(b, dtype=self.dtype)
            if b.shape != (w.shape[0],):
                raise _invalid(f"bias must have shape ({w.shape[0]},), not {b.shape}")
        self.input_shape = tuple(int(v) for v in input_shape)
        self.padding = padding_of(padding, (w.shape[2], w.shape[3]))
        plan_type = getattr(_fastconv, "_Conv2dPlan_" + self.dtype.name)
        self._plan = plan_type(n, h, wd, w, b, self.padding, algorithm, threads)

    @property
    def algorithm(self) -> str:
        """The algorithm that runs: the one asked for, or auto's choice."""
        return self._plan.algorithm

    def __call__(self, x: Any) -> Any:
        return self.execute(x)

    def execute(self, x: Any) -> Any:
        """The convolution of x (the plan's input shape), as x's kind of array."""
        framework = _arrays.framework_of(x)
        a = _host(x)
        if tuple(a.shape) != self.input_shape:
            raise _invalid(f"this plan takes inputs of shape {self.input_shape}, not {tuple(a.shape)}")
        batched = np.ascontiguousarray(a.reshape((1, *a.shape)) if a.ndim == 3 else a, dtype=self.dtype)
        y = self._plan.execute(batched)
        if a.ndim == 3:
            y = y[0]
        return framework.from_numpy(y, x) if framework is not None else _arrays.like_input(y, x)


def conv2d(
    x: Any,
    weights: Any,
    bias: Any = None,
    padding: PaddingLike = 0,
    algorithm: str = "auto",
    threads: int = 0,
) -> Any:
    """out[n,k,i,j] = bias[k] + sum_{c,u,v} x[n,c,i+u-top,j+v-left] * w[k,c,u,v] (zero outside
    the image): torch.nn.functional.conv2d with stride 1, dilation 1, groups 1.

    x: (N, C, H, W) or (C, H, W); weights: (K, C, Kh, Kw); bias: (K,) or None. padding: p,
    (ph, pw), (top, bottom, left, right), "valid" or "same". algorithm: "auto" (the fastest for
    the shape, measured once per process), "direct", "im2col_gemm", "fft2d", "winograd" (3x3
    only) or "polyhankel" (seed 002). Computed in float32 if every operand is float32, else in
    float64. Returns x's kind of array (NumPy, PyTorch CPU tensor, ...); use Conv2dPlan to
    convolve many inputs with the same weights.
    """
    a = _host(x)
    operands = [a, _host(weights)] + ([] if bias is None else [_host(bias)])
    plan = Conv2dPlan(a.shape, weights, bias, padding, algorithm, threads, dtype=_float_dtype(*operands))
    return plan.execute(x)
