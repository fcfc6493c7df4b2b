"""fastconv.wht against scipy.linalg.hadamard (an independent construction of the matrix)."""

import subprocess
import sys
import threading

import numpy as np
import pytest
from scipy.linalg import hadamard

import fastconv


def sign_changes(row):
    return int(np.count_nonzero(row[1:] != row[:-1]))


def bit_reverse(k, n):
    return int(format(k, f"0{n}b")[::-1], 2) if n else 0


def matrix(n, order):
    h = hadamard(2**n)
    if order == "sequency":
        return h[np.argsort([sign_changes(r) for r in h], kind="stable")]
    if order == "paley":
        return h[[bit_reverse(k, n) for k in range(2**n)]]
    return h


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["hadamard", "sequency", "paley"])
@pytest.mark.parametrize("n", [0, 1, 3, 7, 10])
def test_float_matches_matrix(dtype, order, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(2**n).astype(dtype)
    y = fastconv.wht(x, order=order)
    assert y.dtype == dtype and y.shape == x.shape
    expected = matrix(n, order) @ x.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(y, expected, rtol=tol, atol=tol * np.abs(x).sum())


@pytest.mark.parametrize("normalize,scale", [("none", 1.0), ("orthonormal", 2**-4), ("inverse", 2**-8)])
def test_normalization(normalize, scale):
    x = np.random.default_rng(1).standard_normal(256)
    np.testing.assert_allclose(fastconv.wht(x, normalize=normalize), scale * (hadamard(256) @ x), atol=1e-10)


def test_inverse_round_trip():
    x = np.random.default_rng(2).standard_normal(1024)
    np.testing.assert_allclose(fastconv.wht(fastconv.wht(x), normalize="inverse"), x, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integers_exact(dtype):
    x = np.random.default_rng(3).integers(-1000, 1000, 512).astype(dtype)
    y = fastconv.wht(x, order="sequency")
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, matrix(9, "sequency") @ x.astype(np.int64))


def test_float16_rounded_once():
    x = np.random.default_rng(4).standard_normal(64).astype(np.float16)
    y = fastconv.wht(x)
    assert y.dtype == np.float16
    exact = hadamard(64) @ x.astype(np.float64)
    np.testing.assert_allclose(y.astype(np.float64), exact, rtol=2e-3, atol=1e-3 * np.abs(x.astype(float)).sum())


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_batched_along_any_axis(axis):
    x = np.random.default_rng(5).standard_normal((4, 8, 16))
    y = fastconv.wht(x, axis=axis)
    expected = np.moveaxis(np.moveaxis(x, axis, -1) @ hadamard(x.shape[axis]).T, -1, axis)
    assert y.shape == x.shape and y.flags.c_contiguous
    np.testing.assert_allclose(y, expected, atol=1e-10)


def test_input_untouched_and_result_new():
    x = np.arange(8.0)
    before = x.copy()
    y = fastconv.wht(x)
    np.testing.assert_array_equal(x, before)
    assert not np.shares_memory(x, y)


@pytest.mark.parametrize("order", ["hadamard", "sequency"])
def test_large_results_are_aligned_and_correct(order):
    # From 1 MiB on the copy that is transformed starts on a 64-byte boundary (the kernels'
    # vectors straddle cache lines otherwise), and is an ordinary array: writable, its own data.
    n = 18
    x = np.random.default_rng(11).integers(-3, 4, 2**n).astype(np.float32)
    y = fastconv.wht(x, order=order)
    assert y.ctypes.data % 64 == 0 and y.flags.c_contiguous and y.flags.writeable
    assert y.shape == x.shape and y.dtype == x.dtype and not np.shares_memory(x, y)
    # The first coefficients against the definition (every order's row 0 is all ones; rows 1
    # and 2 of the natural order alternate by 1 and by 2; sequency row 1 is one sign change).
    assert y[0] == x.sum()
    if order == "hadamard":
        signs = np.where(np.arange(2**n) % 2 == 0, 1, -1)
        assert y[1] == (signs * x).sum()
    else:
        signs = np.where(np.arange(2**n) < 2 ** (n - 1), 1, -1)
        assert y[1] == (signs * x).sum()
    y[:] = 0  # writable, and x stays as it was
    assert x.any()
    z = fastconv.wht(x[::2].reshape(2, -1), axis=0)  # strided and moved: copied, then aligned
    np.testing.assert_array_equal(z, np.stack([x[::2][: 2 ** (n - 2)] + x[::2][2 ** (n - 2) :],
                                               x[::2][: 2 ** (n - 2)] - x[::2][2 ** (n - 2) :]]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16])
@pytest.mark.parametrize("shape", [0, 5, (3, 0), [1024], (2, 2**18)])
def test_empty_aligned_is_numpy_empty_on_a_64_byte_boundary(dtype, shape):
    a = fastconv.empty_aligned(shape, dtype)
    like = np.empty(shape, dtype)
    assert a.shape == like.shape and a.dtype == like.dtype
    assert a.flags.c_contiguous and a.flags.writeable
    assert a.size == 0 or a.ctypes.data % 64 == 0  # an empty array has no data to place
    a.fill(1)  # all of it is its own
    assert np.all(a == 1)


def test_empty_aligned_refuses_what_numpy_empty_refuses():
    with pytest.raises(ValueError):
        fastconv.empty_aligned((4, -1), np.float32)
    with pytest.raises(TypeError):
        fastconv.empty_aligned(2.5, np.float32)
    assert fastconv.empty_aligned(3).dtype == np.empty(3).dtype  # float64 by default, as NumPy


@pytest.mark.parametrize("order", ["hadamard", "sequency", "paley"])
def test_in_place_on_empty_aligned_matches_matrix(order):
    n = 10
    x = np.random.default_rng(12).integers(-3, 4, 2**n).astype(np.float32)
    a = fastconv.empty_aligned(x.shape, x.dtype)
    a[:] = x
    assert fastconv.wht(a, order=order, out=a) is a
    np.testing.assert_array_equal(a, (matrix(n, order) @ x.astype(np.int64)).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16])
def test_one_call_path_matches_the_general_one(dtype):
    # A C-contiguous array along its last axis takes one call of the extension (copy and
    # transform), and so does out= another C-contiguous array; a strided out= takes the
    # general path. All must give the same result.
    rng = np.random.default_rng(13)
    for shape in [(1,), (8,), (3, 16), (2, 3, 4), (2**12,)]:
        x = rng.integers(-4, 5, shape).astype(dtype)
        for order in ["hadamard", "sequency", "paley"]:
            for normalize in (["none"] if np.dtype(dtype).kind == "i" else ["none", "orthonormal", "inverse"]):
                before = x.copy()
                y = fastconv.wht(x, order=order, normalize=normalize)
                strided = np.empty(x.shape[:-1] + (2 * x.shape[-1],), dtype)[..., ::2]
                general = fastconv.wht(x, order=order, normalize=normalize, out=strided)
                assert general is strided
                into = np.empty_like(x)
                assert fastconv.wht(x, order=order, normalize=normalize, out=into) is into
                np.testing.assert_array_equal(into, general)
                assert y.dtype == x.dtype and y.shape == x.shape and y.flags.c_contiguous and y.flags.writeable
                assert not np.shares_memory(x, y)
                np.testing.assert_array_equal(y, general)
                np.testing.assert_array_equal(x, before)
                inplace = x.copy()
                assert fastconv.wht(inplace, order=order, normalize=normalize, out=inplace) is inplace
                np.testing.assert_array_equal(inplace, general)
    x = rng.standard_normal((4, 8)).astype(dtype)
    x.flags.writeable = False  # read-only inputs are fine: only the copy is written
    np.testing.assert_array_equal(fastconv.wht(x), fastconv.wht(x.copy(), out=np.empty_like(x)))
    with pytest.raises(fastconv.InvalidArgumentError, match="writable"):
        fastconv.wht(x, out=x)


def test_one_call_path_errors_and_edges():
    assert fastconv.wht(np.zeros((0, 4), np.float32)).shape == (0, 4)
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.wht(np.zeros((0, 3), np.float32))
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.wht(np.zeros((2, 6), np.float32))
    with pytest.raises(fastconv.InvalidArgumentError, match="scalar"):
        fastconv.wht(np.float32(1.0) * np.ones((), np.float32))
    with pytest.raises(fastconv.InvalidArgumentError, match="accumulat"):
        fastconv.wht(np.zeros(4, np.float32), accumulate="triple")
    x = np.full(4, 2**30, np.int32)
    with pytest.raises(fastconv.IntegerOverflowError):
        fastconv.wht(x)
    np.testing.assert_array_equal(x, 2**30)
    big_endian = np.arange(8, dtype=">f4")  # not a dtype the one call takes: the general path
    expected = fastconv.wht(big_endian.astype(np.float32))
    np.testing.assert_array_equal(fastconv.wht(big_endian), expected)
    assert fastconv.wht(big_endian, out=big_endian) is big_endian  # in place, in its own byte order
    assert big_endian.dtype == np.dtype(">f4")
    np.testing.assert_array_equal(big_endian, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_out_another_array_in_one_call(dtype):
    rng = np.random.default_rng(17)
    x = rng.integers(-4, 5, (3, 16)).astype(dtype)
    before = x.copy()
    out = np.full_like(x, 7)
    assert fastconv.wht(x, normalize="orthonormal", out=out) is out
    np.testing.assert_allclose(out.astype(np.float64), before.astype(np.float64) @ hadamard(16).T / 4, atol=1e-3)
    np.testing.assert_array_equal(x, before)
    # out overlapping x (views of one buffer): the result is still the transform of x as it was
    for shift in (1, 5, 16, -3):
        base = rng.integers(-4, 5, 64).astype(dtype)
        x, out = (base[:32], base[shift:shift + 32]) if shift > 0 else (base[-shift:-shift + 32], base[:32])
        expected = fastconv.wht(x.copy())
        assert fastconv.wht(x, out=out) is out
        np.testing.assert_array_equal(out, expected)
    # every argument is checked before out is written
    out = np.full((2, 8), 7, dtype)
    for bad in [dict(order="fancy"), dict(normalize="twice"), dict(accumulate="triple"),
                dict(backend="no-such-backend")]:
        with pytest.raises(fastconv.InvalidArgumentError):
            fastconv.wht(np.ones((2, 8), dtype), out=out, **bad)
        np.testing.assert_array_equal(out, 7)
    out = np.full((2, 6), 7, dtype)
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.wht(np.ones((2, 6), dtype), out=out)
    np.testing.assert_array_equal(out, 7)
    empty = np.empty((0, 4), dtype)
    assert fastconv.wht(np.zeros((0, 4), dtype), out=empty) is empty
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.wht(np.zeros((0, 3), dtype), out=np.empty((0, 3), dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_out_another_array_of_integers(dtype):
    rng = np.random.default_rng(19)
    x = rng.integers(-100, 100, (3, 16)).astype(dtype)
    out = np.full_like(x, 7)
    assert fastconv.wht(x, order="sequency", out=out) is out
    np.testing.assert_array_equal(out, fastconv.wht(x, order="sequency"))
    for shift in (1, 16, -3):  # out overlapping x
        base = rng.integers(-100, 100, 64).astype(dtype)
        x, out = (base[:32], base[shift:shift + 32]) if shift > 0 else (base[-shift:-shift + 32], base[:32])
        expected = fastconv.wht(x.copy())
        assert fastconv.wht(x, out=out) is out
        np.testing.assert_array_equal(out, expected)
    # an overflow leaves out as it was, also where out overlaps x
    big = np.iinfo(dtype).max // 2
    x = np.full(4, big, dtype)
    out = np.full(4, 7, dtype)
    with pytest.raises(fastconv.IntegerOverflowError):
        fastconv.wht(x, out=out)
    np.testing.assert_array_equal(out, 7)
    np.testing.assert_array_equal(x, big)
    base = np.full(6, big, dtype)
    with pytest.raises(fastconv.IntegerOverflowError):
        fastconv.wht(base[:4], out=base[2:])
    np.testing.assert_array_equal(base, big)


def test_out_in_place_without_copy():
    x = np.random.default_rng(6).standard_normal((3, 32))
    expected = x @ hadamard(32).T
    address = x.ctypes.data
    y = fastconv.wht(x, out=x)
    assert y is x and x.ctypes.data == address
    np.testing.assert_allclose(x, expected, atol=1e-10)


def test_out_other_array_and_axis():
    x = np.random.default_rng(7).standard_normal((16, 2))
    out = np.empty_like(x)
    assert fastconv.wht(x, axis=0, out=out) is out
    np.testing.assert_allclose(out, hadamard(16) @ x, atol=1e-10)
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.wht(x, out=np.empty((16, 2), np.float32))


def test_conversions():
    y = fastconv.wht([1, 2, 3, 4])
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, hadamard(4) @ [1, 2, 3, 4])
    assert fastconv.wht(np.array([1, 0], np.int8)).dtype == np.int64
    assert fastconv.wht(np.array([True, False])).dtype == np.int64


class DLPackOnly:
    """A tensor that offers nothing but the DLPack protocol."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_input():
    x = np.random.default_rng(8).standard_normal(16).astype(np.float32)
    y = fastconv.wht(DLPackOnly(x))
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, hadamard(16) @ x, rtol=1e-5, atol=1e-5)


def test_backends_agree():
    x = np.random.default_rng(9).integers(-50, 50, (5, 256)).astype(np.int64)
    expected = fastconv.wht(x, backend="reference")
    np.testing.assert_array_equal(fastconv.wht(x, backend="cpu"), expected)
    np.testing.assert_array_equal(fastconv.wht(x, backend=fastconv.Backend("cpu", threads=1)), expected)


def test_errors():
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.wht(np.zeros(6))
    with pytest.raises(ValueError):
        fastconv.wht(np.zeros(6))
    with pytest.raises(fastconv.InvalidArgumentError, match="order"):
        fastconv.wht(np.zeros(4), order="fancy")
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.wht(np.zeros(4), backend="no-such-backend")
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.wht(np.zeros(4), axis=1)
    x = np.full(4, 2**30, np.int32)
    with pytest.raises(fastconv.IntegerOverflowError) as info:
        fastconv.wht(x, out=x)
    assert isinstance(info.value, ValueError) and info.value.code == "overflow"
    np.testing.assert_array_equal(x, 2**30)  # left untouched


def test_overflow_errors_give_the_callers_index():
    """The extension names the rows it transformed (axis moved last, flattened); the error names
    the element of the caller's array."""
    x = np.zeros((4, 3), np.int32)
    x[:, 2] = 2**29
    with pytest.raises(fastconv.IntegerOverflowError, match=r"output element \(0, 2\) = 2147483648"):
        fastconv.wht(x, axis=0)
    y = np.zeros((2, 3, 4), np.int32)
    y[1, 2, :] = 2**29
    for out in (None, y, np.empty_like(y)):
        with pytest.raises(fastconv.IntegerOverflowError, match=r"output element \(1, 2, 0\) = 2147483648"):
            fastconv.wht(y, out=out)
    z = np.zeros((2, 4, 3), np.int32)
    z[1, :, 2] = 2**29
    with pytest.raises(fastconv.IntegerOverflowError, match=r"output element \(1, 0, 2\)"):
        fastconv.wht(z, axis=1)
    w = np.zeros((2, 4), np.int32)
    w[0] = 2**29
    with pytest.raises(fastconv.IntegerOverflowError, match="output element 0 of row 0 = 2147483648"):
        fastconv.wht(w)
    v = np.zeros((4, 3), np.int64)
    v[:, 2] = [1, 2, 3, 4]  # column 2's inverse transform: 10/4 is not an integer
    with pytest.raises(fastconv.InvalidArgumentError, match=r"output element \(0, 2\) = 10 is not divisible by 4"):
        fastconv.wht(v, axis=0, normalize="inverse")


def test_integers_beyond_int64_in_lists_are_refused_not_rounded():
    """NumPy makes [2**63 + 1, 0] float64, which would round the exact transform's input."""
    for args in (([2**63 + 1, 0],), ([[1, 2], [2**64, 3]],), ((-(2**63) - 1, 0),)):
        with pytest.raises(fastconv.InvalidArgumentError, match="does not fit int64"):
            fastconv.wht(*args)
    with pytest.raises(fastconv.InvalidArgumentError, match=r"f: element 0: the integer 9223372036854775809"):
        fastconv.dyadic_convolve([2**63 + 1, 0], [1, 0])
    with pytest.raises(fastconv.InvalidArgumentError, match=r"g: element 1: the integer"):
        fastconv.dyadic_convolve([1, 0], [0, -(2**63) - 5])
    np.testing.assert_array_equal(fastconv.wht([1e19, 2.0]), [1e19 + 2.0, 1e19 - 2.0])  # floats as given
    np.testing.assert_array_equal(fastconv.wht([2**62, 0]), [2**62, 2**62])


def test_empty_batches():
    assert fastconv.wht(np.zeros((0, 8))).shape == (0, 8)
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.wht(np.zeros((0, 6)))
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.wht(np.zeros(0))


def test_non_contiguous_input():
    x = np.random.default_rng(11).standard_normal((4, 64))[:, ::2]
    np.testing.assert_allclose(fastconv.wht(x), x @ hadamard(32).T, atol=1e-10)


def test_error_classes():
    for cls in (fastconv.InvalidArgumentError, fastconv.FileError, fastconv.UnsupportedError,
                fastconv.IntegerOverflowError):
        assert issubclass(cls, fastconv.Error) and issubclass(cls, ValueError)
    assert issubclass(fastconv.DeviceError, fastconv.Error) and issubclass(fastconv.DeviceError, RuntimeError)
    assert issubclass(fastconv.OutOfMemoryError, fastconv.Error) and issubclass(fastconv.OutOfMemoryError, MemoryError)


_REFUSED_FOR_MEMORY = """
import resource, numpy as np, fastconv
x = np.full(1 << 24, 1 << 40, dtype=np.int64)  # its exact WHT needs a copy in the 128-bit ring: 256 MiB
vm = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (160 << 20), vm + (160 << 20)))
try:
    fastconv.wht(x, out=x)
except fastconv.OutOfMemoryError as e:
    assert isinstance(e, MemoryError) and e.code == "out_of_memory"
    assert (x == 1 << 40).all()  # untouched
    print(e)
else:
    raise SystemExit("no OutOfMemoryError")
"""


def test_work_that_cannot_fit_is_refused_before_allocating():
    # In a child process: an address-space limit would hamper every later test.
    r = subprocess.run([sys.executable, "-c", _REFUSED_FOR_MEMORY], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the exact transform's copy in a wide ring needs 256.0 MiB, " in r.stdout
    assert " MiB available" in r.stdout


def test_threads():
    x = np.random.default_rng(10).standard_normal((8, 4096))
    expected = fastconv.wht(x)
    results = [None] * 4

    def work(i):
        results[i] = fastconv.wht(x)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, expected)


def test_backends_and_devices():
    names = fastconv.backends()
    assert names[0] == "auto" and "cpu" in names and "reference" in names
    assert isinstance(fastconv.devices(), list)
    assert fastconv.Backend("reference").name == "reference"
    assert "textbook" in fastconv.variants("reference")
    # repr makes the same backend again, its device included (it had been left out)
    for device in fastconv.devices():
        b = fastconv.Backend(device["backend"], device=device["id"])
        assert b.device == device["id"] and f'device="{device["id"]}"' in repr(b)
        again = eval(repr(b), {"Backend": fastconv.Backend})
        assert again.device == b.device and again.variant == b.variant
    assert repr(fastconv.Backend("cpu", variant="portable")) == 'Backend("cpu", variant="portable")'
    assert repr(fastconv.Backend("cpu", threads=1, variant="sse4")) == 'Backend("cpu", variant="sse4", threads=1)'
    assert fastconv.__version__ == "0.1.0"


# --- accumulate="float64": float data computed in float64, each result rounded once ---------------


@pytest.mark.parametrize("normalize", ["none", "orthonormal", "inverse"])
@pytest.mark.parametrize("order", ["hadamard", "sequency", "paley"])
def test_float64_accumulation_is_the_float64_transform_rounded_once(order, normalize):
    x = np.random.default_rng(30).standard_normal((3, 512)).astype(np.float32)
    y = fastconv.wht(x, order=order, normalize=normalize, accumulate="float64")
    assert y.dtype == np.float32
    # An independent double computation: the float64 transform of the widened data, rounded once.
    expected = fastconv.wht(x.astype(np.float64), order=order, normalize=normalize).astype(np.float32)
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))
    np.testing.assert_array_equal(fastconv.wht(x, order=order, normalize=normalize, accumulate="double"), y)


def test_float64_accumulation_of_integer_valued_floats_is_correctly_rounded():
    x = np.random.default_rng(31).integers(-(2**20), 2**20, 2**14)
    exact = fastconv.wht(x)  # int64: exact
    y = fastconv.wht(x.astype(np.float32), accumulate="float64")
    np.testing.assert_array_equal(y, exact.astype(np.float32))
    assert np.count_nonzero(fastconv.wht(x.astype(np.float32)) != y) > 0  # float rounds at every stage


def test_float64_accumulation_of_float16_and_in_place():
    x = np.random.default_rng(32).standard_normal((2, 256)).astype(np.float16)
    expected = fastconv.wht(x.astype(np.float64), normalize="orthonormal").astype(np.float16)
    y = fastconv.wht(x, normalize="orthonormal", accumulate="float64")
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.view(np.uint16), expected.view(np.uint16))
    fastconv.wht(x, normalize="orthonormal", accumulate="float64", out=x)
    np.testing.assert_array_equal(x.view(np.uint16), expected.view(np.uint16))


def test_float64_accumulation_leaves_float64_and_integers_unchanged():
    x = np.random.default_rng(33).standard_normal(1024)
    np.testing.assert_array_equal(fastconv.wht(x, accumulate="float64"), fastconv.wht(x))
    i = np.arange(-512, 512, dtype=np.int32)
    np.testing.assert_array_equal(fastconv.wht(i, accumulate="float64"), fastconv.wht(i))


def test_accumulate_errors():
    with pytest.raises(fastconv.InvalidArgumentError) as info:
        fastconv.wht(np.zeros(4, np.float32), accumulate="float128")
    assert str(info.value) == "unknown accumulation 'float128': use native or float64"
    with pytest.raises(fastconv.InvalidArgumentError, match="unknown accumulation 'Float64'"):
        fastconv.wht(np.zeros(4), accumulate="Float64")
