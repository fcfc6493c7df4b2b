"""BooleanFunction against SageMath's published values and NumPy definitions."""

import json

import numpy as np
import pytest

import fastconv

BENT = "0113077C165E76A8"  # SageMath's BooleanFunction docs: a bent function of 6 variables


def values_of_hex(hex_string, n):
    value = int(hex_string, 16)
    return np.array([(value >> x) & 1 for x in range(2**n)], np.int64)


def walsh_definition(values):
    size = len(values)
    x = np.arange(size)
    dot = np.array([[bin(a & xx).count("1") & 1 for xx in x] for a in range(size)])
    return ((-1) ** ((values[None, :] + dot) % 2)).sum(axis=1)


def test_sage_bent_function():
    f = fastconv.BooleanFunction(BENT)
    assert f.num_variables == 6 and len(f) == 64
    assert f.nonlinearity == 28 and f.is_bent and f.linearity == 8
    assert f.to_hex() == BENT.lower() or f.to_hex() == BENT
    values = values_of_hex(BENT, 6)
    np.testing.assert_array_equal(f.truth_table(), values)
    np.testing.assert_array_equal(f.walsh_spectrum(), walsh_definition(values))
    assert f.walsh_spectrum().dtype == np.int64
    assert set(np.abs(f.walsh_spectrum())) == {8}


def test_constructors_agree(tmp_path):
    values = values_of_hex(BENT, 6)
    f = fastconv.BooleanFunction(BENT)
    assert fastconv.BooleanFunction(values) == f
    assert fastconv.BooleanFunction(list(values)) == f
    assert fastconv.BooleanFunction.from_values(values.astype(bool)) == f
    assert fastconv.BooleanFunction.from_hex("0x" + BENT) == f
    path = tmp_path / "f.txt"
    path.write_text("0x" + BENT + "\n")
    assert fastconv.BooleanFunction.from_file(path) == f
    assert fastconv.BooleanFunction.from_file(str(path)) == f
    assert f(3) == 1 and f(0) == 0


def test_autocorrelation_and_anf():
    rng = np.random.default_rng(1)
    values = rng.integers(0, 2, 32)
    f = fastconv.BooleanFunction(values)
    signs = (-1) ** values
    x = np.arange(32)
    np.testing.assert_array_equal(f.autocorrelation(), [np.sum(signs * signs[x ^ a]) for a in range(32)])
    # Binary Möbius transform, the definition: coefficient u = xor of f(x) over x ⊆ u.
    anf = [int(np.bitwise_xor.reduce(values[[v for v in range(32) if v & u == v]])) for u in range(32)]
    np.testing.assert_array_equal(f.algebraic_normal_form().truth_table(), anf)
    assert f.algebraic_degree == max(bin(u).count("1") for u in range(32) if anf[u])


def test_majority_function():
    # The majority function of 5 variables: algebraic immunity ceil(n/2) = 3 (optimal), degree 4 (2^k + 1 = 5 → 4).
    values = [int(bin(x).count("1") >= 3) for x in range(32)]
    f = fastconv.BooleanFunction(values)
    assert f.algebraic_immunity == 3
    assert f.is_balanced and f.weight == 16
    assert f.algebraic_degree == 4


def test_summary_keys_are_the_clis():
    s = fastconv.BooleanFunction(BENT).summary()
    assert list(s) == ["n", "weight", "balanced", "nonlinearity", "linearity", "absolute_indicator",
                       "sum_of_squares_indicator", "algebraic_degree", "algebraic_immunity", "correlation_immunity",
                       "resiliency", "is_bent", "is_plateaued", "plateau_amplitude", "walsh_spectrum",
                       "autocorrelation_spectrum"]
    assert s["n"] == 6 and s["nonlinearity"] == 28 and s["is_bent"] and s["absolute_indicator"] == 0
    assert s["plateau_amplitude"] == 8 and s["autocorrelation_spectrum"] == [[0, 63], [64, 1]]
    f = np.array(fastconv.BooleanFunction(BENT).truth_table(), dtype=np.int64)
    signs = 1 - 2 * f
    walsh = [int(sum(signs[x] * (-1) ** bin(a & x).count("1") for x in range(64))) for a in range(64)]
    assert s["walsh_spectrum"] == [[v, walsh.count(v)] for v in sorted(set(walsh))]
    assert s["algebraic_immunity"] == fastconv.BooleanFunction(BENT).algebraic_immunity
    assert fastconv.BooleanFunction([0, 0, 0, 0, 0, 0, 0, 1]).summary()["plateau_amplitude"] is None  # |W|: 6, 2
    json.dumps(s)


def test_histograms_and_structures():
    f = fastconv.BooleanFunction(BENT)
    assert f.walsh_histogram() == {-8: int(np.sum(f.walsh_spectrum() == -8)), 8: int(np.sum(f.walsh_spectrum() == 8))}
    assert f.linear_structures() == [(0, 0)]
    assert f.autocorrelation_histogram() == {0: 63, 64: 1}


def test_sum_of_squares_past_64_bits():
    # The constant 0 of 22 variables: sum of Delta^2 = 2^66. Asked for alone, an overflow error;
    # in the summary None, and the rest stands (as the CLI's JSON null).
    f = fastconv.BooleanFunction.from_hex("0" * (1 << 20))
    s = f.summary()
    assert s["sum_of_squares_indicator"] is None
    assert s["weight"] == 0 and s["linearity"] == 1 << 22
    with pytest.raises(fastconv.IntegerOverflowError, match="73786976294838206464"):
        f.sum_of_squares_indicator


def test_errors():
    with pytest.raises(fastconv.InvalidArgumentError, match="value 2 is 2"):
        fastconv.BooleanFunction([0, 1, 2, 0])
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.BooleanFunction([0, 1, 1])
    with pytest.raises(ValueError):
        fastconv.BooleanFunction("0xZZ")
    with pytest.raises(fastconv.FileError):
        fastconv.BooleanFunction.from_file("/nonexistent/truth-table.txt")


def test_non_integer_tables_and_directories_are_errors_with_reasons(tmp_path):
    for table in ([0.0, 1.0], np.array([0, 1], complex), ["a", "b"]):
        with pytest.raises(fastconv.InvalidArgumentError, match="holds integers, not values of dtype"):
            fastconv.BooleanFunction(table)
        with pytest.raises(fastconv.InvalidArgumentError, match="holds integers"):
            fastconv.BooleanFunction.from_values(table)
    with pytest.raises(fastconv.InvalidArgumentError, match="values"):  # its length, not NumPy's float64
        fastconv.BooleanFunction([])
    with pytest.raises(fastconv.FileError, match="Is a directory"):
        fastconv.BooleanFunction.from_file(tmp_path)


def test_equal_functions_hash_equal():
    a, b, c = fastconv.BooleanFunction([0, 1, 1, 0]), fastconv.BooleanFunction("6"), fastconv.BooleanFunction("06", n=3)
    assert a == b and hash(a) == hash(b) and a != c
    assert len({a, b, c}) == 2 and {a: 1}[b] == 1
    assert hash(fastconv.BooleanFunction(BENT)) == hash(fastconv.BooleanFunction(values_of_hex(BENT, 6)))
