#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz targets into corpus/<target>/ and the CLI's
dictionary (dict/cli.dict, from the vocabulary in cli_fuzz.cpp). The committed corpora are
these seeds grown by fuzzing and minimised with -merge=1 (README.md); run this to start over.

Usage: tests/fuzz/make_seeds.py [OUTPUT_DIR]   (default: tests/fuzz/corpus)
"""
import hashlib
import math
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, data=b"", version=1, fortran=False, dict_text=None, pad=True, quote="'"):
    """A .npy file; dict_text replaces the header's dictionary as given."""
    if dict_text is None:
        shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
        q = quote
        dict_text = (f"{{{q}descr{q}: {q}{descr}{q}, {q}fortran_order{q}: {fortran}, "
                     f"{q}shape{q}: {shape_text}, }}")
    header = dict_text.encode("latin-1")
    length_size = 2 if version == 1 else 4
    if pad:
        header += b" " * ((64 - (6 + 2 + length_size + len(header) + 1) % 64) % 64)
    header += b"\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


def values(fmt, xs):
    return b"".join(struct.pack("<" + fmt, x) for x in xs)


def half(xs):
    return b"".join(struct.pack("<e", x) for x in xs)


def npy_seeds():
    s = {}
    s["f8-1d"] = npy("<f8", (4,), values("d", [1, 2.5, -3, 4]))
    s["f4-2d"] = npy("<f4", (2, 3), values("f", [1, 2, 3, 4, 5, 6]))
    s["i4-1d"] = npy("<i4", (3,), values("i", [1, -2, 2**31 - 1]))
    s["i8-2d"] = npy("<i8", (2, 2), values("q", [1, -2, 2**63 - 1, -2**63]))
    s["f2-1d"] = npy("<f2", (4,), half([1, 0.1, -65504, 0]))
    s["v2"] = npy("<f8", (2,), values("d", [1, 2]), version=2)
    s["v3"] = npy("<i4", (2,), values("i", [1, 2]), version=3)
    s["v4"] = npy("<i4", (2,), values("i", [1, 2]), version=4)
    s["3d"] = npy("<f4", (1, 2, 2), values("f", [1, 2, 3, 4]))
    s["4d"] = npy("<f4", (2, 1, 2, 2), values("f", range(8)))
    s["9d"] = npy("<f4", (1,) * 9, values("f", [1]))
    s["0d"] = npy("<f8", (), values("d", [1]))
    s["empty"] = npy("<f8", (0,))
    s["empty-2d"] = npy("<f8", (3, 0))
    s["fortran"] = npy("<f8", (2, 2), values("d", [1, 2, 3, 4]), fortran=True)
    s["big-endian"] = npy(">f8", (1,), struct.pack(">d", 1))
    s["u1"] = npy("|u1", (2,), b"\x01\x02")
    s["c8"] = npy("<c8", (1,), values("f", [1, 2]))
    s["nan"] = npy("<f8", (2,), values("d", [1, math.nan]))
    s["inf"] = npy("<f4", (2, 1), values("f", [math.inf, 1]))
    s["f2-inf"] = npy("<f2", (1,), b"\x00\x7c")
    s["truncated"] = npy("<f8", (4,), values("d", [1, 2]))
    s["extra"] = npy("<f8", (1,), values("d", [1, 2]))
    s["huge"] = npy("<f4", (2**40,), values("f", [1]))
    s["overflow"] = npy("<f8", (2**32, 2**32), values("d", [1]))
    s["dim-overflow"] = npy("<f8", None,
                            dict_text="{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }")
    s["double-quotes"] = npy("<f8", (1,), values("d", [7]), quote='"')
    s["no-trailing-comma"] = npy("<f8", None, values("d", [7]),
                                 dict_text="{'descr':'<f8','fortran_order':False,'shape':(1,)}")
    s["long-suffix"] = npy("<i8", None, values("q", [1, 2]),
                           dict_text="{'descr': '<i8', 'fortran_order': False, 'shape': (2L,), }")
    s["key-order"] = npy("<i4", None, values("i", [5]),
                         dict_text="{ 'shape' : ( 1 , ) , 'descr' : '<i4' , 'fortran_order' : False }")
    s["unpadded"] = npy("<f4", (1,), values("f", [1]), pad=False)
    s["duplicate-key"] = npy("<f4", None, values("f", [1]),
                             dict_text="{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }")
    s["unknown-key"] = npy("<f4", None, values("f", [1]),
                           dict_text="{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}")
    s["missing-key"] = npy("<f4", None, values("f", [1]), dict_text="{'descr': '<f4', 'shape': (1,)}")
    s["trailing-text"] = npy("<f4", None, values("f", [1]),
                             dict_text="{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x")
    s["unterminated"] = npy("<f4", None, values("f", [1]), dict_text="{'descr: '<f4")
    s["header-too-long"] = b"\x93NUMPY\x01\x00\xff\xff{'descr'"
    s["v2-header-too-long"] = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'"
    s["short"] = b"\x93NUMPY\x01"
    s["not-npy"] = b"PK\x03\x04 not a numpy file"
    return s


def raw_seeds():
    # The first byte names the type: 0 float32, 1 float64, 2 int32, 3 int64, 4 float16, 5 bfloat16.
    return {
        "f4": b"\x00" + values("f", [1, -2.5, 3e38, 1e-45]),
        "f8": b"\x01" + values("d", [1, -2.5, 1e308, 5e-324]),
        "i4": b"\x02" + values("i", [1, -2, 2**31 - 1, -2**31]),
        "i8": b"\x03" + values("q", [1, -2, 2**63 - 1, -2**63]),
        "f2": b"\x04" + half([1, 0.1, 65504, -6e-8]),
        "bf16": b"\x05" + b"\x80\x3f\x00\x40\x7f\x7f\x01\x00",
        "f4-nan": b"\x00" + values("f", [1, math.nan]),
        "f2-inf": b"\x04" + b"\x00\x7c",
        "bf16-nan": b"\x05" + b"\xc1\x7f",
        "odd-size": b"\x01" + b"\x00" * 7,
        "empty": b"\x02",
    }


def text_seeds():
    return {
        "row": b"1 0 1 1\n",
        "column": b"1\n2\n3\n4\n",
        "matrix": b"1, 2, 3\n4, 5, 6\n",
        "floats": b"# comment\n1.5 -2e3 +0.25\t-0\n",
        "crlf": b"1,2\r\n3,4\r\n",
        "ragged": b"1 2\n3\n",
        "empty-field": b"1,,2\n",
        "trailing-comma": b"1,2,\n",
        "nan": b"1 nan\n",
        "inf": b"-inf 1\n",
        "int-overflow": b"9223372036854775808\n",
        "int-min": b"-9223372036854775808 9223372036854775807\n",
        "float-overflow": b"1e400\n",
        "denormal": b"4.9e-324 1e-400\n",
        "hex": b"0x10\n",
        "signs": b"++1 -+2 +-3\n",
        "empty": b"",
        "comments-only": b"# nothing\n\n  # here\n",
    }


def truth_table_seeds():
    # Byte 0: %3 == 0 from_hex (n from the length), %3 == 1 from_hex with n = byte/3 % 40 - 2,
    # %3 == 2 from_file.
    n6 = bytes([3 * 8 + 1])
    return {
        "hex": b"\x00" + b"0113077C165E76A8",
        "hex-prefix": b"\x00" + b"0xe8",
        "hex-n6": n6 + b"0113077c165e76a8",
        "hex-n1": bytes([3 * 3 + 1]) + b"2",
        "hex-n0-too-big": bytes([3 * 2 + 1]) + b"3",
        "hex-bad-digit": b"\x00" + b"01g3",
        "hex-bad-length": b"\x00" + b"123",
        "hex-empty": b"\x00" + b"0x",
        "file-hex": b"\x02" + b"  0x0113077C165E76A8\n",
        "file-values": b"\x02" + b"0 1 1 0\n",
        "file-packed": b"\x02" + b"0110100110010110",
        "file-commas": b"\x02" + b"0,1,\n1,0",
        "file-bad": b"\x02" + b"0 1 2 1",
        "file-after": b"\x02" + b"0x12 34",
        "file-empty": b"\x02" + b" \n",
    }


def lut_seeds():
    # Byte 0: %3 == 0 parse_lut, 1 read_lut of a text file, 2 read_lut of a .npy file;
    # byte/3 % 37: 0 m from the values, else m = that - 2.
    present = b"12, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2"
    m4 = 3 * 6
    return {
        "inline": b"\x00" + present,
        "inline-m4": bytes([m4]) + present,
        "inline-m3": bytes([3 * 5]) + present,
        "list": b"\x00" + b"[0xC, 0x5, 0x6, 0xB]",
        "comment": b"\x00" + b"# PRESENT\n0 1 # two\n3 2\n",
        "big": b"\x00" + b"0, 4294967295",
        "too-big": b"\x00" + b"4294967296",
        "bracket": b"\x00" + b"[1, 2",
        "negative": b"\x00" + b"1, -2",
        "file": b"\x01" + present + b"\n",
        "npy": b"\x02" + npy("<i8", (4,), values("q", [0, 1, 3, 2])),
        "npy-i4": bytes([2 + m4]) + npy("<i4", (4,), values("i", [0, 1, 3, 2])),
        "npy-negative": b"\x02" + npy("<i8", (2,), values("q", [0, -1])),
        "npy-float": b"\x02" + npy("<f4", (2,), values("f", [0, 1])),
        "npy-2d": b"\x02" + npy("<i4", (2, 2), values("i", [0, 1, 2, 3])),
        "not-pow2": b"\x00" + b"1, 2, 3",
    }


def piece(data):
    return struct.pack("<H", len(data)) + data


def conv2d_seeds():
    # Byte 0: algorithm (auto, direct, im2col_gemm, fft2d, winograd, polyhankel, polyhankel_merged) + 7 * dtype
    # (none, float32, float64); byte 1: padding index (% 8), 0x80 bias, 0x40 output to stdout.
    x4 = npy("<f4", (1, 2, 4, 4), values("f", [i / 8 for i in range(32)]))
    x3 = npy("<f8", (2, 3, 3), values("d", [i - 9 for i in range(18)]))
    w = npy("<f4", (2, 2, 3, 3), values("f", [0.25] * 36))
    w1 = npy("<f4", (1, 2, 1, 2), values("f", [1, -1, 2, 0.5]))
    wx3 = npy("<f8", (1, 2, 2, 2), values("d", [1] * 8))
    b = npy("<f4", (2,), values("f", [1, -1]))
    s = {}
    for algorithm in range(7):
        s[f"alg{algorithm}"] = bytes([algorithm, 1 | 0x80]) + piece(x4) + piece(w) + b
    s["stdout"] = bytes([1, 0x40]) + piece(x4) + piece(w1)
    s["3d"] = bytes([1 + 7 * 2, 0]) + piece(x3) + piece(wx3)
    s["channels-mismatch"] = bytes([1, 0]) + piece(x4) + piece(wx3)
    s["kernel-too-big"] = bytes([1, 0]) + piece(npy("<f4", (1, 1, 2, 2), values("f", [1] * 4))) + piece(
        npy("<f4", (1, 1, 3, 3), values("f", [1] * 9)))
    s["bias-shape"] = bytes([1, 0x80]) + piece(x4) + piece(w) + npy("<f4", (3,), values("f", [1, 2, 3]))
    s["int-tensors"] = bytes([1, 1]) + piece(npy("<i4", (1, 1, 2, 2), values("i", [1, 2, 3, 4]))) + piece(
        npy("<i8", (1, 1, 1, 1), values("q", [3])))
    s["dtype-int"] = bytes([1 + 7, 0]) + piece(x4) + piece(w)
    for index in (5, 6, 7):
        s[f"padding-overflow-{index}"] = bytes([1, index]) + piece(x4) + piece(w)
    s["weights-2d"] = bytes([1, 0]) + piece(x4) + piece(npy("<f4", (2, 2), values("f", [1] * 4)))
    s["input-5d"] = bytes([1, 0]) + piece(npy("<f4", (1, 1, 1, 2, 2), values("f", [1] * 4))) + piece(w)
    return s


def cli_seeds():
    def argv(*args, stdin=None):
        text = "\n".join(args)
        if stdin is not None:
            text += "\n<<<\n" + stdin
        return text.encode()

    return {
        "wht-stdin": argv("wht", stdin="1 0 1 1\n"),
        "wht-order": argv("wht", "--order", "sequency", "--normalize", "orthonormal", "x.npy", "out.npy"),
        "wht-inverse": argv("wht", "--inverse", "--normalize", "none", "a.txt"),
        "wht-dtype": argv("wht", "--dtype", "float16", "f.npy", "out.bin"),
        "wht-raw": argv("wht", "r.bin", "out.txt", "--dtype", "float32"),
        "wht-raw-no-dtype": argv("wht", "r.bin"),
        "wht-2d": argv("wht", "l.npy", "out.csv", "--backend", "reference"),
        "wht-overflow": argv("wht", "big.txt"),
        "wht-odd": argv("wht", "odd.npy"),
        "wht-threads": argv("wht", "--threads", "2", "--variant", "portable", "i.npy"),
        "wht-ooc": argv("wht", "--out-of-core", "--memory", "1K", "--quiet", "x.npy", "out.npy"),
        "wht-ooc-text": argv("wht", "--out-of-core", "a.txt", "out.npy"),
        "wht-ooc-memory": argv("wht", "--out-of-core", "--memory=999999999999999T", "f.npy", "out.raw"),
        "wht-opencl": argv("wht", "--backend", "opencl", "a.txt"),
        "wht-huge": argv("wht", "huge.npy"),
        "dyadic-conv": argv("dyadic", "conv", "a.txt", "b.txt"),
        "dyadic-conv-2d": argv("dyadic", "conv", "m.txt", "x.npy", "out.npy", "--dtype", "int64"),
        "dyadic-autocorr": argv("dyadic", "autocorr", "f.csv", "--dtype", "float32"),
        "dyadic-deconv": argv("dyadic", "deconv", "a.txt", "zero.txt"),
        "dyadic-both-stdin": argv("dyadic", "conv", "-", "-", stdin="1 2\n"),
        "dyadic-ooc": argv("dyadic", "conv", "--out-of-core", "x.npy", "f.npy", "out.npy", "--quiet"),
        "boolean-analyze": argv("boolean", "analyze", "0113077C165E76A8", "--json"),
        "boolean-walsh": argv("boolean", "walsh", "tt.txt", "out.npy"),
        "boolean-anf": argv("boolean", "anf", "e8", "--format", "hex"),
        "boolean-anf-values": argv("boolean", "anf", "tt01.txt", "out.txt", "--format", "values"),
        "boolean-stdin": argv("boolean", "autocorr", "-", stdin="0x0113077C165E76A8\n"),
        "boolean-bad": argv("boolean", "analyze", "ttbad.txt"),
        "sbox-analyze": argv("sbox", "analyze", "0xC,5,6,0xB,9,0,0xA,0xD,3,0xE,0xF,8,4,7,1,2", "--json"),
        "sbox-lat": argv("sbox", "lat", "present", "out.npy", "--scale", "bias"),
        "sbox-ddt": argv("sbox", "ddt", "lut.txt", "--m", "4"),
        "sbox-bct": argv("sbox", "bct", "lut.npy"),
        "sbox-act": argv("sbox", "act", "-", "out.csv", stdin="[0, 1, 3, 2]\n"),
        "sbox-unknown": argv("sbox", "analyze", "des"),
        "sbox-float": argv("sbox", "analyze", "lutf.npy"),
        "conv2d": argv("conv2d", "x4.npy", "w.npy", "out.npy", "--padding", "1", "--bias", "bias.npy"),
        "conv2d-3d": argv("conv2d", "x3.npy", "w1.npy", "-", "--algorithm", "direct", "--dtype", "float64"),
        "conv2d-winograd": argv("conv2d", "x4.npy", "w.npy", "--algorithm", "winograd", "--show-algorithm"),
        "conv2d-padding": argv("conv2d", "x4.npy", "wbig.npy", "--padding", "0,0,0,3"),
        "conv2d-overflow": argv("conv2d", "x4.npy", "w.npy", "--padding", "4294967296"),
        "info": argv("info"),
        "help": argv("--help"),
        "version": argv("--version"),
        "unknown": argv("transform"),
        "nothing": argv(),
    }


def write_corpus(root, target, seeds):
    directory = os.path.join(root, target)
    os.makedirs(directory, exist_ok=True)
    for data in seeds.values():
        with open(os.path.join(directory, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)


def write_cli_dict():
    source = open(os.path.join(HERE, "cli_fuzz.cpp"), encoding="utf-8").read()
    vocabulary = source[source.index("kWords = {"):source.index("std::map<std::string, std::string> input_files")]
    files = source[source.index("return {\n      {\""):]
    words = re.findall(r'"([^"\\\n]*)"', vocabulary) + re.findall(r'\{"([^"]+)", ', files)
    with open(os.path.join(HERE, "dict", "cli.dict"), "w", encoding="utf-8") as f:
        f.write("# The fuzz_cli vocabulary, one argument per line (written by make_seeds.py).\n")
        f.write('separator="\\x0a"\nstdin="\\x0a<<<\\x0a"\n')  # libFuzzer knows \\xNN, not \\n
        for i, word in enumerate(dict.fromkeys(words)):
            f.write(f'w{i}="{word}\\x0a"\n')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_corpus(root, "npy", npy_seeds())
    write_corpus(root, "raw", raw_seeds())
    write_corpus(root, "text", text_seeds())
    write_corpus(root, "truth_table", truth_table_seeds())
    write_corpus(root, "lut", lut_seeds())
    write_corpus(root, "conv2d", conv2d_seeds())
    write_corpus(root, "cli", cli_seeds())
    write_cli_dict()


if __name__ == "__main__":
    main()
