"""2-D convolution of neural networks (PyTorch's conv2d: a cross-correlation, stride 1) by the
C++ library's algorithms: host arrays on the cpu or reference backend, CUDA tensors (PyTorch,
CuPy) on their device by the cuda backend."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _arrays, _fastconv

PaddingLike = Union[int, str, Sequence[int]]
BackendLike = Union[str, _fastconv.Backend]

ALGORITHMS = ("auto", "direct", "im2col_gemm", "fft2d", "winograd", "polyhankel", "polyhankel_merged")


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
    if isinstance(padding, (bool, np.bool_)):
        raise _invalid(f"padding {padding!r} is a bool: give 'valid', 'same', an int, (ph, pw) or (top, bottom, left, right)")
    try:
        values = (padding,) if isinstance(padding, (int, np.integer)) else tuple(padding)
    except TypeError:
        raise _invalid(f"padding {padding!r} is not 'valid', 'same', an int, (ph, pw) or (top, bottom, left, right)") from None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 0 for v in values):
        raise _invalid(f"padding {padding!r} must hold whole numbers >= 0")
    if len(values) == 1:
        return (int(values[0]),) * 4
    if len(values) == 2:
        return (int(values[0]), int(values[0]), int(values[1]), int(values[1]))
    if len(values) == 4:
        return tuple(int(v) for v in values)  # type: ignore[return-value]
    raise _invalid(f"padding {padding!r} has {len(values)} values: give p, (ph, pw) or (top, bottom, left, right)")


def _host(x: Any) -> np.ndarray:
    """A NumPy array of a host array or tensor (a view where possible); a CUDA tensor is copied to
    the host (for weights and biases, which are small)."""
    framework = _arrays.framework_of(x)
    if framework is None:
        return _arrays.to_numpy(x)
    if framework.dtype_name(x) == "bfloat16":  # NumPy has no bfloat16 of its own: computed in float32
        x = framework.astype(x, "float32")
    return framework.to_host(x) if framework.is_cuda(x) else framework.to_numpy(x)


def _cuda_device(x: Any) -> Optional[int]:
    """The CUDA device x lives on; None for host arrays."""
    framework = _arrays.framework_of(x)
    return framework.device_id(x) if framework is not None and framework.is_cuda(x) else None


def _dtype_name(x: Any) -> str:
    framework = _arrays.framework_of(x)
    return framework.dtype_name(x) if framework is not None else _arrays.dtype_name(_arrays.to_numpy(x).dtype)


def _converted(a: np.ndarray, dtype: np.dtype, what: str) -> np.ndarray:
    """a as a C-contiguous array of the plan's type. A finite value that the conversion makes
    infinite (float64 to float32 beyond 3.4e38) is refused: NumPy would only warn."""
    with np.errstate(over="ignore"):
        converted = np.ascontiguousarray(a, dtype=dtype)
    if a.dtype.kind == "f" and a.dtype.itemsize > converted.dtype.itemsize:
        lost = ~np.isfinite(converted) & np.isfinite(a)
        if lost.any():
            index = tuple(int(i) for i in np.argwhere(lost)[0])
            raise _invalid(
                f"{what} element {index}: {float(a[index])!r} overflows {converted.dtype.name}, the plan's type: "
                f"compute in {a.dtype.name}, or scale the values"
            )
    return converted


def _check_real(name: str) -> None:
    """InvalidArgumentError unless `name` is a dtype of real numbers (a complex operand would
    lose its imaginary part in the conversion)."""
    if not (name == "bool" or name.startswith(("int", "uint", "float", "bfloat"))):
        raise _invalid(f"conv2d takes real numbers, not arrays of dtype {name}")


def _float_dtype(*names: str) -> np.dtype:
    """float32 when every operand is float32 (or float16, bfloat16), else float64."""
    for name in names:
        _check_real(name)
    narrow = all(name in ("float32", "float16", "bfloat16") for name in names)
    return np.dtype(np.float32 if narrow else np.float64)


def backend_for(x: Any, backend: BackendLike) -> BackendLike:
    """The backend that computes input x. A CUDA array (PyTorch, CuPy): the cuda backend of its
    device for "auto" and "cuda" (a host backend is an UnsupportedError). A host array: `backend`,
    with "auto" the cpu backend wherever the weights are."""
    device = _cuda_device(x)
    if device is not None:
        return _fastconv._conv2d_device_backend(backend, device)
    return "cpu" if isinstance(backend, str) and backend == "auto" else backend


class Conv2dPlan:
    """A convolution planned once for one weight tensor and input shape, executed many times:
    FFT plans, kernel spectra and Winograd filter transforms are made at construction (with
    algorithm="auto", each applicable algorithm is also timed once per shape and process, and
    the fastest kept, as cuDNN's find does; the planning of fft2d and polyhankel gets, together,
    10 runs of the fastest other one and at least 4 s, and the one not planned by then is left
    out; name either to plan it in full).

    `backend`: "cpu" (every algorithm; `threads` threads, 0 = all cores), "reference" (direct,
    one thread), "cuda" (polyhankel, with cuFFT; the weights' spectra stay on the device), a
    Backend, or "auto": the cuda backend of the weights' device when the weights are a CUDA
    tensor, else cpu. Other backends (opencl) do not compute conv2d: UnsupportedError. CUDA
    weights and bias are copied to the host for planning. A plan on the cuda backend takes
    CUDA inputs (computed on their device, on the framework's current stream, into an output
    the framework allocates there) and host inputs (copied through the device); a plan on a
    host backend takes host inputs only."""

    def __init__(
        self,
        input_shape: Sequence[int],
        weights: Any,
        bias: Any = None,
        padding: PaddingLike = 0,
        algorithm: str = "auto",
        backend: BackendLike = "auto",
        threads: int = 0,
        dtype: Optional[Any] = None,
    ) -> None:
        self._device: Optional[int] = None  # the device of a cuda plan chosen by its weights' device
        device = _cuda_device(weights)
        if device is not None and isinstance(backend, str) and backend in ("auto", "cuda"):
            backend = _fastconv._conv2d_device_backend(backend, device)
            self._device = device
        w = _host(weights)
        if w.ndim != 4:
            raise _invalid(f"weights must have shape (K, C, Kh, Kw), not {w.shape}")
        if len(input_shape) not in (3, 4) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in input_shape
        ):
            raise _invalid(
                f"the input shape must be (N, C, H, W) or (C, H, W) of whole numbers >= 0, not {tuple(input_shape)}"
            )
        n, c, h, wd = (1, *input_shape) if len(input_shape) == 3 else tuple(input_shape)
        if c != w.shape[1]:
            raise _invalid(f"the weights take {w.shape[1]} input channels, the input has {c}")
        b = None if bias is None else _host(bias)
        operands = [_arrays.dtype_name(w.dtype)] + ([] if b is None else [_arrays.dtype_name(b.dtype)])
        self.dtype = np.dtype(dtype) if dtype is not None else _float_dtype(*operands)
        if self.dtype not in (np.float32, np.float64):
            raise _invalid(f"conv2d computes in float32 or float64, not {self.dtype}")
        w = _converted(w, self.dtype, "weight")
        if b is not None:
            b = _converted(b, self.dtype, "bias")
            if b.shape != (w.shape[0],):
                raise _invalid(f"bias must have shape ({w.shape[0]},), not {b.shape}")
        self.input_shape = tuple(int(v) for v in input_shape)
        self.padding = padding_of(padding, (w.shape[2], w.shape[3]))
        plan_type = getattr(_fastconv, "_Conv2dPlan_" + _arrays.dtype_name(self.dtype))
        self._plan = plan_type(n, h, wd, w, b, self.padding, algorithm, backend, threads)
        top, bottom, left, right = self.padding
        self._output_shape = (n, w.shape[0], h + top + bottom - w.shape[2] + 1, wd + left + right - w.shape[3] + 1)

    @property
    def algorithm(self) -> str:
        """The algorithm that runs: the one asked for, or auto's choice."""
        return self._plan.algorithm

    @property
    def backend(self) -> _fastconv.Backend:
        """The backend the plan computes on."""
        return self._plan.backend

    def __call__(self, x: Any) -> Any:
        return self.execute(x)

    def execute(self, x: Any) -> Any:
        """The convolution of x (the plan's input shape), as x's kind of array on x's device."""
        framework = _arrays.framework_of(x)
        if framework is not None and framework.is_cuda(x):
            return self._execute_cuda(framework, x)
        a = _host(x)
        if tuple(a.shape) != self.input_shape:
            raise _invalid(f"this plan takes inputs of shape {self.input_shape}, not {tuple(a.shape)}")
        _check_real(_arrays.dtype_name(a.dtype))
        converted = _converted(a, self.dtype, "input")  # errors name the caller's index
        batched = converted.reshape((1, *a.shape)) if a.ndim == 3 else converted
        y = self._plan.execute(batched)
        if a.ndim == 3:
            y = y[0]
        return framework.from_numpy(y, x) if framework is not None else _arrays.like_input(y, x)

    def _execute_cuda(self, framework: _arrays.Framework, x: Any) -> Any:
        """x convolved on its device, into an output its framework allocates there, on the
        framework's current stream: the data never pass through the host."""
        if self.backend.name != "cuda":
            raise _fastconv.UnsupportedError(
                f"this conv2d plan computes on the {self.backend.name} backend, which reads host memory: a CUDA "
                'input needs a plan on the cuda backend (backend="cuda", or "auto" with CUDA weights), or move the '
                "input to the host first"
            )
        if tuple(x.shape) != self.input_shape:
            raise _invalid(f"this plan takes inputs of shape {self.input_shape}, not {tuple(x.shape)}")
        device = framework.device_id(x)
        if self._device is not None and device != self._device:
            raise _invalid(f"this plan computes on CUDA device {self._device}, the input is on device {device}")
        batched = x.reshape((1, *x.shape)) if x.ndim == 3 else x
        if framework.dtype_name(batched) != _arrays.dtype_name(self.dtype):
            batched = framework.astype(batched, _arrays.dtype_name(self.dtype))
        batched = framework.contiguous(batched)
        out = framework.empty(self._output_shape, batched)
        self._plan.execute_device(batched, out, framework.stream(batched))
        return out[0] if x.ndim == 3 else out


def conv2d(
    x: Any,
    weights: Any,
    bias: Any = None,
    padding: PaddingLike = 0,
    algorithm: str = "auto",
    backend: BackendLike = "auto",
    threads: int = 0,
) -> Any:
    """out[n,k,i,j] = bias[k] + sum_{c,u,v} x[n,c,i+u-top,j+v-left] * w[k,c,u,v] (zero outside
    the image): torch.nn.functional.conv2d with stride 1, dilation 1, groups 1.

    x: (N, C, H, W) or (C, H, W); weights: (K, C, Kh, Kw); bias: (K,) or None. padding: p,
    (ph, pw), (top, bottom, left, right), "valid" or "same". algorithm: "auto" (the fastest for
    the shape, measured once per process), "direct", "im2col_gemm", "fft2d", "winograd" (3x3
    only), "polyhankel" (seed 002) or "polyhankel_merged" (seed 002's merged channels). Computed in float32 if every operand is float32 (or
    float16, bfloat16), else in float64. Returns x's kind of array (NumPy, PyTorch tensor, ...) on x's device; use
    Conv2dPlan to convolve many inputs with the same weights.

    Where it runs: host arrays on `backend` — "auto" or "cpu" (every algorithm, `threads`
    threads, 0 = all cores), "reference" (direct only, one thread), "cuda" (copied through
    the device), or a Backend. A CUDA tensor (PyTorch, CuPy) is computed by the cuda backend
    of its device ("auto" or "cuda": polyhankel, with cuFFT) on the framework's current
    stream, without passing through the host; its weights and bias may be CUDA or host
    tensors (they are copied to the host for planning). A CUDA tensor with a host backend
    ("cpu", "reference"), and any backend without conv2d (opencl), is an UnsupportedError.
    """
    backend = backend_for(x, backend)
    names = [_dtype_name(x), _dtype_name(weights)] + ([] if bias is None else [_dtype_name(bias)])
    shape = tuple(x.shape) if _cuda_device(x) is not None else _host(x).shape
    plan = Conv2dPlan(shape, weights, bias, padding, algorithm, backend, threads, dtype=_float_dtype(*names))
    return plan.execute(x)
