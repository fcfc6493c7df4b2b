"""Arrays from other libraries: which kind an input is, and the few operations fastconv needs
on it in that library's own terms, so that a result comes back as the same kind of array on
the same device.

- NumPy arrays and array-likes go through NumPy.
- PyTorch tensors (CPU or CUDA) and CuPy arrays (CUDA) are mutable: fastconv makes one
  C-contiguous copy with the framework itself and computes in place in that copy. CUDA data
  never leave the device: the C++ library's cuda backend reads the copy's device pointer,
  on the framework's current stream.
- Any other array that speaks DLPack (JAX, ...) on the CPU is read through np.from_dlpack
  (or np.asarray) without a copy, and the NumPy result is handed back through the array's
  own namespace (``x.__array_namespace__().asarray``) when it has one.
"""

from __future__ import annotations

import math
import operator
import sys
from typing import Any, Optional, Tuple, Union

import numpy as np


_DLPACK_CUDA = 2  # DLPack's kDLCUDA device type

Shape = Union[int, Tuple[int, ...]]


class Torch:
    """PyTorch tensors, CPU or CUDA. Torch and CuPy offer the same methods: the operations
    fastconv needs, in the framework's own terms."""
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch

    def dtype_name(self, x: Any) -> str:
        return str(x.dtype).replace("torch.", "")

    def is_cuda(self, x: Any) -> bool:
        return x.device.type == "cuda"

    def stream(self, x: Any) -> int:
        return self.torch.cuda.current_stream(x.device).cuda_stream if self.is_cuda(x) else 0

    def astype(self, x: Any, name: str) -> Any:
        return x.to(getattr(self.torch, name))

    def promote(self, a: Any, b: Any) -> str:
        return str(self.torch.promote_types(a.dtype, b.dtype)).replace("torch.", "")

    def moved_copy(self, x: Any, axis: int) -> Any:
        return self.torch.movedim(x.detach(), axis, -1).clone(memory_format=self.torch.contiguous_format)

    def moved_back(self, y: Any, axis: int) -> Any:
        return self.torch.movedim(y, -1, axis).contiguous()

    def empty(self, shape: Shape, like: Any) -> Any:
        return self.torch.empty(shape, dtype=like.dtype, device=like.device)

    def contiguous(self, x: Any) -> Any:
        return x.detach().contiguous()

    def device_id(self, x: Any) -> int:
        return x.device.index or 0

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.from_dlpack(x.detach())

    def from_numpy(self, a: np.ndarray, like: Any) -> Any:
        return self.torch.from_numpy(a)

    def to_host(self, x: Any) -> np.ndarray:
        return np.from_dlpack(x.detach().cpu().contiguous())


class CuPy:
    """CuPy arrays (always on a CUDA device)."""
    name = "cupy"

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy

    def dtype_name(self, x: Any) -> str:
        return dtype_name(x.dtype)

    def is_cuda(self, x: Any) -> bool:
        return True

    def stream(self, x: Any) -> int:
        return int(self.cupy.cuda.get_current_stream().ptr)

    def astype(self, x: Any, name: str) -> Any:
        return x.astype(name)

    def promote(self, a: Any, b: Any) -> str:
        return dtype_name(np.result_type(a.dtype, b.dtype))

    def moved_copy(self, x: Any, axis: int) -> Any:
        return self.cupy.moveaxis(x, axis, -1).copy(order="C")

    def moved_back(self, y: Any, axis: int) -> Any:
        return self.cupy.ascontiguousarray(self.cupy.moveaxis(y, -1, axis))

    def empty(self, shape: Shape, like: Any) -> Any:
        with self.cupy.cuda.Device(like.device.id):
            return self.cupy.empty(shape, dtype=like.dtype)

    def contiguous(self, x: Any) -> Any:
        return self.cupy.ascontiguousarray(x)

    def device_id(self, x: Any) -> int:
        return int(x.device.id)

    def from_numpy(self, a: np.ndarray, like: Any) -> Any:
        return self.cupy.asarray(a)

    def to_host(self, x: Any) -> np.ndarray:
        return self.cupy.asnumpy(x)


Framework = Union[Torch, CuPy]

_dtype_names: dict = {}


def dtype_name(dtype: np.dtype) -> str:
    """dtype.name, remembered per dtype: NumPy 2 computes the name in Python each time
    (1.9 µs here, eight times a 2^10 transform), and every call of fastconv asks for it."""
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = dtype.name
    return name

# From this size on (bytes) aligned_copy aligns its copy: below it the extra steps cost more
# than a transform gains (about 1 µs a call).
_ALIGNED_FROM = 1 << 20


def aligned_copy(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of a, its data on a 64-byte boundary from 1 MiB on. NumPy's large
    arrays start 16 bytes past a cache line as often as not, and the cpu kernels' vectors then
    straddle lines: a transform of 2^16 … 2^24 float32 words in such an array took 1.2–1.3× as
    long, and one in sequency or Paley order of 16 MiB or more takes its fastest path only
    into an aligned array (docs/benchmarks.md)."""
    if a.nbytes < _ALIGNED_FROM:
        return np.array(a, order="C", copy=True)
    copy = empty_aligned(a.shape, a.dtype)
    np.copyto(copy, a)
    return copy


def empty_aligned(shape: Any, dtype: Any = float) -> np.ndarray:
    """Like numpy.empty(shape, dtype): an uninitialised C-contiguous array, but with its data
    on a 64-byte boundary, as fastconv's own results have it. NumPy's large arrays start 16
    bytes past one as often as not, and the kernels' vectors then straddle cache lines: an
    in-place wht(x, out=x) of such an array takes up to 1.5× as long (docs/benchmarks.md).
    The array is a view of a slightly larger one, which it keeps alive."""
    dtype = np.dtype(dtype)
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"empty_aligned: negative dimensions are not allowed: {shape}")
    nbytes = math.prod(shape) * dtype.itemsize
    room = np.empty(nbytes + 64, np.uint8)
    start = -room.ctypes.data % 64
    return room[start : start + nbytes].view(dtype).reshape(shape)


_frameworks: dict = {}


def framework_of(x: Any) -> Optional[Framework]:
    """The Framework of a PyTorch tensor or CuPy array, else None (only if that library is
    already imported: fastconv never imports it itself)."""
    module = type(x).__module__.split(".")[0]
    if module not in ("torch", "cupy") or module not in sys.modules:
        return None
    if module not in _frameworks:
        _frameworks[module] = Torch() if module == "torch" else CuPy()
    return _frameworks[module]


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy view of a host array or DLPack CPU tensor (no copy where possible)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__"):
        device = getattr(x, "__dlpack_device__", None)
        if device is not None and device()[0] == _DLPACK_CUDA:
            raise TypeError(
                f"a {type(x).__module__}.{type(x).__name__} on a CUDA device: fastconv computes on the device "
                "only for PyTorch tensors and CuPy arrays; copy it to the host first"
            )
        try:
            return np.from_dlpack(x)
        except (TypeError, BufferError, RuntimeError):
            return np.asarray(x)  # a dtype NumPy's DLPack import lacks (bfloat16 with ml_dtypes)
    return np.asarray(x)


def like_input(result: np.ndarray, x: Any) -> Any:
    """The NumPy result as x's kind of array: NumPy for NumPy inputs and array-likes, else
    through x's array namespace (JAX, array-API arrays) when it has one."""
    if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack__"):
        return result
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is None:
        return result
    return namespace().asarray(result)
