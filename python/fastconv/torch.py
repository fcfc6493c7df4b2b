"""fastconv for PyTorch: ``fastconv.torch.Conv2d``, a drop-in inference replacement for
``torch.nn.Conv2d`` (stride 1, dilation 1, groups 1, zero padding) that runs fastconv's
convolution algorithms — PolyHankel, Winograd, im2col+GEMM, 2-D FFT, direct, or "auto", the
fastest for each input shape — on CPU tensors, and PolyHankel on CUDA tensors (the cuda
backend, on the tensor's device and PyTorch's current stream).

    conv = torch.nn.Conv2d(16, 16, 5, padding=2)
    fast = fastconv.torch.Conv2d.from_torch(conv)      # same weights, same results to rounding
    with torch.no_grad():
        y = fast(x)

Importing this module imports PyTorch.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import torch

from ._conv2d import ALGORITHMS, BackendLike, Conv2dPlan, PaddingLike, backend_for

__all__ = ["Conv2d"]


class Conv2d(torch.nn.Module):
    """Like ``torch.nn.Conv2d(in_channels, out_channels, kernel_size, padding=..., bias=...)``
    for inference: its forward() computes the same convolution with fastconv's algorithm
    `algorithm`, planned once per input shape and device (kernel spectra and FFT plans are kept;
    the plan is made again if the weights change). Gradients do not flow through it.

    Inputs on the module's device only, as torch.nn.Conv2d. CPU tensors run on `backend` ("auto"
    = "cpu" with `threads` threads, or "reference"); CUDA tensors on the cuda backend of their
    device ("auto" or "cuda"; algorithm "auto" or "polyhankel"), without leaving the device."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: PaddingLike = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        algorithm: str = "auto",
        threads: int = 0,
        backend: BackendLike = "auto",
    ) -> None:
        super().__init__()
        for name, value in (("stride", stride), ("dilation", dilation)):
            if value not in (1, (1, 1)):
                raise ValueError(f"fastconv.torch.Conv2d computes {name} 1 only, not {value!r}")
        if groups != 1:
            raise ValueError(f"fastconv.torch.Conv2d computes groups=1 only, not {groups}")
        if padding_mode != "zeros":
            raise ValueError(f"fastconv.torch.Conv2d pads with zeros only, not '{padding_mode}'")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm '{algorithm}': use one of {', '.join(ALGORITHMS)}")
        reference = torch.nn.Conv2d(
            in_channels, out_channels, kernel_size, padding=padding, bias=bias, device=device, dtype=dtype
        )
        self.weight = reference.weight
        self.bias = reference.bias
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size: Tuple[int, int] = tuple(reference.kernel_size)  # type: ignore[assignment]
        self.padding = padding
        self.algorithm = algorithm
        self.threads = threads
        self.backend = backend
        self._plans: Dict[Tuple, Conv2dPlan] = {}

    @classmethod
    def from_torch(
        cls, conv: torch.nn.Conv2d, algorithm: str = "auto", threads: int = 0, backend: BackendLike = "auto"
    ) -> "Conv2d":
        """A Conv2d computing what `conv` computes, sharing its parameters."""
        fast = cls(
            conv.in_channels,
            conv.out_channels,
            conv.kernel_size,
            stride=conv.stride,
            padding=conv.padding,
            dilation=conv.dilation,
            groups=conv.groups,
            bias=conv.bias is not None,
            padding_mode=conv.padding_mode,
            device=conv.weight.device,
            dtype=conv.weight.dtype,
            algorithm=algorithm,
            threads=threads,
            backend=backend,
        )
        fast.weight = conv.weight
        fast.bias = conv.bias
        return fast

    def _plan(self, x: torch.Tensor) -> Conv2dPlan:
        # New values, storage (.to(), .double()) or tensors for the parameters make a new plan.
        parameters = tuple(None if p is None else (id(p), p._version, p.data_ptr()) for p in (self.weight, self.bias))
        key = (tuple(x.shape), x.device, parameters)
        plan = self._plans.get(key)
        if plan is None:
            self._plans = {k: p for k, p in self._plans.items() if k[2:] == key[2:]}  # drop stale weights
            bias: Optional[torch.Tensor] = None if self.bias is None else self.bias.detach()
            plan = Conv2dPlan(
                tuple(x.shape), self.weight.detach(), bias, self.padding, self.algorithm,
                backend_for(x, self.backend), self.threads, dtype=str(self.weight.dtype).replace("torch.", ""),
            )
            self._plans[key] = plan
        return plan

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != self.weight.dtype:
            raise TypeError(f"input of dtype {x.dtype} for weights of dtype {self.weight.dtype}")
        if x.device != self.weight.device:
            raise TypeError(f"input on device {x.device} for weights on device {self.weight.device}")
        return self._plan(x).execute(x.detach())

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, padding={self.padding}, "
            f"bias={self.bias is not None}, algorithm={self.algorithm!r}, backend={self.backend!r}"
        )
