"""Arrays from other libraries: results come back as the same kind of array on the same
device, with the values NumPy's own path gives (itself checked against scipy's Hadamard
matrix and the O(N^2) definitions in the other test files). PyTorch, CuPy and JAX tests run
where those libraries are installed (CI installs JAX), CUDA tests where a GPU is; otherwise
they are skipped, saying why."""

import numpy as np
import pytest
import scipy.linalg

import fastconv

rng = np.random.default_rng(11)


def reference_wht(a: np.ndarray) -> np.ndarray:
    """The unnormalised Hadamard-order WHT along the last axis, from scipy's matrix, in float64."""
    return a.astype(np.float64) @ scipy.linalg.hadamard(a.shape[-1])


def reference_convolve(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    n = max(len(f), len(g))
    f = np.pad(f.astype(np.float64), (0, n - len(f)))
    g = np.pad(g.astype(np.float64), (0, n - len(g)))
    t = np.arange(n)
    return np.array([np.dot(f, g[t ^ tau]) for tau in range(n)])


# --- bfloat16 through NumPy (ml_dtypes) -------------------------------------------------------

def test_numpy_bfloat16_is_computed_in_float_and_rounded_once():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes (NumPy's bfloat16) is not installed")
    x = rng.integers(-8, 8, size=(3, 64)).astype(ml_dtypes.bfloat16)
    y = fastconv.wht(x, normalize="orthonormal")
    assert y.dtype == x.dtype and y.shape == x.shape
    expected = (reference_wht(x.astype(np.float64)) / 8).astype(np.float32).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(y.astype(np.float32), expected.astype(np.float32))


# --- JAX (CPU) --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jnp():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    # New JAX arrays go to JAX's default device, a GPU where jax-cuda finds one: these tests are
    # about host arrays (a JAX array on a GPU is refused, below).
    with jax.default_device(jax.devices("cpu")[0]):
        yield jax.numpy


def test_jax_arrays_on_a_gpu_are_refused():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX has no GPU here")
    x = jax.device_put(jax.numpy.ones(16, dtype=jax.numpy.float32), gpu)
    with pytest.raises(TypeError, match="only for PyTorch tensors and CuPy arrays; copy it to the host first"):
        fastconv.wht(x)


def test_jax_arrays_come_back_as_jax_arrays(jnp):
    x = jnp.asarray(rng.standard_normal((4, 32)), dtype=jnp.float32)
    y = fastconv.wht(x, axis=0)
    assert type(y) is type(x)
    np.testing.assert_allclose(np.asarray(y), reference_wht(np.asarray(x).T).T, rtol=1e-5, atol=1e-4)
    f = jnp.asarray([1, 2, 3, 4], dtype=jnp.int32)
    g = jnp.asarray([1, 0], dtype=jnp.int32)
    c = fastconv.dyadic_convolve(f, g)
    assert type(c) is type(x) and c.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(c), reference_convolve(np.asarray(f), np.asarray(g)))
    system = fastconv.DyadicSystem(np.array([0.5, 0.25, 0.0, 0.25]))
    assert type(system.apply(jnp.ones(4))) is type(x)


def test_jax_bfloat16(jnp):
    x = jnp.arange(16, dtype=jnp.bfloat16)
    y = fastconv.wht(x)
    assert y.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(y, dtype=np.float32), reference_wht(np.arange(16.0)))


# --- PyTorch (CPU, and CUDA where there is a GPU) ---------------------------------------------


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16", "bfloat16"])
def test_torch_cpu_tensors(torch, dtype):
    x = torch.from_numpy(rng.integers(-8, 8, size=(2, 3, 16))).to(getattr(torch, dtype))
    y = fastconv.wht(x)
    assert isinstance(y, torch.Tensor) and y.dtype == x.dtype and y.device == x.device and y.shape == x.shape
    np.testing.assert_array_equal(y.to(torch.float64).numpy(), reference_wht(x.to(torch.float64).numpy()))


def test_torch_cpu_axis_batches_and_errors(torch):
    x = torch.randn(8, 5, dtype=torch.float64, requires_grad=True)
    y = fastconv.wht(x, axis=0, normalize="orthonormal")
    assert isinstance(y, torch.Tensor) and not y.requires_grad
    np.testing.assert_allclose(y.numpy(), reference_wht(x.detach().numpy().T).T / np.sqrt(8), atol=1e-12)
    assert torch.equal(x.detach(), x.detach().clone())  # the input is untouched
    with pytest.raises(fastconv.InvalidArgumentError, match="not a power of two"):
        fastconv.wht(x)  # rows of 5
    with pytest.raises(fastconv.InvalidArgumentError, match="out= takes NumPy arrays"):
        fastconv.wht(x, out=np.empty((8, 5)))


def test_torch_cpu_dyadic_operations(torch):
    f = torch.tensor([1, 2, 3, 4, 0, 0, 1, 1])
    g = torch.tensor([1, 0, 0, 1])
    c = fastconv.dyadic_convolve(f, g)
    assert isinstance(c, torch.Tensor) and c.dtype == torch.int64
    np.testing.assert_array_equal(c.numpy(), reference_convolve(f.numpy(), g.numpy()))
    np.testing.assert_array_equal(
        fastconv.dyadic_autocorrelate(f).numpy(), reference_convolve(f.numpy(), f.numpy())
    )
    h = torch.tensor([4.0, 1.0, 2.0, 1.0], dtype=torch.float64)
    y = fastconv.dyadic_convolve(f.to(torch.float64), h)
    np.testing.assert_allclose(fastconv.dyadic_deconvolve(y, h).numpy(), f.numpy(), atol=1e-12)
    with pytest.raises(fastconv.InvalidArgumentError, match="same kind"):
        fastconv.dyadic_convolve(f, g.numpy())


def cuda_or_skip(torch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: CUDA tensors need an NVIDIA GPU (the code paths compile here, but did not run)")
    if "cuda" not in fastconv.backends():
        pytest.skip("this fastconv was built without the cuda backend (FASTCONV_CUDA=ON pip install .)")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_torch_cuda_wht_stays_on_the_device(torch, dtype):
    cuda_or_skip(torch)
    x = torch.randint(-8, 8, (4, 1024), device="cuda").to(getattr(torch, dtype))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y = fastconv.wht(x, order="sequency", normalize="orthonormal")
    stream.synchronize()
    assert y.is_cuda and y.dtype == x.dtype and y.shape == x.shape
    expected = fastconv.wht(x.cpu(), order="sequency", normalize="orthonormal", backend="reference")
    tolerance = 1e-2 if dtype in ("float16", "bfloat16") else 1e-5
    np.testing.assert_allclose(y.cpu().to(torch.float64).numpy(), expected.to(torch.float64).numpy(), atol=tolerance * 300)
    np.testing.assert_allclose(
        fastconv.wht(x.T.contiguous(), axis=0).cpu().to(torch.float64).numpy().T,
        fastconv.wht(x.cpu()).to(torch.float64).numpy(),
        atol=tolerance * 300,
    )


def test_torch_cuda_dyadic_operations_and_systems(torch):
    cuda_or_skip(torch)
    f = torch.randn(1 << 12, device="cuda", dtype=torch.float64)
    g = torch.randn(1 << 6, device="cuda", dtype=torch.float64)
    c = fastconv.dyadic_convolve(f, g)
    assert c.is_cuda
    np.testing.assert_allclose(c.cpu().numpy(), fastconv.dyadic_convolve(f.cpu(), g.cpu()).numpy(), atol=1e-9)
    r = fastconv.dyadic_autocorrelate(f)
    np.testing.assert_allclose(r.cpu().numpy(), fastconv.dyadic_autocorrelate(f.cpu()).numpy(), atol=1e-8)
    h = torch.zeros(64, dtype=torch.float64, device="cuda")
    h[0], h[63] = 4.0, 1.0
    np.testing.assert_allclose(fastconv.dyadic_deconvolve(fastconv.dyadic_convolve(f, h), h).cpu().numpy(), f.cpu().numpy(), atol=1e-9)
    system = fastconv.DyadicSystem(g)
    assert system.backend.name == "cuda"
    y = system.apply(f)
    assert y.is_cuda
    np.testing.assert_allclose(y.cpu().numpy(), c.cpu().numpy(), atol=1e-9)
    with pytest.raises(fastconv.UnsupportedError, match="integer"):
        fastconv.wht(torch.ones(8, dtype=torch.int32, device="cuda"))
    with pytest.raises(fastconv.UnsupportedError, match="cuda backend"):
        fastconv.wht(f, backend="cpu")


# --- CuPy (CUDA) ------------------------------------------------------------------------------


def test_cupy_arrays_stay_on_the_device():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - CuPy raises its own runtime error type
        pytest.skip(f"no CUDA device for CuPy: {e}")
    if "cuda" not in fastconv.backends():
        pytest.skip("this fastconv was built without the cuda backend (FASTCONV_CUDA=ON pip install .)")
    x = cupy.arange(2048, dtype=cupy.float32).reshape(2, 1024)
    y = fastconv.wht(x)
    assert isinstance(y, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(y), reference_wht(cupy.asnumpy(x)), rtol=1e-5, atol=1e-2)
    c = fastconv.dyadic_convolve(x[0], x[1, :16])
    assert isinstance(c, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(c), reference_convolve(cupy.asnumpy(x[0]), cupy.asnumpy(x[1, :16])), rtol=1e-5)
