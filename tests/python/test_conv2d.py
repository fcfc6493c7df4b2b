"""conv2d against an independent NumPy definition (and PyTorch's conv2d where installed): every
algorithm, padding forms, batch/channel/filter counts, plans, errors; the backends against
scipy.signal.correlate per channel; CUDA tensors where there is a GPU (skipped, saying why,
where there is none)."""

import numpy as np
import pytest
import scipy.signal

import fastconv

rng = np.random.default_rng(5)
ALGORITHMS = ["auto", "direct", "im2col_gemm", "fft2d", "winograd", "polyhankel", "polyhankel_merged"]


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


def test_the_fft_library_is_named():
    # a build choice (FASTCONV_FFT): FFTW's version string or Intel MKL's version and code path
    name = fastconv.conv2d_fft_library()
    assert name.startswith("fftw-3.") or name.startswith("Intel MKL 20"), name


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
    with pytest.raises(fastconv.InvalidArgumentError, match="padding"):
        fastconv.conv2d(x, np.zeros((2, 3, 3, 3), np.float32), padding=1.5)
    for shape in ((1, 3, -8, 8), (1, 3, 8.0, 8), (3, 8, True)):
        with pytest.raises(fastconv.InvalidArgumentError, match="input shape"):
            fastconv.Conv2dPlan(shape, np.zeros((2, 3, 3, 3), np.float32))


def test_complex_operands_are_refused_not_cut_to_their_real_parts():
    x, w, b = np.ones((1, 1, 4, 4)), np.ones((1, 1, 3, 3)), np.ones(1)
    for args in ((x + 1j, w, None), (x, w * 1j, None), (x, w, b * 1j)):
        with pytest.raises(fastconv.InvalidArgumentError, match="real numbers, not arrays of dtype complex128"):
            fastconv.conv2d(*args)
    plan = fastconv.Conv2dPlan(x.shape, w)
    with pytest.raises(fastconv.InvalidArgumentError, match="complex64"):
        plan(x.astype(np.complex64))
    np.testing.assert_array_equal(plan(x), np.full((1, 1, 2, 2), 9.0))


@pytest.mark.filterwarnings("error")  # NumPy's overflow warning is not the refusal
def test_values_a_float32_plan_cannot_hold_are_refused_not_made_infinite():
    plan = fastconv.Conv2dPlan((1, 1, 3, 3), np.ones((1, 1, 1, 1), np.float32))
    x = np.full((1, 1, 3, 3), 1e30)
    x[0, 0, 1, 2] = -1e300
    with pytest.raises(fastconv.InvalidArgumentError, match=r"input element \(0, 0, 1, 2\): -1e\+300 overflows float32"):
        plan(x)
    np.testing.assert_allclose(plan(np.full((1, 1, 3, 3), 1e30)), np.full((1, 1, 3, 3), 1e30), rtol=1e-6)
    unbatched = fastconv.Conv2dPlan((1, 5, 5), np.ones((1, 1, 1, 1), np.float32))
    x3 = np.ones((1, 5, 5))
    x3[0, 2, 3] = 1e300
    with pytest.raises(fastconv.InvalidArgumentError, match=r"input element \(0, 2, 3\): 1e\+300"):
        unbatched(x3)
    with pytest.raises(fastconv.InvalidArgumentError, match=r"weight element \(0, 0, 0, 0\): 1e\+200 overflows"):
        fastconv.Conv2dPlan((1, 1, 3, 3), np.full((1, 1, 1, 1), 1e200), dtype=np.float32)
    with pytest.raises(fastconv.InvalidArgumentError, match=r"bias element \(0,\): 1e\+40 overflows"):
        fastconv.Conv2dPlan((1, 1, 3, 3), np.ones((1, 1, 1, 1), np.float32), bias=np.array([1e40]), dtype=np.float32)


@pytest.mark.parametrize("algorithm", ["fft2d", "polyhankel"])
def test_fft_algorithms_take_values_near_the_ends_of_the_range(algorithm):
    """A plane's FFT sums 4096 values of 1e35 (4e38, past float32's 3.4e38) although every
    output fits; weights of 1e-44 divided by the FFT's length underflowed before."""
    x = rng.uniform(-1, 1, (1, 2, 64, 64)).astype(np.float32)
    w = rng.uniform(-1, 1, (2, 2, 3, 3)).astype(np.float32)
    for xs, ws in ((1e35, 1.0), (1e30, 1e-44)):
        xa, wa = (x * np.float32(xs)).astype(np.float32), (w.astype(np.float64) * ws).astype(np.float32)
        got = fastconv.conv2d(xa, wa, padding=1, algorithm=algorithm)
        want = reference_conv2d(xa, wa, padding=(1, 1, 1, 1))
        assert np.all(np.isfinite(got))
        scale = reference_conv2d(np.abs(xa), np.abs(wa), padding=(1, 1, 1, 1)).max()
        assert np.max(np.abs(got - want)) <= 2e-5 * scale


def test_padding_is_not_a_bool():
    for padding in (True, (1, False)):
        with pytest.raises(fastconv.InvalidArgumentError, match="bool|whole numbers"):
            fastconv.conv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 1, 1)), padding=padding)


# --- backends ---------------------------------------------------------------------------------


def correlate_conv2d(x, w, bias=None, padding=(0, 0, 0, 0)):
    """The definition again, a different way: scipy's 2-D correlation of each (image, channel)
    plane with each filter's channel, summed over channels, in float64."""
    top, bottom, left, right = padding
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    out = np.array(
        [[sum(scipy.signal.correlate(image[c], f[c].astype(np.float64), mode="valid") for c in range(len(f)))
          for f in w] for image in x]
    )
    return out if bias is None else out + bias.astype(np.float64)[None, :, None, None]


BACKEND_ALGORITHMS = [("reference", "auto"), ("reference", "direct")] + [("cpu", a) for a in ALGORITHMS]


@pytest.mark.parametrize("backend,algorithm", BACKEND_ALGORITHMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_host_backends_match_scipy_correlate(backend, algorithm, dtype):
    x = rng.standard_normal((2, 3, 11, 9)).astype(dtype)
    w = rng.standard_normal((4, 3, 3, 3)).astype(dtype)
    b = rng.standard_normal(4).astype(dtype)
    padding = (1, 2, 0, 1)
    y = fastconv.conv2d(x, w, b, padding=padding, algorithm=algorithm, backend=backend, threads=2)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, correlate_conv2d(x, w, b, padding), rtol=0, atol=tolerance(x, w, dtype))


@pytest.mark.parametrize(
    "backend,name", [("reference", "reference"), ("cpu", "cpu"), ("auto", "cpu"),
                     (fastconv.Backend("cpu", threads=1), "cpu"), (fastconv.Backend("reference"), "reference")]
)
def test_a_plan_runs_on_its_backend(backend, name):
    x = rng.standard_normal((1, 2, 8, 7))
    w = rng.standard_normal((3, 2, 4, 2))
    plan = fastconv.Conv2dPlan(x.shape, w, padding="same", backend=backend)
    assert plan.backend.name == name
    if name == "reference":
        assert plan.algorithm == "direct"  # the reference backend's auto
    np.testing.assert_allclose(plan(x), correlate_conv2d(x, w, padding=(1, 2, 0, 1)), atol=1e-12)


def test_backends_without_conv2d_and_unknown_backends_are_errors():
    x = np.zeros((1, 2, 6, 6), np.float32)
    w = np.zeros((1, 2, 3, 3), np.float32)
    with pytest.raises(fastconv.UnsupportedError, match="opencl backend does not compute conv2d"):
        fastconv.conv2d(x, w, backend="opencl")  # whether or not this build has OpenCL
    with pytest.raises(fastconv.UnsupportedError, match="opencl backend does not compute conv2d"):
        fastconv.Conv2dPlan(x.shape, w, backend="opencl")
    with pytest.raises(fastconv.UnsupportedError, match="reference backend computes auto, direct, not fft2d"):
        fastconv.conv2d(x, w, algorithm="fft2d", backend="reference")
    with pytest.raises(fastconv.InvalidArgumentError, match="unknown backend 'tpu'"):
        fastconv.conv2d(x, w, backend="tpu")
    with pytest.raises(fastconv.InvalidArgumentError, match="negative"):
        fastconv.conv2d(x, w, backend="cpu", threads=-1)


def test_cuda_arrays_are_refused_by_backends_that_read_host_memory():
    # The backend conv2d picks first for a CUDA input (that of its device): the refusals need no GPU.
    device_backend = fastconv._fastconv._conv2d_device_backend
    for host_backend in ("cpu", "reference", fastconv.Backend("cpu")):
        with pytest.raises(fastconv.UnsupportedError, match="a CUDA array is computed by the cuda backend, not by"):
            device_backend(host_backend, 0)
    with pytest.raises(fastconv.UnsupportedError, match="opencl backend does not compute conv2d"):
        device_backend("opencl", 0)


# --- PyTorch ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_torch_tensors_match_torch_conv2d(torch, algorithm):
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(3, 6, 13, 11, generator=generator)
    w = torch.randn(5, 6, 3, 3, generator=generator)
    b = torch.randn(5, generator=generator)
    y = fastconv.conv2d(x, w, b, padding=(1, 2), algorithm=algorithm)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    conv = torch.nn.functional.conv2d
    expected = conv(x.double(), w.double(), b.double(), padding=(1, 2))
    # float rounding on the scale of max Σ|x||w| (winograd's transforms add a constant factor)
    scale = conv(x.double().abs(), w.double().abs(), b.double().abs(), padding=(1, 2)).max().item()
    np.testing.assert_allclose(y.double().numpy(), expected.numpy(), atol=5e-6 * scale)


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


def test_fastconv_torch_conv2d_on_the_reference_backend(torch):
    import fastconv.torch as ft

    conv = torch.nn.Conv2d(3, 2, 3, padding=1, dtype=torch.float64)
    fast = ft.Conv2d.from_torch(conv, backend="reference")
    x = torch.randn(2, 3, 9, 8, dtype=torch.float64)
    with torch.no_grad():
        np.testing.assert_allclose(fast(x).numpy(), conv(x).numpy(), atol=1e-12)
    assert next(iter(fast._plans.values())).backend.name == "reference"


# --- CUDA tensors -------------------------------------------------------------------------------


def cuda_or_skip(torch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: CUDA tensors need an NVIDIA GPU (the code paths compile here, but did not run)")
    if "cuda" not in fastconv.backends():
        pytest.skip("this fastconv was built without the cuda backend (FASTCONV_CUDA=ON pip install .)")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_cuda_conv2d_stays_on_the_device(torch, dtype):
    cuda_or_skip(torch)
    x = torch.randn(2, 3, 17, 12, dtype=getattr(torch, dtype), device="cuda")
    w = torch.randn(4, 3, 5, 3, dtype=x.dtype, device="cuda")
    b = torch.randn(4, dtype=x.dtype, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # computed on the current stream, which is not the default one
        y = fastconv.conv2d(x, w, b, padding=(1, 2))
    stream.synchronize()
    assert y.is_cuda and y.device == x.device and y.dtype == x.dtype and y.shape == (2, 4, 15, 14)
    expected = correlate_conv2d(x.cpu().numpy(), w.cpu().numpy(), b.cpu().numpy(), (1, 1, 2, 2))
    atol = tolerance(x.cpu().numpy(), w.cpu().numpy(), np.float32 if dtype == "float32" else np.float64)
    np.testing.assert_allclose(y.cpu().double().numpy(), expected, atol=atol)
    unbatched = fastconv.conv2d(x[0], w.cpu(), b.cpu(), padding=(1, 2), backend="cuda")  # host weights
    assert unbatched.is_cuda and unbatched.shape == (4, 15, 14)
    np.testing.assert_allclose(unbatched.cpu().double().numpy(), expected[0], atol=atol)


def test_torch_cuda_plans_and_errors(torch):
    cuda_or_skip(torch)
    x = torch.randn(1, 2, 10, 10, device="cuda")
    w = torch.randn(3, 2, 3, 3, device="cuda")
    plan = fastconv.Conv2dPlan(tuple(x.shape), w, padding=1)  # CUDA weights: auto is the cuda backend
    assert plan.backend.name == "cuda" and plan.algorithm == "polyhankel"
    expected = correlate_conv2d(x.cpu().numpy(), w.cpu().numpy(), padding=(1, 1, 1, 1))
    atol = tolerance(x.cpu().numpy(), w.cpu().numpy(), np.float32)
    for _ in range(2):
        np.testing.assert_allclose(plan(x).cpu().numpy(), expected, atol=atol)
    with pytest.raises(fastconv.UnsupportedError, match="cuda backend"):
        fastconv.conv2d(x, w, backend="cpu")
    with pytest.raises(fastconv.UnsupportedError, match="cuda backend"):
        fastconv.conv2d(x, w, backend="reference")
    with pytest.raises(fastconv.UnsupportedError, match="reads host memory"):
        fastconv.Conv2dPlan(tuple(x.shape), w, backend="cpu")(x)  # a host plan
    with pytest.raises(fastconv.UnsupportedError, match="polyhankel"):
        fastconv.conv2d(x, w, algorithm="winograd")
    host = fastconv.conv2d(x.cpu(), w, backend="cpu")  # CUDA weights, host input: planned from a host copy
    assert not host.is_cuda
    np.testing.assert_allclose(host.numpy(), correlate_conv2d(x.cpu().numpy(), w.cpu().numpy()), atol=1e-4)


def test_fastconv_torch_conv2d_on_cuda(torch):
    cuda_or_skip(torch)
    import fastconv.torch as ft

    conv = torch.nn.Conv2d(4, 6, 5, padding=2).cuda()
    fast = ft.Conv2d.from_torch(conv)
    x = torch.randn(2, 4, 20, 16, device="cuda")

    def expected():  # in float64 on the host: cuDNN's own float32 may round in TF32
        return torch.nn.functional.conv2d(x.cpu().double(), conv.weight.cpu().double(), conv.bias.cpu().double(),
                                          padding=2).numpy()

    with torch.no_grad():
        y = fast(x)
        assert y.is_cuda
        np.testing.assert_allclose(y.cpu().double().numpy(), expected(), atol=1e-4)
        conv.weight.mul_(2)  # the plan notices new weights
        np.testing.assert_allclose(fast(x).cpu().double().numpy(), expected(), atol=2e-4)
    assert next(iter(fast._plans.values())).backend.name == "cuda"
    with pytest.raises(TypeError, match="device"):
        fast(x.cpu())
