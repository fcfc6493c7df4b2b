"""SBox against published values (AES, PRESENT) and NumPy definitions of the tables."""

import numpy as np
import pytest

import fastconv

PRESENT = [0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2]


def dot(a, b):
    return bin(a & b).count("1") & 1


def test_aes_published_values():
    aes = fastconv.SBox.named("aes")
    assert aes(0) == 0x63 and aes(1) == 0x7C  # FIPS 197
    assert aes.differential_uniformity == 4
    assert aes.linearity == 32
    assert aes.nonlinearity == 112
    assert aes.boomerang_uniformity == 6
    assert aes.max_degree == 7


def test_present_published_values():
    s = fastconv.SBox(PRESENT)
    assert s == fastconv.SBox.named("present")
    assert (s.input_bits, s.output_bits) == (4, 4)
    assert s.differential_uniformity == 4
    assert s.linearity == 8
    assert s.max_degree == 3 and s.min_degree == 2
    assert s.boomerang_uniformity == 16
    assert s.differential_branch_number == 3
    assert s.linear_branch_number == 2
    assert s.is_permutation and not s.is_apn


def test_tables_match_definitions():
    s = fastconv.SBox(PRESENT)
    size = 16
    lat = np.array([[sum((-1) ** (dot(a, x) ^ dot(b, PRESENT[x])) for x in range(size)) for b in range(size)]
                    for a in range(size)])
    ddt = np.zeros((size, size), np.int64)
    for a in range(size):
        for x in range(size):
            ddt[a, PRESENT[x ^ a] ^ PRESENT[x]] += 1
    act = np.array([[sum((-1) ** dot(b, PRESENT[x] ^ PRESENT[x ^ a]) for x in range(size)) for b in range(size)]
                    for a in range(size)])
    inv = np.argsort(PRESENT)
    bct = np.array([[sum(inv[PRESENT[x] ^ b] ^ inv[PRESENT[x ^ a] ^ b] == a for x in range(size))
                     for b in range(size)] for a in range(size)])
    assert s.lat().dtype == np.int32 and s.lat().shape == (16, 16)
    np.testing.assert_array_equal(s.lat(), lat)
    np.testing.assert_array_equal(s.lat(scale="absolute_bias"), lat / 2)
    np.testing.assert_array_equal(s.lat(scale="correlation"), lat / 16)
    np.testing.assert_array_equal(s.ddt(), ddt)
    np.testing.assert_array_equal(s.act(), act)
    np.testing.assert_array_equal(s.bct(), bct)


def test_summary_is_the_clis():
    s = fastconv.SBox(PRESENT).summary()
    spectra = {k: s.pop(k) for k in ("differential_spectrum", "absolute_walsh_spectrum", "degree_spectrum",
                                       "boomerang_spectrum")}
    assert s == {"n": 4, "m": 4, "bijective": True, "differential_uniformity": 4, "linearity": 8,
                 "nonlinearity": 4, "algebraic_degree": 3, "min_algebraic_degree": 2, "boomerang_uniformity": 16,
                 "fixed_points": 0, "is_apn": False, "differential_branch_number": 3, "linear_branch_number": 2}
    assert list(fastconv.SBox(PRESENT).summary()) == [
        "n", "m", "bijective", "differential_uniformity", "differential_spectrum", "linearity", "nonlinearity",
        "absolute_walsh_spectrum", "algebraic_degree", "min_algebraic_degree", "degree_spectrum",
        "boomerang_uniformity", "boomerang_spectrum", "fixed_points", "is_apn", "differential_branch_number",
        "linear_branch_number"]
    # The spectra by their definitions, as [value, count] pairs by value.
    inverse = [PRESENT.index(y) for y in range(16)]
    dot = lambda a, b: bin(a & b).count("1") & 1  # noqa: E731
    ddt = [sum(PRESENT[x] ^ PRESENT[x ^ a] == b for x in range(16)) for a in range(1, 16) for b in range(16)]
    lat = [abs(sum((-1) ** (dot(a, x) ^ dot(b, PRESENT[x])) for x in range(16))) for a in range(16) for b in range(1, 16)]
    bct = [sum(inverse[PRESENT[x] ^ b] ^ inverse[PRESENT[x ^ a] ^ b] == a for x in range(16))
           for a in range(1, 16) for b in range(1, 16)]
    pairs = lambda values: [[v, values.count(v)] for v in sorted(set(values))]  # noqa: E731
    assert spectra["differential_spectrum"] == pairs(ddt)
    assert spectra["absolute_walsh_spectrum"] == pairs(lat)
    assert spectra["boomerang_spectrum"] == pairs(bct)
    degrees = [fastconv.SBox(PRESENT).component_function(b).algebraic_degree for b in range(1, 16)]
    assert spectra["degree_spectrum"] == pairs(degrees)


def test_structure():
    s = fastconv.SBox(PRESENT)
    inverse = s.inverse()
    assert [inverse(s(x)) for x in range(16)] == list(range(16))
    assert s.fixed_points() == []
    assert sum(length * count for length, count in s.cycle_type().items()) == 16
    f = s.coordinate_function(0)
    assert list(f.truth_table()) == [v & 1 for v in PRESENT]
    np.testing.assert_array_equal(s.lut(), PRESENT)


def test_non_permutation():
    s = fastconv.SBox([0, 1, 1, 3], m=2)
    assert s.summary()["boomerang_uniformity"] is None and s.summary()["boomerang_spectrum"] is None
    with pytest.raises(fastconv.InvalidArgumentError):
        s.bct()
    with pytest.raises(fastconv.InvalidArgumentError):
        s.boomerang_uniformity


def test_errors():
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.SBox([0, 1, 2])
    with pytest.raises(fastconv.InvalidArgumentError, match="value 1 is -1"):
        fastconv.SBox([0, -1, 2, 3])
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.SBox([0, 1, 2, 4], m=2)
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.SBox.named("des")
    for lut in ([0.5, 1], np.array([0, 1], complex), ["a", "b"]):
        with pytest.raises(fastconv.InvalidArgumentError, match="holds integers, not values of dtype"):
            fastconv.SBox(lut)
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.SBox([])
    with pytest.raises(fastconv.InvalidArgumentError):
        fastconv.SBox(PRESENT).lat(scale="percent")


def test_equal_sboxes_hash_equal():
    s, t, wider = fastconv.SBox([0, 1, 3, 2]), fastconv.SBox(np.array([0, 1, 3, 2], np.uint8)), fastconv.SBox([0, 1, 3, 2], m=3)
    assert s == t and hash(s) == hash(t) and s != wider
    assert len({s, t, wider}) == 2 and {s: "x"}[t] == "x"
    aes = fastconv.SBox.named("aes")
    assert hash(aes) == hash(fastconv.SBox(aes.lut())) and hash(aes.inverse().inverse()) == hash(aes)
