"""fastconv: fast Walsh–Hadamard transform, dyadic (XOR) convolution and Walsh-spectral
analysis of Boolean functions and S-boxes (the C++ library's Python bindings).

Arrays: NumPy arrays, PyTorch tensors (CPU or CUDA), CuPy arrays, or any CPU array that
speaks DLPack (JAX, ...), of float32, float64, int32 or int64 (the WHT also takes float16
and bfloat16). Results are the same kind of array as the input, on the same device. A
C-contiguous NumPy input of one of these types reaches the library without a copy; other
integer or bool inputs are converted to int64 and other floating-point ones to float64.
CUDA arrays are computed by the cuda backend on their own device and stream, without a copy
through the host. ``wht(x, out=x)`` transforms a NumPy array in place (fastest on one from
``empty_aligned(shape, dtype)``, whose data starts on a 64-byte boundary). Integers are exact: a
result that does not fit its type raises IntegerOverflowError. The GIL is released while the
library computes. ``accumulate="float64"`` computes float32 (and float16/bfloat16) data in
float64 and rounds each result once (host arrays; see docs/accuracy.md).

Errors: every failure the library reports is a ``fastconv.Error``; its subclasses
InvalidArgumentError, FileError, UnsupportedError and IntegerOverflowError are also
ValueErrors, DeviceError is also a RuntimeError, OutOfMemoryError a MemoryError. See docs/python.md.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from . import _arrays, _fastconv
from ._arrays import empty_aligned
from ._conv2d import Conv2dPlan, conv2d
from ._fastconv import Backend, BooleanFunction, SBox, backends, conv2d_fft_library, devices, variants

if TYPE_CHECKING:
    # The extension creates these classes (stubgen does not list them); this is their shape.
    class Error(Exception):
        code: str

    class InvalidArgumentError(Error, ValueError): ...

    class FileError(Error, ValueError): ...

    class UnsupportedError(Error, ValueError): ...

    class IntegerOverflowError(Error, ValueError): ...

    class DeviceError(Error, RuntimeError): ...

    class OutOfMemoryError(Error, MemoryError): ...

else:
    from ._fastconv import (
        DeviceError,
        OutOfMemoryError,
        Error,
        FileError,
        IntegerOverflowError,
        InvalidArgumentError,
        UnsupportedError,
    )

__version__: str = _fastconv.__version__

__all__ = [
    "Backend",
    "BooleanFunction",
    "Conv2dPlan",
    "DeviceError",
    "OutOfMemoryError",
    "DyadicSystem",
    "Error",
    "FileError",
    "IntegerOverflowError",
    "InvalidArgumentError",
    "SBox",
    "UnsupportedError",
    "backends",
    "conv2d",
    "conv2d_fft_library",
    "devices",
    "dyadic_autocorrelate",
    "dyadic_convolve",
    "dyadic_correlate",
    "dyadic_deconvolve",
    "empty_aligned",
    "variants",
    "wht",
]

BackendLike = Union[str, Backend]

_DYADIC_TYPES = ("float32", "float64", "int32", "int64")
_WHT_TYPES = _DYADIC_TYPES + ("float16", "bfloat16")


def _supported(name: str, supported: tuple) -> str:
    """The dtype fastconv computes an array of dtype `name` in: itself if supported, else
    int64 for other integers and bools, float64 for other floats."""
    if name in supported:
        return name
    if name == "uint64":
        raise InvalidArgumentError("uint64 data do not fit int64, fastconv's widest integer type; convert them first")
    if name == "bool" or name.startswith(("int", "uint")):
        return "int64"
    if name.startswith(("float", "bfloat")):
        return "float64"
    raise InvalidArgumentError(f"fastconv takes real numbers, not arrays of dtype {name}")


def _coerce(a: np.ndarray, supported: tuple) -> np.ndarray:
    """a itself if its dtype is supported, else a converted to int64 or float64; in native byte
    order (NumPy exports no other through DLPack, and the extension read none)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    own = _arrays.dtype_name(a.dtype)
    name = _supported(own, supported)
    return a if name == own else a.astype(name)


def _check_range(a: np.ndarray, dtype: np.dtype, name: str) -> None:
    """IntegerOverflowError naming the first value of integer array `a` outside `dtype`'s range."""
    info = np.iinfo(dtype)
    outside = (a < info.min) | (a > info.max)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise IntegerOverflowError(f"{name}[{i}] = {a[i]} does not fit {dtype} (range {info.min} ... {info.max})")


def _numbers(x: Any, name: str = "") -> np.ndarray:
    """x as a NumPy array (_arrays.to_numpy). NumPy makes a list of integers float64 when one of
    them is beyond int64 (and object beyond uint64), which would round an exact computation's
    input: a list or tuple holding such an integer is refused, naming it."""
    a = _arrays.to_numpy(x)
    if isinstance(x, (list, tuple)) and (
        a.dtype == object or (a.dtype.kind == "f" and a.size > 0 and float(np.max(np.abs(a))) >= 2.0**63)
    ):
        _refuse_wide_integers(x, (), name)
    return a


def _refuse_wide_integers(values: Any, index: tuple, name: str) -> None:
    for i, v in enumerate(values):
        if isinstance(v, (list, tuple)):
            _refuse_wide_integers(v, index + (i,), name)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and not -(2**63) <= v < 2**63:
            where = index + (i,)
            raise InvalidArgumentError(
                f"{name + ': ' if name else ''}element {where[0] if len(where) == 1 else where}: the integer {v} "
                "does not fit int64, fastconv's "
                "widest integer type (NumPy would round it to float64): give it as a float to compute approximately"
            )


def _vector(x: Any, name: str) -> np.ndarray:
    a = _coerce(_numbers(x, name), _DYADIC_TYPES)
    if a.ndim != 1:
        raise InvalidArgumentError(f"{name} must be one-dimensional, not of shape {a.shape}")
    return a


def _common(*arrays: np.ndarray) -> list:
    """The arrays in their common supported dtype (contiguous: no copy if they already are)."""
    dtype = _supported(_arrays.dtype_name(np.result_type(*arrays)), _DYADIC_TYPES)
    return [np.ascontiguousarray(a, dtype=dtype) for a in arrays]


def _check_axis(ndim: int, axis: int) -> int:
    if ndim == 0:
        raise InvalidArgumentError("wht needs an array of at least one dimension, not a scalar")
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"axis {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % ndim


def _check_row_length(length: int) -> None:
    if length == 0 or length & (length - 1):
        raise InvalidArgumentError(f"WHT row has length {length}, which is not a power of two")


# wht()'s fast path: a C-contiguous NumPy array of one of these dtypes (native byte order),
# transformed along its last axis into a new array by one call of the extension, which copies
# and transforms (the general path, with its checks, copy and reshape in Python, cost about
# 1.5 µs more a call: docs/benchmarks.md).
_WHT_NEW = {np.dtype(name): getattr(_fastconv, "_wht_new_" + name) for name in ("float32", "float64", "int32", "int64", "float16")}
# The same arrays in place (wht(x, out=x)): straight to the extension's transform of rows.
_WHT_ROWS = {dtype: getattr(_fastconv, "_wht_" + dtype.name) for dtype in _WHT_NEW}
# wht(x, out=out), out another C-contiguous array of x's shape and dtype, in one call (which
# leaves out untouched when an integer result overflows, as the general path does).
_WHT_INTO = {dtype: getattr(_fastconv, "_wht_into_" + dtype.name) for dtype in _WHT_NEW}


def wht(
    x: Any,
    order: str = "hadamard",
    normalize: str = "none",
    axis: int = -1,
    backend: BackendLike = "auto",
    out: Optional[np.ndarray] = None,
    accumulate: str = "native",
) -> Any:
    """Walsh–Hadamard transform of x along `axis` (every other axis is a batch).

    y[k] = sum_j (-1)^popcount(h(k) & j) x[j], where h(k) = k in "hadamard" (natural) order,
    the sequency ("walsh") or Paley ("dyadic") reordering on request. `normalize`: "none",
    "orthonormal" (1/sqrt(N)) or "inverse" (1/N: the inverse of the unnormalised transform).
    The length along `axis` must be a power of two.

    Returns a new array of x's kind (NumPy, PyTorch, CuPy, JAX, ...) and device, of x's dtype
    (float32, float64, int32, int64, float16 or bfloat16; other integer inputs become int64,
    other floats float64). A CUDA tensor is transformed by the cuda backend on its device
    and the framework's current stream (backend "auto" or "cuda"); exact integer transforms
    run on the host only. With `out` (NumPy inputs only) the result is written to `out` (a
    writable NumPy array of x's shape and resulting dtype; it may overlap x) and `out` is
    returned; ``wht(x, out=x)`` on a C-contiguous x transformed along its last axis works in
    place without any copy. Integer results are exact (IntegerOverflowError if one does not
    fit; the data, and `out`, are then left untouched).

    `accumulate`: "native" (float32 computed in float32, float16 and bfloat16 in float32) or
    "float64": float32, float16 and bfloat16 data are computed in float64 and each result is
    rounded once to the input's dtype (error about one rounding of the exact result instead of
    up to log2(N) roundings; float64 and integer data are unaffected). float64 accumulation
    runs on host arrays only (a CUDA tensor with it is an UnsupportedError).
    """
    if type(x) is np.ndarray and x.ndim and type(axis) is int and (axis == -1 or axis == x.ndim - 1):
        try:
            if out is None:
                new = _WHT_NEW.get(x.dtype)
                if new is not None and x.flags.c_contiguous:
                    return new(x, order, normalize, accumulate, backend)
            elif out is x and x.size and x.flags.c_contiguous and x.flags.writeable:
                rows = _WHT_ROWS.get(x.dtype)
                if rows is not None:
                    rows(x.reshape(-1, x.shape[-1]), order, normalize, accumulate, backend)
                    return x
            elif (
                type(out) is np.ndarray
                and out.dtype == x.dtype
                and out.shape == x.shape
                and x.flags.c_contiguous
                and out.flags.c_contiguous
                and out.flags.writeable
            ):
                into = _WHT_INTO.get(x.dtype)
                if into is not None:
                    into(x, out, order, normalize, accumulate, backend)
                    return out
        except (IntegerOverflowError, InvalidArgumentError) as e:  # rows of a 3-D or larger array: the caller's index
            if x.ndim <= 2:
                raise
            raise type(e)(_user_position(str(e), x.shape, x.ndim - 1)) from None
    framework = _arrays.framework_of(x)
    if framework is not None:
        if out is not None:
            raise InvalidArgumentError("out= takes NumPy arrays; the result for a tensor is a new tensor")
        return _wht_tensor(framework, x, order, normalize, axis, backend, accumulate)
    return _arrays.like_input(_wht_numpy(_numbers(x), order, normalize, axis, backend, out, accumulate), x)


def _wht_tensor(
    framework: _arrays.Framework, x: Any, order: str, normalize: str, axis: int, backend: BackendLike, accumulate: str
) -> Any:
    """The WHT of a PyTorch tensor or CuPy array, in place in one contiguous copy made by its own
    framework (on the host or its CUDA device)."""
    name = _supported(framework.dtype_name(x), _WHT_TYPES)
    if name != framework.dtype_name(x):
        x = framework.astype(x, name)
    axis = _check_axis(x.ndim, axis)
    work = framework.moved_copy(x, axis)
    if math.prod(work.shape) == 0:
        _check_row_length(work.shape[-1])
    else:
        transform = getattr(_fastconv, "_wht_" + name)
        transform(work.reshape(-1, work.shape[-1]), order, normalize, accumulate, backend, framework.stream(x))
    return framework.moved_back(work, axis)


def _wht_numpy(
    a: np.ndarray,
    order: str,
    normalize: str,
    axis: int,
    backend: BackendLike,
    out: Optional[np.ndarray],
    accumulate: str,
) -> np.ndarray:
    a = _coerce(a, _WHT_TYPES)
    axis = _check_axis(a.ndim, axis)
    name = _arrays.dtype_name(a.dtype)
    if name == "bfloat16":  # ml_dtypes' type: NumPy exports no DLPack for it, so its bits go

        def run(rows: np.ndarray) -> None:
            bits = rows.reshape(-1, rows.shape[-1]).view(np.uint16)
            _fastconv._wht_bfloat16_bits(bits, order, normalize, accumulate, backend)

    else:
        transform = getattr(_fastconv, "_wht_" + name)

        def run(rows: np.ndarray) -> None:
            transform(rows.reshape(-1, rows.shape[-1]), order, normalize, accumulate, backend)

    if out is not None:
        if not isinstance(out, np.ndarray) or not out.flags.writeable:
            raise InvalidArgumentError("out must be a writable NumPy array")
        # An out of the other byte order (as x may be) gets the result converted into it.
        if out.shape != a.shape or out.dtype.newbyteorder("=") != a.dtype:
            raise InvalidArgumentError(
                f"out has shape {out.shape} and dtype {out.dtype}; the result has {a.shape} and {a.dtype}"
            )
        if axis == a.ndim - 1 and out.flags.c_contiguous and out.dtype == a.dtype:
            if out is a or (a.flags.c_contiguous and out.ctypes.data == a.ctypes.data):
                run(out)  # in place: no copy at all
            else:
                work = _arrays.aligned_copy(a)  # a copy first, so that an error leaves out untouched
                run(work)
                out[...] = work
            return out
        out[...] = _wht_numpy(a, order, normalize, axis, backend, None, accumulate)
        return out
    last = axis == a.ndim - 1  # no moveaxis there: 2.8 µs each way, more than a small transform
    work = _arrays.aligned_copy(a if last else np.moveaxis(a, axis, -1))
    if work.size:
        try:
            run(work)
        except (IntegerOverflowError, InvalidArgumentError) as e:  # e.g. an inexact inverse normalisation
            if a.ndim <= 2 and last:
                raise
            raise type(e)(_user_position(str(e), work.shape, axis)) from None
    else:
        _check_row_length(work.shape[-1])
    return work if last else np.ascontiguousarray(np.moveaxis(work, -1, axis))


def _user_position(message: str, moved: tuple, axis: int) -> str:
    """The extension's "element i of row r" of the rows it transformed (the array with `axis`
    moved last, shape `moved`, flattened to rows) as the index of the caller's array."""
    def index(match: re.Match) -> str:
        row = int(match.group(2) or 0)
        where = [int(v) for v in np.unravel_index(row, moved[:-1])]
        where.insert(axis, int(match.group(1)))
        return f"element {tuple(where)}"

    return re.sub(r"element (\d+)(?: of row (\d+))?", index, message, count=1)


# _dyadic()'s fast path, as wht()'s: C-contiguous 1-D NumPy operands of one of these dtypes
# (native byte order), passed straight to the extension (the general path cost about 3.5 µs
# more a call: docs/benchmarks.md).
_DYADIC_RUN = {
    (operation, np.dtype(name)): getattr(_fastconv, f"_{operation}_{name}")
    for operation in ("convolve", "autocorrelate", "deconvolve")
    for name in _DYADIC_TYPES
}


def _dyadic(operation: str, operands: list, names: tuple, backend: BackendLike, accumulate: str) -> Any:
    """Runs _fastconv's `operation` (convolve, autocorrelate, deconvolve) on 1-D operands of
    one kind: CUDA tensors on their device, everything else on the host."""
    first = operands[0]
    if type(first) is np.ndarray and first.ndim == 1 and first.flags.c_contiguous:
        run = _DYADIC_RUN.get((operation, first.dtype))
        if run is not None and all(
            type(o) is np.ndarray and o.dtype == first.dtype and o.ndim == 1 and o.flags.c_contiguous
            for o in operands[1:]
        ):
            return run(*operands, accumulate, backend)
    framework = _arrays.framework_of(operands[0])
    if any(_arrays.framework_of(o) is not framework for o in operands):
        raise InvalidArgumentError("the operands must be arrays of the same kind (all NumPy, all PyTorch, ...)")
    if framework is not None and framework.is_cuda(operands[0]):
        if _fastconv._accumulation(accumulate) != "native":
            raise UnsupportedError(
                'accumulate="float64" computes on the host: move the CUDA arrays to the host, or use float64 arrays'
            )
        return _dyadic_cuda(framework, operation, operands, names, backend)
    arrays = _common(*(_vector(o, n) for o, n in zip(operands, names)))
    result = getattr(_fastconv, f"_{operation}_{_arrays.dtype_name(arrays[0].dtype)}")(*arrays, accumulate, backend)
    if framework is not None:
        return framework.from_numpy(result, operands[0])
    return _arrays.like_input(result, operands[0])


def _dyadic_cuda(framework: _arrays.Framework, operation: str, operands: list, names: tuple, backend: BackendLike) -> Any:
    if any(not framework.is_cuda(o) for o in operands):
        raise InvalidArgumentError("the operands must all be on the same device")
    first = operands[0]
    common = framework.promote(first, operands[1]) if len(operands) > 1 else framework.dtype_name(first)
    dtype = _supported(common, _DYADIC_TYPES)
    if dtype not in ("float32", "float64"):
        raise UnsupportedError(
            "exact integer dyadic operations on CUDA arrays are not supported (their range checks run on the host): "
            "use float32 or float64, or host arrays"
        )
    arrays = []
    for o, name in zip(operands, names):
        if o.ndim != 1:
            raise InvalidArgumentError(f"{name} must be one-dimensional, not of shape {tuple(o.shape)}")
        arrays.append(framework.contiguous(framework.astype(o, dtype)))
    out = framework.empty(max(a.shape[0] for a in arrays), arrays[0])
    getattr(_fastconv, f"_{operation}_device_{dtype}")(*arrays, out, backend, framework.stream(arrays[0]))
    return out


def dyadic_convolve(f: Any, g: Any, backend: BackendLike = "auto", accumulate: str = "native") -> Any:
    """Dyadic (XOR) convolution C(t) = sum_x f(x) g(x xor t), of length max(len(f), len(g)).

    Lengths must be powers of two; the shorter operand is zero-padded. Both operands are
    brought to their common dtype (NumPy's or PyTorch's promotion rules). Integers are exact.
    CUDA tensors (float32, float64) are computed on their device. `accumulate="float64"`
    computes float32 operands in float64 and rounds each result once (host arrays only).
    """
    return _dyadic("convolve", [f, g], ("f", "g"), backend, accumulate)


def dyadic_correlate(f: Any, g: Any, backend: BackendLike = "auto", accumulate: str = "native") -> Any:
    """Dyadic correlation sum_x f(x) g(x xor t): on the dyadic group the very same sum as
    dyadic_convolve (xor is its own inverse)."""
    return dyadic_convolve(f, g, backend, accumulate)


def dyadic_autocorrelate(f: Any, backend: BackendLike = "auto", accumulate: str = "native") -> Any:
    """Dyadic autocorrelation R(t) = sum_x f(x) f(x xor t); `accumulate` as in dyadic_convolve."""
    return _dyadic("autocorrelate", [f], ("f",), backend, accumulate)


def dyadic_deconvolve(y: Any, h: Any, backend: BackendLike = "auto", accumulate: str = "native") -> Any:
    """System identification: the f with dyadic_convolve(f, h) == y.

    InvalidArgumentError if h's Walsh spectrum has a (numerically) zero coefficient, or, for
    integer inputs, if the exact result is not an integer (use floating point then).
    `accumulate` as in dyadic_convolve.
    """
    return _dyadic("deconvolve", [y, h], ("y", "h"), backend, accumulate)


class DyadicSystem:
    """A dyadic linear translation-invariant system y = h ⊛ x, built once from its impulse
    response h: its Walsh spectrum is computed once (and kept on the backend's device), so
    each apply() costs two transforms instead of three. The system's dtype is h's.

    A CUDA tensor h makes a system on the cuda backend of h's device (h is read once, to the
    host, to build the spectrum); its apply() takes CUDA tensors and computes on the device.
    `accumulate="float64"` makes a float32 system compute in float64 (its spectrum too) and
    round each result once; such a system applies to host arrays only.
    """

    def __init__(self, h: Any, backend: BackendLike = "auto", accumulate: str = "native") -> None:
        framework = _arrays.framework_of(h)
        if framework is not None and framework.is_cuda(h):
            if backend == "auto":
                backend = Backend("cuda", device=str(framework.device_id(h)))
            h = framework.to_host(h)
        (h,) = _common(_vector(h, "h"))
        self.dtype: np.dtype = h.dtype
        self._system = getattr(_fastconv, "_DyadicSystem_" + _arrays.dtype_name(h.dtype))(h, accumulate, backend)

    @property
    def backend(self) -> Backend:
        """The backend the system computes on."""
        return self._system.backend

    def apply(self, x: Any) -> Any:
        """y = h ⊛ x, of length max(len(h), len(x)), as x's kind of array; x is converted to the
        system's dtype (from the same kind only: a float signal into an integer system is an
        error)."""
        if type(x) is np.ndarray and x.dtype == self.dtype and x.ndim == 1 and x.flags.c_contiguous:
            return self._system.apply(x)  # as _dyadic's fast path: straight to the extension
        framework = _arrays.framework_of(x)
        if framework is not None and framework.is_cuda(x):
            if x.ndim != 1:
                raise InvalidArgumentError(f"x must be one-dimensional, not of shape {tuple(x.shape)}")
            if _arrays.dtype_name(self.dtype) not in ("float32", "float64"):
                raise UnsupportedError("an integer system applies to host arrays only (its range checks run there)")
            x = framework.contiguous(framework.astype(x, _arrays.dtype_name(self.dtype)))
            out = framework.empty(max(len(self), x.shape[0]), x)
            self._system.apply_device(x, out, framework.stream(x))
            return out
        a = _vector(x, "x")
        if a.dtype != self.dtype:
            if not np.can_cast(a.dtype, self.dtype, casting="same_kind"):
                raise InvalidArgumentError(f"a {self.dtype} system cannot take a {a.dtype} signal")
            if self.dtype.kind == "i" and not np.can_cast(a.dtype, self.dtype):
                _check_range(a, self.dtype, "x")  # int64 values into an int32 system: exact, or refused
            a = a.astype(self.dtype)
        result = self._system.apply(np.ascontiguousarray(a))
        return framework.from_numpy(result, x) if framework is not None else _arrays.like_input(result, x)

    def __len__(self) -> int:
        return len(self._system)

    def __repr__(self) -> str:
        return f"DyadicSystem(<{len(self)} coefficients>, dtype={self.dtype})"
