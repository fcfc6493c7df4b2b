"""conv2d against an independent NumPy definition (and PyTorch's conv2d where installed): every
algorithm, padding forms, batch/channel/filter counts, plans, errors."""

import numpy as np
import pytest

import fastconv

rng = np.random.default_rng(5)
ALGORITHMS = ["auto", "direct", "im2col_gemm", "fft2d", "winograd", "polyhankel"]


def reference_conv2d(x, w, bias=None, padding=(0, 0, 0, 0)):
    """The definition, in float64: a sum over channels and kernel taps of shifted products."""
    top, bottom, left, right = padding
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, k, oh, ow))
    for u in range(kh):
        for v in range(kw):
            out += np.einsum("nchw,kc->nkhw", x[:, :, u : u + oh, v : v + ow], w[:, :, u, v].astype(np.float64))
    if bias is not None:
        out += bias.astype(np.float64)[None, :, None, None]
    return out


def tolerance(x, w, dtype):
    """A few units in the last place of the largest sum of |x||w| (the FFT algorithms spread their
    rounding over a plane)."""
    scale = np.abs(x).max() * np.abs(w).sum(axis=(1, 2, 3)).max()
    return (1e-5 if dtype == np.float32 else 1e-12) * scale * 10


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    "n,c,h,w,k,kh,kw,padding",
    [
        (1, 1, 8, 8, 1, 3, 3, (0, 0, 0, 0)),
        (2, 3, 12, 9, 4, 3, 3, (1, 1, 1, 1)),
        (3, 5, 7, 16, 2, 3, 3, (2, 0, 0, 3)),  # asymmetric, larger than kernel - 1 on one side
        (2, 4, 10, 11, 3, 1, 5, (0, 0, 2, 2)),  # 1 x k
        (1, 2, 9, 6, 5, 4, 1, (3, 1, 0, 0)),  # k x 1
        (4, 8, 14, 14, 8, 5, 5, (2, 2, 2, 2)),
        (1, 16, 6, 6, 16, 3, 3, (1, 1, 1, 1)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_algorithm_matches_the_definition(algorithm, n, c, h, w, k, kh, kw, padding, dtype):
    if algorithm == "winograd" and (kh, kw) != (3, 3):
        with pytest.raises(fastconv.UnsupportedError):
            fastconv.conv2d(np.zeros((n, c, h, w), dtype), np.zeros((k, c, kh, kw), dtype), algorithm=algorithm)
        return
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weights = rng.standard_normal((k, c, kh, kw)).astype(dtype)
    bias = rng.standard_normal(k).astype(dtype)
    y = fastconv.conv2d(x, weights, bias, padding=padding, algorithm=algorithm)
    assert y.dtype == dtype
    expected = reference_conv2d(x, weights, bias, padding)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=0, atol=tolerance(x, weights, dtype))


def test_padding_forms_and_unbatched_inputs():
    x = rng.standard_normal((3, 9, 10))
    w = rng.standard_normal((2, 3, 4, 3))
    np.testing.assert_allclose(
        fastconv.conv2d(x, w, padding=(1, 2)), reference_conv2d(x[None], w, padding=(1, 1, 2, 2))[0], atol=1e-10
    )
    np.testing.assert_allclose(fastconv.conv2d(x, w, padding="valid"), reference_conv2d(x[None], w)[0], atol=1e-10)
    same = fastconv.conv2d(x, w, padding="same")  # PyTorch: the even kernel's extra row goes below
    assert same.shape == (2, 9, 10)
    np.testing.assert_allclose(same, reference_conv2d(x[None], w, padding=(1, 2, 1, 1))[0], atol=1e-10)


def test_a_plan_is_reused_and_reports_its_choice():
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    plan = fastconv.Conv2dPlan((2, 3, 16, 16), w, padding=1)
    assert plan.algorithm in ALGORITHMS[1:]
    for _ in range(3):
        x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
        np.testing.assert_allclose(plan(x), reference_conv2d(x, w, padding=(1, 1, 1, 1)), atol=tolerance(x, w, np.float32))


def test_mixed_and_integer_inputs_compute_in_float64():
    x = rng.integers(-3, 3, size=(1, 2, 5, 5))
    w = rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
    y = fastconv.conv2d(x, w)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, reference_conv2d(x, w), atol=1e-5)


def test_bad_inputs_are_errors_with_reasons():
    x = np.zeros((1, 3, 8, 8), np.float32)
    with pytest.raises(fastconv.InvalidArgumentError, match="input channels"):
        fastconv.conv2d(x, np.zeros((2, 4, 3, 3), np.float32))
    with pytest.raises(fastconv.InvalidArgumentError, match="bias"):
        fastconv.conv2d(x, np.zeros((2, 3, 3, 3), np.float32), bias=np.zeros(3, np.float32))
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.conv2d(x, np.zeros((2, 3, 9, 3), np.float32))  # the kernel is taller than the image
    with pytest.raises(fastconv.InvalidArgumentError, match="algorithm"):
        fastconv.conv2d(x, np.zeros((2, 3, 3, 3), np.float32), algorithm="fast")
    with pytest.raises(fastconv.InvalidArgumentError, match="padding"):
        fastconv.conv2d(x, np.zeros((2, 3, 3, 3), np.float32), padding=(1, 2, 3))
    with pytest.raises(fastconv.InvalidArgumentError, match="shape"):
        fastconv.Conv2dPlan((1, 3, 8, 8), np.zeros((2, 3, 3, 3), np.float32))(np.zeros((1, 3, 8, 9), np.float32))


# --- PyTorch ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_torch_tensors_match_torch_conv2d(torch, algorithm):
    x = torch.randn(3, 6, 13, 11)
    w = torch.randn(5, 6, 3, 3)
    b = torch.randn(5)
    y = fastconv.conv2d(x, w, b, padding=(1, 2), algorithm=algorithm)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    expected = torch.nn.functional.conv2d(x.double(), w.double(), b.double(), padding=(1, 2))
    np.testing.assert_allclose(y.double().numpy(), expected.numpy(), atol=1e-4)


@pytest.mark.parametrize("padding", [0, 2, (1, 3), "same", "valid"])
def test_fastconv_torch_conv2d_is_a_drop_in_replacement(torch, padding):
    import fastconv.torch as ft

    conv = torch.nn.Conv2d(4, 6, (5, 3), padding=padding)
    fast = ft.Conv2d.from_torch(conv)
    x = torch.randn(2, 4, 17, 12)
    with torch.no_grad():
        np.testing.assert_allclose(fast(x).numpy(), conv(x).numpy(), atol=1e-4)
        conv.weight.mul_(2)  # the plan notices new weights
        np.testing.assert_allclose(fast(x).numpy(), conv(x).numpy(), atol=1e-4)
    assert "algorithm" in repr(fast)
    with pytest.raises(ValueError, match="stride"):
        ft.Conv2d(4, 6, 3, stride=2)
