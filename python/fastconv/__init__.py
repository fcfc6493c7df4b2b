"""fastconv: fast Walsh–Hadamard transform, dyadic (XOR) convolution and Walsh-spectral
analysis of Boolean functions and S-boxes (the C++ library's Python bindings).

Arrays: NumPy arrays, or any CPU tensor that speaks DLPack (PyTorch, JAX, CuPy's host
arrays...), of float32, float64, int32 or int64 (the WHT also takes float16). A C-contiguous
input of one of these types reaches the library without a copy; other integer or bool
inputs are converted to int64 and other floating-point ones to float64. Results are new
NumPy arrays; ``wht(x, out=x)`` transforms in place. Integers are exact: a result that does
not fit its type raises IntegerOverflowError. The GIL is released while the library computes.

Errors: every failure the library reports is a ``fastconv.Error``; its subclasses
InvalidArgumentError, FileError, UnsupportedError and IntegerOverflowError are also
ValueErrors, DeviceError is also a RuntimeError. See docs/python.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from . import _fastconv
from ._fastconv import Backend, BooleanFunction, SBox, backends, devices, variants

if TYPE_CHECKING:
    # The extension creates these classes (stubgen does not list them); this is their shape.
    class Error(Exception):
        code: str

    class InvalidArgumentError(Error, ValueError): ...

    class FileError(Error, ValueError): ...

    class UnsupportedError(Error, ValueError): ...

    class IntegerOverflowError(Error, ValueError): ...

    class DeviceError(Error, RuntimeError): ...

else:
    from ._fastconv import (
        DeviceError,
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
    "DeviceError",
    "DyadicSystem",
    "Error",
    "FileError",
    "IntegerOverflowError",
    "InvalidArgumentError",
    "SBox",
    "UnsupportedError",
    "backends",
    "devices",
    "dyadic_autocorrelate",
    "dyadic_convolve",
    "dyadic_correlate",
    "dyadic_deconvolve",
    "variants",
    "wht",
]

BackendLike = Union[str, Backend]

_DYADIC_DTYPES = {np.dtype(t): t for t in ("float32", "float64", "int32", "int64")}
_WHT_DTYPES = {**_DYADIC_DTYPES, np.dtype("float16"): "float16"}


def _as_array(x: Any) -> np.ndarray:
    """A NumPy view of x (no copy for NumPy arrays and DLPack CPU tensors)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def _coerce(a: np.ndarray, supported: dict) -> np.ndarray:
    """a itself if its dtype is supported, else a converted to int64 or float64."""
    if a.dtype in supported:
        return a
    if a.dtype.kind in "biu":
        return a.astype(np.int64, casting="safe")  # uint64 cannot be held exactly: TypeError
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    raise InvalidArgumentError(f"fastconv takes real numbers, not arrays of dtype {a.dtype}")


def _vector(x: Any, name: str) -> np.ndarray:
    a = _coerce(_as_array(x), _DYADIC_DTYPES)
    if a.ndim != 1:
        raise InvalidArgumentError(f"{name} must be one-dimensional, not of shape {a.shape}")
    return a


def _common(*arrays: np.ndarray) -> list:
    """The arrays in their common supported dtype (contiguous: no copy if they already are)."""
    dtype = np.result_type(*arrays)
    if dtype not in _DYADIC_DTYPES:
        dtype = np.dtype(np.float64)
    return [np.ascontiguousarray(a, dtype=dtype) for a in arrays]


def wht(
    x: Any,
    order: str = "hadamard",
    normalize: str = "none",
    axis: int = -1,
    backend: BackendLike = "auto",
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Walsh–Hadamard transform of x along `axis` (every other axis is a batch).

    y[k] = sum_j (-1)^popcount(h(k) & j) x[j], where h(k) = k in "hadamard" (natural) order,
    the sequency ("walsh") or Paley ("dyadic") reordering on request. `normalize`: "none",
    "orthonormal" (1/sqrt(N)) or "inverse" (1/N: the inverse of the unnormalised transform).
    The length along `axis` must be a power of two.

    Returns a new array of x's dtype (float32, float64, int32, int64 or float16; other
    integer inputs become int64, other floats float64), unless `out` is given: then the
    result is written to `out` (a writable NumPy array of x's shape and resulting dtype) and
    `out` is returned. ``wht(x, out=x)`` on a C-contiguous x transformed along its last
    axis works in place without any copy. Integer results are exact (IntegerOverflowError if
    one does not fit; the data are then left untouched).
    """
    a = _coerce(_as_array(x), _WHT_DTYPES)
    if a.ndim == 0:
        raise InvalidArgumentError("wht needs an array of at least one dimension, not a scalar")
    if not -a.ndim <= axis < a.ndim:
        raise InvalidArgumentError(f"axis {axis} is out of bounds for an array of {a.ndim} dimensions")
    axis %= a.ndim
    transform = getattr(_fastconv, "_wht_" + _WHT_DTYPES[a.dtype])

    def run(rows: np.ndarray) -> None:
        transform(rows.reshape(-1, rows.shape[-1]), order, normalize, backend)

    if out is not None:
        if not isinstance(out, np.ndarray) or not out.flags.writeable:
            raise InvalidArgumentError("out must be a writable NumPy array")
        if out.shape != a.shape or out.dtype != a.dtype:
            raise InvalidArgumentError(
                f"out has shape {out.shape} and dtype {out.dtype}; the result has {a.shape} and {a.dtype}"
            )
        if axis == a.ndim - 1 and out.flags.c_contiguous:
            if out is a or (a.flags.c_contiguous and out.ctypes.data == a.ctypes.data):
                run(out)  # in place: no copy at all
            else:
                work = a.copy()  # a copy first, so that an error leaves out untouched
                run(work)
                out[...] = work
            return out
        out[...] = wht(a, order, normalize, axis, backend)
        return out
    work = np.array(np.moveaxis(a, axis, -1), order="C", copy=True)
    if work.size:
        run(work)
    elif work.shape[-1] == 0 or work.shape[-1] & (work.shape[-1] - 1):
        raise InvalidArgumentError(f"WHT row has length {work.shape[-1]}, which is not a power of two")
    return np.ascontiguousarray(np.moveaxis(work, -1, axis))


def dyadic_convolve(f: Any, g: Any, backend: BackendLike = "auto") -> np.ndarray:
    """Dyadic (XOR) convolution C(t) = sum_x f(x) g(x xor t), of length max(len(f), len(g)).

    Lengths must be powers of two; the shorter operand is zero-padded. Both operands are
    brought to their common dtype (NumPy's promotion rules). Integers are exact.
    """
    f, g = _common(_vector(f, "f"), _vector(g, "g"))
    return getattr(_fastconv, "_convolve_" + _DYADIC_DTYPES[f.dtype])(f, g, backend)


def dyadic_correlate(f: Any, g: Any, backend: BackendLike = "auto") -> np.ndarray:
    """Dyadic correlation sum_x f(x) g(x xor t): on the dyadic group the very same sum as
    dyadic_convolve (xor is its own inverse)."""
    return dyadic_convolve(f, g, backend)


def dyadic_autocorrelate(f: Any, backend: BackendLike = "auto") -> np.ndarray:
    """Dyadic autocorrelation R(t) = sum_x f(x) f(x xor t)."""
    (f,) = _common(_vector(f, "f"))
    return getattr(_fastconv, "_autocorrelate_" + _DYADIC_DTYPES[f.dtype])(f, backend)


def dyadic_deconvolve(y: Any, h: Any, backend: BackendLike = "auto") -> np.ndarray:
    """System identification: the f with dyadic_convolve(f, h) == y.

    InvalidArgumentError if h's Walsh spectrum has a (numerically) zero coefficient, or, for
    integer inputs, if the exact result is not an integer (use floating point then).
    """
    y, h = _common(_vector(y, "y"), _vector(h, "h"))
    return getattr(_fastconv, "_deconvolve_" + _DYADIC_DTYPES[y.dtype])(y, h, backend)


class DyadicSystem:
    """A dyadic linear translation-invariant system y = h ⊛ x, built once from its impulse
    response h: its Walsh spectrum is computed once (and kept on the backend's device), so
    each apply() costs two transforms instead of three. The system's dtype is h's."""

    def __init__(self, h: Any, backend: BackendLike = "auto") -> None:
        (h,) = _common(_vector(h, "h"))
        self.dtype: np.dtype = h.dtype
        self._system = getattr(_fastconv, "_DyadicSystem_" + _DYADIC_DTYPES[h.dtype])(h, backend)

    def apply(self, x: Any) -> np.ndarray:
        """y = h ⊛ x, of length max(len(h), len(x)); x is converted to the system's dtype
        (from the same kind only: a float signal into an integer system is an error)."""
        a = _vector(x, "x")
        if a.dtype != self.dtype:
            if not np.can_cast(a.dtype, self.dtype, casting="same_kind"):
                raise InvalidArgumentError(f"a {self.dtype} system cannot take a {a.dtype} signal")
            a = a.astype(self.dtype)
        return self._system.apply(np.ascontiguousarray(a))

    def __len__(self) -> int:
        return len(self._system)

    def __repr__(self) -> str:
        return f"DyadicSystem(<{len(self)} coefficients>, dtype={self.dtype})"
