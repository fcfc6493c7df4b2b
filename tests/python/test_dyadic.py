"""Dyadic operations against their O(N^2) definitions in NumPy."""

import numpy as np
import pytest

import fastconv


def convolve_definition(f, g):
    n = max(len(f), len(g))
    f = np.pad(np.asarray(f, np.float64), (0, n - len(f)))
    g = np.pad(np.asarray(g, np.float64), (0, n - len(g)))
    x = np.arange(n)
    return np.array([np.sum(f * g[x ^ t]) for t in range(n)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_convolve_float(dtype):
    rng = np.random.default_rng(1)
    f, g = rng.standard_normal(64).astype(dtype), rng.standard_normal(64).astype(dtype)
    c = fastconv.dyadic_convolve(f, g)
    assert c.dtype == dtype
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(c, convolve_definition(f, g), atol=tol * 64)
    np.testing.assert_array_equal(fastconv.dyadic_correlate(f, g), c)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_convolve_integers_exact_and_padded(dtype):
    rng = np.random.default_rng(2)
    f, g = rng.integers(-100, 100, 128).astype(dtype), rng.integers(-100, 100, 16).astype(dtype)
    c = fastconv.dyadic_convolve(f, g)
    assert c.dtype == dtype and len(c) == 128
    np.testing.assert_array_equal(c, convolve_definition(f, g).astype(np.int64))


def test_autocorrelate():
    f = np.random.default_rng(3).integers(-9, 9, 32)
    np.testing.assert_array_equal(fastconv.dyadic_autocorrelate(f), convolve_definition(f, f))


def test_deconvolve_identifies_the_system():
    rng = np.random.default_rng(4)
    h = rng.standard_normal(32)
    f = rng.standard_normal(32)
    y = convolve_definition(f, h)
    np.testing.assert_allclose(fastconv.dyadic_deconvolve(y, h), f, atol=1e-9)


def test_deconvolve_singular():
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.dyadic_deconvolve(np.ones(4), np.ones(4))


def test_dyadic_system():
    rng = np.random.default_rng(5)
    h = rng.integers(-5, 5, 16)
    system = fastconv.DyadicSystem(h)
    assert len(system) == 16 and system.dtype == np.int64
    for _ in range(3):
        x = rng.integers(-5, 5, 64)
        np.testing.assert_array_equal(system.apply(x), convolve_definition(x, h))
    with pytest.raises(fastconv.InvalidArgumentError):
        system.apply(np.zeros(16))  # float into an integer system


def test_a_narrow_integer_system_takes_wide_signals_that_fit_and_refuses_the_rest():
    h = np.array([1, -2, 0, 3], np.int32)
    system = fastconv.DyadicSystem(h)
    fits = np.array([2**31 - 1, -(2**31), 7, 0], np.int64) // 16  # the results fit int32 too
    np.testing.assert_array_equal(system.apply(fits), convolve_definition(fits, h.astype(np.int64)))
    for signal, index in ((np.array([2**32 + 7, 0, 0, 0], np.int64), 0), (np.array([0, 0, 2**31, 0], np.uint32), 2),
                          ([0, -(2**33), 0, 0], 1)):
        with pytest.raises(fastconv.IntegerOverflowError, match=rf"x\[{index}\] = .* does not fit int32"):
            system.apply(signal)


def test_mixed_dtypes_promote():
    c = fastconv.dyadic_convolve(np.ones(4, np.float32), np.ones(4, np.int64))
    assert c.dtype == np.float64


def test_errors():
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.dyadic_convolve(np.ones(3), np.ones(4))
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.dyadic_convolve(np.ones((2, 2)), np.ones(4))
    with pytest.raises(fastconv.IntegerOverflowError):
        fastconv.dyadic_convolve(np.full(4, 2**20, np.int32), np.full(4, 2**20, np.int32))


# --- accumulate="float64": float32 operations computed in float64, each result rounded once -------


def bits(a):
    return np.asarray(a, np.float32).view(np.uint32)


def test_float64_accumulation_is_the_float64_result_rounded_once():
    rng = np.random.default_rng(40)
    f, g = rng.standard_normal(256).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    f64, g64 = f.astype(np.float64), g.astype(np.float64)
    c = fastconv.dyadic_convolve(f, g, accumulate="float64")
    assert c.dtype == np.float32
    np.testing.assert_array_equal(bits(c), bits(fastconv.dyadic_convolve(f64, g64).astype(np.float32)))
    np.testing.assert_array_equal(bits(fastconv.dyadic_correlate(f, g, accumulate="float64")), bits(c))
    system = fastconv.DyadicSystem(g, accumulate="float64")
    np.testing.assert_array_equal(bits(system.apply(f)), bits(c))
    r = fastconv.dyadic_autocorrelate(f, accumulate="float64")
    np.testing.assert_array_equal(bits(r), bits(fastconv.dyadic_autocorrelate(f64).astype(np.float32)))
    h = g.copy()
    h[0] += 40  # every Walsh coefficient far from zero
    y = fastconv.dyadic_convolve(f, h)
    d = fastconv.dyadic_deconvolve(y, h, accumulate="float64")
    expected = fastconv.dyadic_deconvolve(y.astype(np.float64), h.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(bits(d), bits(expected))


def test_float64_accumulation_against_the_exact_convolution():
    rng = np.random.default_rng(41)
    f, g = rng.integers(-1000, 1000, 4096), rng.integers(-1000, 1000, 4096)
    exact = fastconv.dyadic_convolve(f, g).astype(np.float64)  # int64: exact
    c = fastconv.dyadic_convolve(f.astype(np.float32), g.astype(np.float32), accumulate="float64")
    n = 12
    bound = 2.0**-24 * np.abs(exact) + (3 * n + 2) * 2.0**-53 * np.linalg.norm(f) * np.linalg.norm(g)
    assert np.all(np.abs(c.astype(np.float64) - exact) <= bound)


def test_accumulate_errors():
    with pytest.raises(fastconv.InvalidArgumentError) as info:
        fastconv.dyadic_convolve(np.ones(4, np.float32), np.ones(4, np.float32), accumulate="quad")
    assert str(info.value) == "unknown accumulation 'quad': use native or float64"
    with pytest.raises(fastconv.InvalidArgumentError, match="unknown accumulation 'x'"):
        fastconv.DyadicSystem(np.ones(4), accumulate="x")
    with pytest.raises(fastconv.InvalidArgumentError, match="unknown accumulation 'f8'"):
        fastconv.dyadic_autocorrelate(np.ones(4), accumulate="f8")


def test_results_are_aligned_arrays_of_their_own():
    # The extension's results are written into uninitialised, 64-byte aligned memory that the
    # array owns through its base: every word is written, and the arrays behave as any other.
    rng = np.random.default_rng(12)
    for n in (4, 16):
        f = rng.integers(-4, 5, 2**n).astype(np.float32)
        g = rng.integers(-4, 5, 2**n).astype(np.float32)
        spectrum = fastconv.wht(f.astype(np.float64)) * fastconv.wht(g.astype(np.float64))
        expected = fastconv.wht(spectrum) / 2**n
        for result in (fastconv.dyadic_convolve(f, g), fastconv.DyadicSystem(g).apply(f)):
            assert result.ctypes.data % 64 == 0 and result.flags.c_contiguous and result.flags.writeable
            np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * np.abs(expected).max())
        auto = fastconv.dyadic_autocorrelate(f)
        assert auto.ctypes.data % 64 == 0
        expected = fastconv.wht(fastconv.wht(f.astype(np.float64)) ** 2) / 2**n
        np.testing.assert_allclose(auto, expected, rtol=0, atol=1e-5 * np.abs(expected).max())
        del f, g
        result[:] = 1  # still its own memory after the inputs are gone
        assert result.sum() == 2**n


def test_other_byte_order():
    # Arrays in the other byte order (read from big-endian files, say) are taken in native order.
    f = np.array([1, 2, 0, 1], dtype=">f8")
    g = np.array([0, 1, 1, 0], dtype=">i4")
    want = fastconv.dyadic_convolve(f.astype(np.float64), g.astype(np.float64))
    np.testing.assert_array_equal(fastconv.dyadic_convolve(f, g), want)
    np.testing.assert_array_equal(fastconv.dyadic_autocorrelate(f), fastconv.dyadic_autocorrelate(f.astype(np.float64)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_one_call_path_matches_the_general_one(dtype):
    # C-contiguous 1-D NumPy operands of one dtype go straight to the extension; a strided view
    # of the same values takes the general path. The results must be the same.
    rng = np.random.default_rng(14)
    f = rng.integers(-3, 4, 64).astype(dtype)
    g = rng.integers(-3, 4, 16).astype(dtype)
    strided = lambda a: np.repeat(a, 2)[::2]  # noqa: E731 - the same values, not contiguous
    np.testing.assert_array_equal(fastconv.dyadic_convolve(f, g), fastconv.dyadic_convolve(strided(f), strided(g)))
    np.testing.assert_array_equal(fastconv.dyadic_autocorrelate(f), fastconv.dyadic_autocorrelate(strided(f)))
    y = fastconv.dyadic_convolve(f, g)
    np.testing.assert_allclose(fastconv.dyadic_deconvolve(y, g), fastconv.dyadic_deconvolve(strided(y), strided(g)))
    with pytest.raises(fastconv.InvalidArgumentError, match="power of two"):
        fastconv.dyadic_convolve(f[:48].copy(), g)


def test_int64_results_are_numpys_own_int64():
    # NumPy's int64 (numpy.int64 scalars, dtype char 'l' on LP64), not an equal dtype of scalar
    # type numpy.longlong, which the buffer protocol's 'q' format gave: isinstance(r[0],
    # numpy.int64) was False.
    own = np.dtype(np.int64)
    f = np.array([1, 2, 3, 4], np.int64)
    h = np.array([4, 1, 2, 1], np.int64)
    results = {
        "wht": fastconv.wht(f),
        "wht of a batch": fastconv.wht(np.stack([f, h])),
        "wht of a list": fastconv.wht([1, 0, 1, 1]),
        "convolve": fastconv.dyadic_convolve(f, h),
        "correlate": fastconv.dyadic_correlate(f, h),
        "autocorrelate": fastconv.dyadic_autocorrelate(f),
        "deconvolve": fastconv.dyadic_deconvolve(fastconv.dyadic_convolve(f, h), h),
        "DyadicSystem.apply": fastconv.DyadicSystem(h).apply(f),
        "walsh_spectrum": fastconv.BooleanFunction("0113077C165E76A8").walsh_spectrum(),
        "autocorrelation": fastconv.BooleanFunction("0113077C165E76A8").autocorrelation(),
    }
    for name, result in results.items():
        assert result.dtype.char == own.char, name
        assert isinstance(result[(0,) * result.ndim], np.int64), name
    definition = [sum(int(f[x]) * int(h[x ^ t]) for x in range(4)) for t in range(4)]  # [16, 20, 20, 24]
    np.testing.assert_array_equal(results["convolve"], definition)
    np.testing.assert_array_equal(results["deconvolve"], f)
