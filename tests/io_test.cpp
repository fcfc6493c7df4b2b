// Tests of the I/O module: text, .npy and raw readers and writers, atomic writing, conversions.
// Expected bytes are written out by hand from the format descriptions, not produced by the
// code under test.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastconv/error.hpp"
#include "io/array_io.hpp"

namespace {

namespace fs = std::filesystem;
using fastconv::bfloat16;
using fastconv::DType;
using fastconv::Error;
using fastconv::ErrorCode;
using fastconv::float16;
using fastconv::io::Array;
using fastconv::io::make_array;

// Runs `f` and returns the fastconv::Error it throws; a test failure if it throws none.
template <class F>
Error thrown_by(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a fastconv::Error";
  return Error(ErrorCode::device, "nothing was thrown");
}

Array parse(const std::string& text) {
  std::istringstream in(text);
  return fastconv::io::read_text(in, "in.txt");
}

std::string print(const Array& array) {
  std::ostringstream out;
  fastconv::io::write_text(out, array);
  return out.str();
}

template <class T>
std::string bytes_of(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A .npy file: the preamble of `major` (1: 2-byte header length, else 4), `dict`, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  const std::size_t length_size = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_size; ++i) bytes += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  return bytes + dict + data;
}

// Each test gets its own directory under the system's temporary directory.
class IoFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("fastconv-io-" + std::string(info->test_suite_name()) + "-" + info->name() +
                                        "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] fs::path path(const std::string& name) const { return dir_ / name; }

  [[nodiscard]] fs::path write_bytes(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }

  [[nodiscard]] static std::string read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

class IoText : public IoFiles {};
class IoNpy : public IoFiles {};
class IoRaw : public IoFiles {};
class IoWrite : public IoFiles {};

// ---------------------------------------------------------------- text

TEST_F(IoText, WhitespaceAndCommasSeparateValues) {
  const Array a = parse("1, 2,3   4\t5 ,6\r\n");
  EXPECT_EQ(a.dtype(), DType::int64);
  EXPECT_FALSE(a.two_d);
  EXPECT_EQ(a.rows, 1U);
  EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST_F(IoText, CommentsAndBlankLinesAreIgnored) {
  const Array a = parse("# x y\n\n1 2 # first row\n   \n\t# more\n3,4\n");
  EXPECT_TRUE(a.two_d);
  EXPECT_EQ(a.rows, 2U);
  EXPECT_EQ(a.cols, 2U);
  EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST_F(IoText, IntegersKeepSignsAndLimits) {
  const Array a = parse("+5 -3 007 -0 9223372036854775807 -9223372036854775808");
  EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{5, -3, 7, 0, std::numeric_limits<std::int64_t>::max(),
                                                                 std::numeric_limits<std::int64_t>::min()}));
}

TEST_F(IoText, OneFloatMakesEverythingFloat64) {
  const Array a = parse("1 2\n2.5 -4\n1e3 +.5\n");
  EXPECT_EQ(a.dtype(), DType::float64);
  EXPECT_EQ(a.rows, 3U);
  EXPECT_EQ(a.values<double>(), (std::vector<double>{1, 2, 2.5, -4, 1000, 0.5}));
}

TEST_F(IoText, ColumnOfNumbersIsAVector) {
  const Array a = parse("1\n2\n\n3\n");
  EXPECT_FALSE(a.two_d);
  EXPECT_EQ(a.rows, 1U);
  EXPECT_EQ(a.cols, 3U);
  EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST_F(IoText, RaggedRowsAreAnError) {
  const Error e = thrown_by([] { parse("1 2\n3 4\n5 6 7\n"); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_STREQ(e.what(), "in.txt: line 3: 3 values, but line 1 has 2: every row must have the same number of values");
  EXPECT_EQ(thrown_by([] { parse("1\n2 3\n"); }).code(), ErrorCode::io);
}

TEST_F(IoText, EmptyInputHasNoValues) {
  for (const char* text : {"", "\n\n", "# only a comment\n  \n"}) {
    const Error e = thrown_by([&] { parse(text); });
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "in.txt: no values: the input is empty");
  }
}

TEST_F(IoText, NonNumbersAreReportedWithLineAndColumn) {
  const Error e = thrown_by([] { parse("1 2\n3 abc\n"); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_STREQ(e.what(), "in.txt: line 2, column 3: 'abc' is not a number");
  for (const char* text : {"0x10", "1e", "--1", "+-1", "1.2.3", "+", "-", "1;2"}) {
    EXPECT_EQ(thrown_by([&] { parse(text); }).code(), ErrorCode::io) << text;
  }
}

// A token is quoted with its control bytes written as \xNN (an escape sequence in a file must
// not reach the terminal) and cut to 40 bytes (a line of megabytes without a separator must not
// reach it whole either).
TEST_F(IoText, BadTokensAreQuotedPrintableAndShort) {
  EXPECT_STREQ(thrown_by([] { parse("1 \x1b[2Jx\x7f\xc3\xa9 3"); }).what(),
               "in.txt: line 1, column 3: '\\x1b[2Jx\\x7f\\xc3\\xa9' is not a number");
  const std::string line = "1 " + std::string(100'000, 'a');
  EXPECT_STREQ(thrown_by([&] { parse(line); }).what(),
               ("in.txt: line 1, column 3: '" + std::string(40, 'a') + "…' is not a number").c_str());
  const std::string digits(60, '9');
  EXPECT_STREQ(thrown_by([&] { parse(digits); }).what(),
               ("in.txt: line 1, column 1: integer '" + std::string(40, '9') +
                "…' is out of the int64 range (write it with .0 after it to read it as an approximate float)")
                   .c_str());
}

TEST_F(IoText, EmptyFieldsAreAnError) {
  const Error e = thrown_by([] { parse("1,,2"); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_STREQ(e.what(), "in.txt: line 1, column 3: empty field: every ',' must stand between two values");
  EXPECT_NE(std::string(thrown_by([] { parse("1 2\n,3 4"); }).what()).find("line 2, column 1"), std::string::npos);
  EXPECT_NE(std::string(thrown_by([] { parse("1, 2 ,"); }).what()).find("line 1, column 6"), std::string::npos);
  EXPECT_EQ(thrown_by([] { parse("1, ,2"); }).code(), ErrorCode::io);
}

TEST_F(IoText, NanAndInfinityAreRejected) {
  const Error e = thrown_by([] { parse("1 nan"); });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_STREQ(e.what(), "in.txt: line 1, column 3: non-finite value 'nan': NaN and infinities are not accepted");
  for (const char* text : {"inf", "-Infinity", "+INF", "NaN"}) {
    EXPECT_EQ(thrown_by([&] { parse(text); }).code(), ErrorCode::invalid_argument) << text;
  }
}

TEST_F(IoText, OutOfRangeNumbersAreRejected) {
  const Error e = thrown_by([] { parse("1\n9223372036854775808\n"); });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_NE(
      std::string(e.what()).find("in.txt: line 2, column 1: integer '9223372036854775808' is out of the int64 range"),
      std::string::npos);
  EXPECT_EQ(thrown_by([] { parse("-9223372036854775809"); }).code(), ErrorCode::invalid_argument);
  EXPECT_EQ(thrown_by([] { parse("1e400"); }).code(), ErrorCode::invalid_argument);
  EXPECT_EQ(parse("9223372036854775808.0").values<double>(), std::vector<double>{9223372036854775808.0});
}

TEST_F(IoText, WritesShortestRoundTripForms) {
  EXPECT_EQ(print(make_array(std::vector<double>{0.1, 1.0, -2.5, 1e-7, 1e300}, 1, 5, false)),
            "0.1 1 -2.5 1e-07 1e+300\n");
  // Plain digits here would read back as an integer beyond int64.
  EXPECT_EQ(print(make_array(std::vector<double>{0x1p70, -0x1p63, 0x1p62}, 1, 3, false)),
            "1.1805916207174113e+21 -9.223372036854776e+18 4611686018427387904\n");
  EXPECT_EQ(print(make_array(std::vector<float>{0.1F, 3.0F}, 1, 2, false)), "0.1 3\n");
  EXPECT_EQ(print(make_array(std::vector<std::int64_t>{1, -2, 9223372036854775807}, 1, 3, false)),
            "1 -2 9223372036854775807\n");
  EXPECT_EQ(print(make_array(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, 2, 3, true)), "1 2 3\n4 5 6\n");
}

// A 16-bit value prints as the float it equals, which reads back to the same 16 bits.
TEST_F(IoText, HalfFloatsPrintTheValueStored) {
  EXPECT_EQ(print(make_array(std::vector<float16>{float16(0.1), float16(-2.5), float16(65504.0)}, 1, 3, false)),
            "0.099975586 -2.5 65504\n");
  EXPECT_EQ(print(make_array(std::vector<bfloat16>{bfloat16(0.1), bfloat16(3e38)}, 1, 2, false)),
            "0.100097656 3.0040553e+38\n");
  const Array back = fastconv::io::convert(parse("0.099975586 -2.5"), DType::float16, "in");
  EXPECT_EQ(back.values<float16>()[0].bits, float16(0.1).bits);
}

TEST_F(IoText, FloatsRoundTripExactly) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::vector<double> values(1000);
  for (double& v : values) v = std::ldexp(mantissa(random), exponent(random));
  values.push_back(std::numeric_limits<double>::denorm_min());
  values.push_back(std::numeric_limits<double>::max());
  const Array back = parse(print(make_array(values, 1, values.size(), false)));
  EXPECT_EQ(back.values<double>(), values);
}

TEST_F(IoText, ReadFileUsesTheExtensionCaseInsensitively) {
  const fs::path file = write_bytes("data.CSV", "1,2\n3,4\n");
  const Array a = fastconv::io::read_file(file, std::nullopt);
  EXPECT_EQ(a.rows, 2U);
  EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
  const Error e = thrown_by([&] { fastconv::io::read_file(write_bytes("bad.txt", "1 x"), std::nullopt); });
  EXPECT_EQ(std::string(e.what()), path("bad.txt").string() + ": line 1, column 3: 'x' is not a number");
}

TEST_F(IoText, MissingFileSaysWhy) {
  const Error e = thrown_by([&] { fastconv::io::read_file(path("absent.txt"), std::nullopt); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(std::string(e.what()), path("absent.txt").string() + ": cannot open: No such file or directory");
  fs::create_directory(path("dir.txt"));
  EXPECT_EQ(std::string(thrown_by([&] { fastconv::io::read_file(path("dir.txt"), std::nullopt); }).what()),
            path("dir.txt").string() + ": cannot open: Is a directory");
}

// ---------------------------------------------------------------- npy

// NumPy's own layout: version 1.0, header padded with spaces so that the data starts at a
// multiple of 64 bytes; 57 + 10 + 1 bytes round up to 128, so 60 spaces and length 118.
TEST_F(IoNpy, WritesTheBytesNumPyWrites) {
  const std::string dict1 = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  const std::string data1(
      "\x00\x00\x00\x00\x00\x00\xf0\x3f"
      "\x00\x00\x00\x00\x00\x00\x00\xc0"
      "\x00\x00\x00\x00\x00\x00\xe0\x3f",
      24);
  fastconv::io::write_file(path("v.npy"), make_array(std::vector<double>{1.0, -2.0, 0.5}, 1, 3, false));
  EXPECT_EQ(read_bytes(path("v.npy")),
            std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict1 + std::string(60, ' ') + "\n" + data1);

  const std::string dict2 = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string data2(
      "\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"
      "\xfc\xff\xff\xff\x05\x00\x00\x00\x06\x00\x00\x00",
      24);
  fastconv::io::write_file(path("m.npy"), make_array(std::vector<std::int32_t>{1, 2, 3, -4, 5, 6}, 2, 3, true));
  EXPECT_EQ(read_bytes(path("m.npy")),
            std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict2 + std::string(58, ' ') + "\n" + data2);
}

template <class T>
void expect_npy_round_trip(const fs::path& file, std::vector<T> values, std::size_t rows, bool two_d) {
  const std::size_t cols = values.size() / rows;
  fastconv::io::write_file(file, make_array(values, rows, cols, two_d));
  const Array back = fastconv::io::read_npy(file);
  EXPECT_EQ(back.dtype(), fastconv::dtype_of<T>);
  EXPECT_EQ(back.rows, rows);
  EXPECT_EQ(back.cols, cols);
  EXPECT_EQ(back.two_d, two_d);
  EXPECT_EQ(back.values<T>(), values);
}

TEST_F(IoNpy, RoundTripsEveryDtypeIn1DAnd2D) {
  for (const bool two_d : {false, true}) {
    const std::size_t rows = two_d ? 2 : 1;
    expect_npy_round_trip(path("f4.npy"), std::vector<float>{0.1F, -1.5F, 3e38F, 1e-45F}, rows, two_d);
    expect_npy_round_trip(path("f8.npy"), std::vector<double>{0.1, -1.5, 1e308, 5e-324}, rows, two_d);
    expect_npy_round_trip(path("i4.npy"), std::vector<std::int32_t>{1, -2, 2147483647, -2147483647 - 1}, rows, two_d);
    expect_npy_round_trip(path("i8.npy"), std::vector<std::int64_t>{1, -2, 1LL << 62, -(1LL << 62)}, rows, two_d);
  }
}

TEST_F(IoNpy, Float16IsNumPysF2) {
  const std::vector<float16> values = {float16(1.0f), float16(-0.5f), float16::from_bits(0x7bff), float16::from_bits(1)};
  const fs::path file = path("f2.npy");
  fastconv::io::write_file(file, make_array(values, 2, 2, true));
  const std::string bytes = read_bytes(file);
  EXPECT_NE(bytes.find("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }"), std::string::npos);
  EXPECT_EQ(bytes.substr(bytes.size() - 8), std::string("\x00\x3c\x00\xb8\xff\x7b\x01\x00", 8));
  const Array back = fastconv::io::read_npy(file);
  ASSERT_EQ(back.dtype(), DType::float16);
  EXPECT_EQ(back.rows, 2U);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back.values<float16>()[i].bits, values[i].bits);
  const fs::path inf = write_bytes("inf.npy", npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }\n",
                                                         std::string("\x00\x7c", 2)));
  EXPECT_EQ(thrown_by([&] { fastconv::io::read_npy(inf); }).code(), ErrorCode::invalid_argument);
}

TEST_F(IoNpy, ReadsVersion2And3HeadersInAnyKeyOrder) {
  const std::string data = bytes_of(std::vector<std::int64_t>{7, 8, 9, 10, 11, 12});
  const std::string dict = "{ \"shape\" : ( 3 , 2 ) ,'fortran_order':False,\n 'descr':'<i8'}\n";
  for (const int major : {2, 3}) {
    const fs::path file = write_bytes("v" + std::to_string(major) + ".npy", npy_bytes(dict, data, major));
    const Array a = fastconv::io::read_npy(file);
    EXPECT_TRUE(a.two_d);
    EXPECT_EQ(a.rows, 3U);
    EXPECT_EQ(a.cols, 2U);
    EXPECT_EQ(a.values<std::int64_t>(), (std::vector<std::int64_t>{7, 8, 9, 10, 11, 12}));
  }
}

TEST_F(IoNpy, ReadsPython2LongDimensions) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }          \n";
  const Array a = fastconv::io::read_npy(write_bytes("old.npy", npy_bytes(dict, bytes_of(std::vector<float>{1, 2}))));
  EXPECT_EQ(a.values<float>(), (std::vector<float>{1, 2}));
  EXPECT_FALSE(a.two_d);
}

// Checks that reading `bytes` as a .npy file fails with `code` and a message that starts with
// the file name and contains `fragment`.
void expect_npy_error(const fs::path& file, const std::string& bytes, ErrorCode code, const std::string& fragment) {
  std::ofstream(file, std::ios::binary) << bytes;
  const Error e = thrown_by([&] { fastconv::io::read_npy(file); });
  EXPECT_EQ(e.code(), code) << e.what();
  const std::string message = e.what();
  EXPECT_EQ(message.rfind(file.string() + ": ", 0), 0U) << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

TEST_F(IoNpy, RejectsWhatItCannotRead) {
  const std::string eight = bytes_of(std::vector<double>{1, 2});
  const auto dict = [](const std::string& descr, const std::string& fortran, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
  };
  expect_npy_error(path("be.npy"), npy_bytes(dict(">f8", "False", "(2,)"), eight), ErrorCode::io,
                   "unsupported dtype '>f8': only little-endian <f4, <f8, <i4, <i8, <f2 and the integers |b1, |i1, "
                   "|u1, <i2, <u2, <u4, <u8 are read");
  expect_npy_error(path("c8.npy"), npy_bytes(dict("<c8", "False", "(1,)"), eight), ErrorCode::io,
                   "unsupported dtype '<c8'");
  expect_npy_error(path("be2.npy"), npy_bytes(dict(">i2", "False", "(2,)"), "abcd"), ErrorCode::io,
                   "unsupported dtype '>i2'");
  expect_npy_error(path("f.npy"), npy_bytes(dict("<f8", "True", "(1, 2)"), eight), ErrorCode::io, "Fortran-order");
  expect_npy_error(path("3d.npy"), npy_bytes(dict("<f8", "False", "(1, 1, 2)"), eight), ErrorCode::io,
                   "shape (1, 1, 2) has 3 dimensions: only 1-D and 2-D arrays are read here");
  expect_npy_error(path("0d.npy"), npy_bytes(dict("<f8", "False", "()"), eight), ErrorCode::io,
                   "shape () has 0 dimensions");
  expect_npy_error(path("empty.npy"), npy_bytes(dict("<f8", "False", "(0,)"), ""), ErrorCode::invalid_argument,
                   "no values");
}

/// Integer dtypes no transform computes in are widened as they are read: bool, int8, uint8,
/// int16, uint16 to int32; uint32, uint64 to int64 (S-box tables are often uint8 or uint32).
TEST_F(IoNpy, NarrowAndUnsignedIntegersAreWidened) {
  const auto dict = [](const std::string& descr, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
  };
  const auto read = [&](const std::string& name, const std::string& descr, const std::string& data,
                        const std::string& shape = "(4,)") {
    return fastconv::io::read_npy(write_bytes(name, npy_bytes(dict(descr, shape), data)));
  };
  EXPECT_EQ(read("b1.npy", "|b1", std::string("\x00\x01\x02\x01", 4)).values<std::int32_t>(),
            (std::vector<std::int32_t>{0, 1, 1, 1}));
  EXPECT_EQ(read("i1.npy", "|i1", std::string("\x00\x7f\x80\xff", 4)).values<std::int32_t>(),
            (std::vector<std::int32_t>{0, 127, -128, -1}));
  EXPECT_EQ(read("u1.npy", "|u1", std::string("\x00\x7f\x80\xff", 4)).values<std::int32_t>(),
            (std::vector<std::int32_t>{0, 127, 128, 255}));
  EXPECT_EQ(read("i2.npy", "<i2", std::string("\x01\x00\xff\x7f\x00\x80\xff\xff", 8)).values<std::int32_t>(),
            (std::vector<std::int32_t>{1, 32767, -32768, -1}));
  EXPECT_EQ(read("u2.npy", "<u2", std::string("\x01\x00\xff\x7f\x00\x80\xff\xff", 8)).values<std::int32_t>(),
            (std::vector<std::int32_t>{1, 32767, 32768, 65535}));
  const Array u4 = read("u4.npy", "<u4", std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8), "(1, 2)");
  EXPECT_EQ(u4.values<std::int64_t>(), (std::vector<std::int64_t>{1, 4294967295LL}));
  EXPECT_TRUE(u4.two_d);
  EXPECT_EQ(u4.rows, 1U);
  const std::string largest("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  EXPECT_EQ(read("u8.npy", "<u8", largest, "(1,)").values<std::int64_t>(), (std::vector<std::int64_t>{INT64_MAX}));
  expect_npy_error(path("u8big.npy"), npy_bytes(dict("<u8", "(2,)"), largest + std::string("\0\0\0\0\0\0\0\x80", 8)),
                   ErrorCode::invalid_argument, "element 1: 9223372036854775808 does not fit int64");
  expect_npy_error(path("u1short.npy"), npy_bytes(dict("|u1", "(4,)"), "abc"), ErrorCode::io,
                   "header promises 4 elements (4 bytes of data) but the file has 3 bytes of data");
  // Read in pieces (out of core, distributed), the file's own dtype is needed: refused.
  try {
    (void)fastconv::io::read_array_layout(write_bytes("u1layout.npy", npy_bytes(dict("|u1", "(4,)"), "abcd")), std::nullopt);
    ADD_FAILURE() << "a uint8 .npy file was described for reading in pieces";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("uint8 is read whole only (as int32)"), std::string::npos) << e.what();
  }
}

TEST_F(IoNpy, RejectsMalformedFiles) {
  const std::string data = bytes_of(std::vector<double>{1, 2});
  expect_npy_error(path("magic.npy"), "NUMPY\x01\x00\x00\x00 and more", ErrorCode::io, "not a .npy file");
  expect_npy_error(path("short.npy"), "\x93NUM", ErrorCode::io, "not a .npy file");
  std::string v4 = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", data);
  v4[6] = '\x04';
  expect_npy_error(path("v4.npy"), v4, ErrorCode::io, "unsupported .npy format version 4.0");
  expect_npy_error(path("nokey.npy"), npy_bytes("{'descr': '<f8', 'shape': (2,)}", data), ErrorCode::io,
                   "the key 'fortran_order' is missing");
  expect_npy_error(path("extra.npy"),
                   npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), ErrorCode::io,
                   "unexpected key 'x'");
  expect_npy_error(path("twice.npy"),
                   npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", data),
                   ErrorCode::io, "appears twice");
  expect_npy_error(path("garbled.npy"), npy_bytes("{'descr': '<f8', 'fortran_order': Nope, 'shape': (2,)}", data),
                   ErrorCode::io, "malformed .npy header: expected True or False");
  std::string cut = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", data);
  cut.resize(30);
  expect_npy_error(path("cut.npy"), cut, ErrorCode::io, "truncated");
}

// Found by fuzz_conv2d (tests/fuzz/regressions/conv2d/npy-key-with-newline): the header's bytes
// were quoted as they were, so a newline in a key split the CLI's one-line error message.
TEST_F(IoNpy, QuotesTheHeadersBytesPrintably) {
  const std::string data = bytes_of(std::vector<double>{1, 2});
  expect_npy_error(path("key.npy"),
                   npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape\n': (2,)}", data), ErrorCode::io,
                   "malformed .npy header: unexpected key 'shape\\x0a' at header byte 50");
  expect_npy_error(path("descr.npy"),
                   npy_bytes("{'descr': '<f8\x1b[2J', 'fortran_order': False, 'shape': (2,)}", data), ErrorCode::io,
                   "unsupported dtype '<f8\\x1b[2J': only little-endian");
}

TEST_F(IoNpy, RejectsTruncatedAndOverlongData) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }\n";
  expect_npy_error(path("short.npy"), npy_bytes(dict, std::string(16, '\0')), ErrorCode::io,
                   "truncated: header promises 4 elements (32 bytes of data) but the file has 16 bytes of data");
  expect_npy_error(path("long.npy"), npy_bytes(dict, std::string(35, '\0')), ErrorCode::io,
                   "3 unexpected bytes after the 4 elements (32 bytes of data) the header promises");
}

// Under AddressSanitizer an 8 TiB allocation aborts the test, so passing shows none was tried.
TEST_F(IoNpy, RejectsHugeClaimedShapesWithoutAllocating) {
  expect_npy_error(path("huge.npy"),
                   npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", "12345678"),
                   ErrorCode::io, "truncated: header promises 1099511627776 elements (8796093022208 bytes of data)");
  expect_npy_error(path("overflow.npy"),
                   npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", ""),
                   ErrorCode::io, "is too large");
  expect_npy_error(path("digits.npy"),
                   npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
                   ErrorCode::io, "does not fit in 64 bits");
}

// Tensors of up to eight dimensions (conv2d's NCHW inputs): read and written with their shape.
TEST_F(IoNpy, TensorsKeepTheirShape) {
  fastconv::io::Tensor t;
  t.shape = {2, 1, 3, 2};
  std::vector<float> values(12);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) / 4;
  t.values = fastconv::io::make_array(values, 1, values.size(), false);
  fastconv::io::write_npy_tensor(path("t.npy"), t);
  const auto back = fastconv::io::read_npy_tensor(path("t.npy"));
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.values.values<float>(), values);
  EXPECT_NE(read_bytes(path("t.npy")).find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1, 3, 2), }"),
            std::string::npos);
  const std::string one = bytes_of(std::vector<double>{1});
  const auto dims = [&](int count) {
    std::string shape = "(";
    for (int i = 0; i < count; ++i) shape += "1, ";
    return npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + "), }\n", one);
  };
  EXPECT_EQ(fastconv::io::read_npy_tensor(write_bytes("8d.npy", dims(8))).shape.size(), 8U);
  std::ofstream(path("9d.npy"), std::ios::binary) << dims(9);
  const Error e = thrown_by([&] { fastconv::io::read_npy_tensor(path("9d.npy")); });
  EXPECT_NE(std::string(e.what()).find("only arrays of 1 to 8 dimensions are read here"), std::string::npos) << e.what();
  t.shape = {5};  // does not match the 12 values: nothing is written
  EXPECT_THROW(fastconv::io::write_npy_tensor(path("bad.npy"), t), Error);
  EXPECT_FALSE(fs::exists(path("bad.npy")));
}

// Found by fuzz_npy (tests/fuzz/regressions/npy/tensor-2d): a 2-D file read as a tensor had
// values of shape (1, cols) holding rows * cols values, which write_npy_tensor then refused.
TEST_F(IoNpy, TwoDimensionalTensorsAreFlat) {
  const auto t = fastconv::io::read_npy_tensor(write_bytes(
      "2d.npy", npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n",
                          bytes_of(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}))));
  EXPECT_EQ(t.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(t.values.rows, 1U);
  EXPECT_EQ(t.values.cols, 6U);
  EXPECT_FALSE(t.values.two_d);
  EXPECT_EQ(t.values.values<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
  fastconv::io::write_npy_tensor(path("back.npy"), t);
  EXPECT_EQ(fastconv::io::read_npy_tensor(path("back.npy")).shape, t.shape);
}

TEST_F(IoNpy, RejectsNaNWithItsRowAndColumn) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n";
  expect_npy_error(path("nan.npy"), npy_bytes(dict, bytes_of(std::vector<float>{1, 2, nan, 4})),
                   ErrorCode::invalid_argument,
                   "element 2 (row 1, column 0): non-finite value 'nan': NaN and infinities are not accepted");
}

// ---------------------------------------------------------------- raw

TEST_F(IoRaw, RoundTripsEveryDtype) {
  const std::vector<float> f4{0.1F, -2};
  const std::vector<double> f8{0.1, -2, 1e300};
  const std::vector<std::int32_t> i4{1, -1, 2147483647};
  const std::vector<std::int64_t> i8{1, -1, std::numeric_limits<std::int64_t>::min()};
  fastconv::io::write_file(path("f4.bin"), make_array(f4, 1, 2, false));
  fastconv::io::write_file(path("f8.RAW"), make_array(f8, 1, 3, false));
  fastconv::io::write_file(path("i4.raw"), make_array(i4, 1, 3, false));
  fastconv::io::write_file(path("i8.bin"), make_array(i8, 1, 3, false));
  EXPECT_EQ(read_bytes(path("i4.raw")), std::string("\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f", 12));
  EXPECT_EQ(read_bytes(path("f8.RAW")), bytes_of(f8));
  EXPECT_EQ(fastconv::io::read_raw(path("f4.bin"), DType::float32).values<float>(), f4);
  EXPECT_EQ(fastconv::io::read_file(path("f8.RAW"), DType::float64).values<double>(), f8);
  EXPECT_EQ(fastconv::io::read_raw(path("i4.raw"), DType::int32).values<std::int32_t>(), i4);
  const Array a = fastconv::io::read_raw(path("i8.bin"), DType::int64);
  EXPECT_EQ(a.values<std::int64_t>(), i8);
  EXPECT_FALSE(a.two_d);
  EXPECT_EQ(a.cols, 3U);
}

TEST_F(IoRaw, HalfFloatsRoundTrip) {
  const std::vector<bfloat16> values = {bfloat16(1.0f), bfloat16(-3e38f)};
  fastconv::io::write_file(path("bf16.bin"), make_array(values, 1, 2, false));
  EXPECT_EQ(read_bytes(path("bf16.bin")), std::string("\x80\x3f\x62\xff", 4));
  const Array back = fastconv::io::read_raw(path("bf16.bin"), DType::bfloat16);
  EXPECT_EQ(back.values<bfloat16>()[1].bits, values[1].bits);
  fastconv::io::write_file(path("f2.raw"), make_array(std::vector<float16>{float16(2.0f)}, 1, 1, false));
  EXPECT_EQ(fastconv::io::read_file(path("f2.raw"), DType::float16).values<float16>()[0].bits, 0x4000);
}

TEST_F(IoRaw, SizeMustBeAMultipleOfTheItemSize) {
  const fs::path file = write_bytes("x.bin", std::string(10, '\1'));
  const Error e = thrown_by([&] { fastconv::io::read_raw(file, DType::int32); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(std::string(e.what()), file.string() + ": size 10 bytes is not a multiple of 4 (int32)");
}

TEST_F(IoRaw, EmptyFilesAndNonFiniteValuesAreInvalid) {
  const fs::path empty = write_bytes("empty.bin", "");
  EXPECT_EQ(thrown_by([&] { fastconv::io::read_raw(empty, DType::float64); }).code(), ErrorCode::invalid_argument);
  const fs::path inf = write_bytes("inf.bin", bytes_of(std::vector<double>{1, 2, 3, -HUGE_VAL}));
  const Error e = thrown_by([&] { fastconv::io::read_raw(inf, DType::float64); });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_EQ(std::string(e.what()),
            inf.string() + ": element 3: non-finite value '-inf': NaN and infinities are not accepted");
}

TEST_F(IoRaw, ReadFileNeedsADtype) {
  const fs::path file = write_bytes("x.bin", std::string(8, '\0'));
  const Error e = thrown_by([&] { fastconv::io::read_file(file, std::nullopt); });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": ", 0), 0U);
}

// ---------------------------------------------------------------- writing

TEST_F(IoWrite, FormatFollowsTheExtension) {
  using fastconv::io::Format;
  using fastconv::io::format_of;
  EXPECT_EQ(format_of("a.npy"), Format::npy);
  EXPECT_EQ(format_of("dir.d/A.NPY"), Format::npy);
  EXPECT_EQ(format_of("a.bin"), Format::raw);
  EXPECT_EQ(format_of("a.Raw"), Format::raw);
  for (const char* name : {"a.txt", "a.csv", "a.TSV", "a.dat"}) EXPECT_EQ(format_of(name), Format::text) << name;
  const Error e = thrown_by([] { format_of("y.foo"); });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_STREQ(e.what(), "y.foo: unknown extension '.foo': use .txt, .csv, .tsv, .dat, .npy, .bin or .raw");
  EXPECT_EQ(thrown_by([] { format_of("noext"); }).code(), ErrorCode::invalid_argument);
}

TEST_F(IoWrite, WritesTextFiles) {
  fastconv::io::write_file(path("out.txt"), make_array(std::vector<double>{0.5, 1, 2, 3}, 2, 2, true));
  EXPECT_EQ(read_bytes(path("out.txt")), "0.5 1\n2 3\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
}

TEST_F(IoWrite, MissingDirectoryFailsAndCreatesNothing) {
  const fs::path target = path("absent") / "out.npy";
  const Error e = thrown_by([&] { fastconv::io::write_file(target, make_array(std::vector<double>{1}, 1, 1, false)); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(std::string(e.what()).rfind(target.string() + ": ", 0), 0U) << e.what();
  EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  EXPECT_TRUE(entries().empty());
}

TEST_F(IoWrite, ReplacesAnExistingFileWholly) {
  const fs::path file = write_bytes("out.bin", std::string(100, 'x'));
  fastconv::io::write_file(file, make_array(std::vector<std::int32_t>{1}, 1, 1, false));
  EXPECT_EQ(read_bytes(file), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.bin"});
}

// Tests run as root, where permissions block nothing, so a write is made to fail with a file
// size limit instead: the write past the limit fails with EFBIG.
TEST_F(IoWrite, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path file = write_bytes("out.npy", "old contents");
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit = old_limit;
  limit.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  const Error e =
      thrown_by([&] { fastconv::io::write_file(file, make_array(std::vector<double>(10000), 1, 10000, false)); });
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(std::string(e.what()), file.string() + ": cannot write: File too large");
  EXPECT_EQ(read_bytes(file), "old contents");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.npy"});
}

TEST_F(IoWrite, FailedRenameLeavesNoTemporary) {
  fs::create_directories(path("taken.txt") / "inside");
  const Error e =
      thrown_by([&] { fastconv::io::write_file(path("taken.txt"), make_array(std::vector<double>{1}, 1, 1, false)); });
  EXPECT_EQ(e.code(), ErrorCode::io);
  EXPECT_EQ(entries(), std::vector<std::string>{"taken.txt"});
  EXPECT_TRUE(fs::is_directory(path("taken.txt") / "inside"));
}

TEST_F(IoWrite, InconsistentShapeIsRejectedBeforeTouchingAnything) {
  const fs::path file = write_bytes("out.txt", "old");
  const Error e = thrown_by([&] {
    fastconv::io::write_file(file, make_array(std::vector<double>{1, 2, 3}, 2, 2, true));
  });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_EQ(read_bytes(file), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
}

TEST_F(IoWrite, Bfloat16HasNoNpyForm) {
  const Error e = thrown_by([&] {
    fastconv::io::write_file(path("x.npy"), make_array(std::vector<bfloat16>{bfloat16(1.0f)}, 1, 1, false));
  });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_NE(std::string(e.what()).find("bfloat16 has no NumPy dtype"), std::string::npos) << e.what();
  EXPECT_TRUE(entries().empty());
}

// The temporary file is created like any new file, so the umask, not 0600, decides its mode.
TEST_F(IoWrite, NewFilesGetTheUsualMode) {
  const mode_t mask = ::umask(022);
  fastconv::io::write_file(path("out.txt"), make_array(std::vector<double>{1}, 1, 1, false));
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(path("out.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644U);
}

// A file replaced keeps its permission bits: a private file written again stays private.
TEST_F(IoWrite, ReplacedFilesKeepTheirMode) {
  const fs::path file = write_bytes("out.txt", "old");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  const mode_t mask = ::umask(022);
  fastconv::io::write_file(file, make_array(std::vector<double>{1}, 1, 1, false));
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  EXPECT_EQ(read_bytes(file), "1\n");
  // A read-only file too (the temporary file stays writable by its owner until the rename).
  ASSERT_EQ(::chmod(file.c_str(), 0444), 0);
  fastconv::io::write_file(file, make_array(std::vector<double>{2}, 1, 1, false));
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0444U);
  EXPECT_EQ(read_bytes(file), "2\n");
}

// A symbolic link is written through: the file it points to gets the result, the link stays.
TEST_F(IoWrite, SymbolicLinksAreWrittenThrough) {
  const fs::path real = write_bytes("real.txt", "old");
  fs::create_symlink("real.txt", path("link.txt"));
  fastconv::io::write_file(path("link.txt"), make_array(std::vector<double>{2}, 1, 1, false));
  EXPECT_TRUE(fs::is_symlink(path("link.txt")));
  EXPECT_EQ(read_bytes(real), "2\n");
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.txt", "real.txt"}));
  // A chain of links, one into a subdirectory: the file at its end is replaced.
  fs::create_directory(path("sub"));
  write_bytes("sub/deep.txt", "old");
  fs::create_symlink("sub/deep.txt", path("to_deep.txt"));
  fs::create_symlink("to_deep.txt", path("chain.txt"));
  fastconv::io::write_file(path("chain.txt"), make_array(std::vector<double>{3}, 1, 1, false));
  EXPECT_EQ(read_bytes(path("sub/deep.txt")), "3\n");
  EXPECT_TRUE(fs::is_symlink(path("chain.txt")) && fs::is_symlink(path("to_deep.txt")));
  // A dangling link: the file it names is created, as a shell's > would.
  fs::create_symlink("sub/new.txt", path("dangling.txt"));
  fastconv::io::write_file(path("dangling.txt"), make_array(std::vector<double>{4}, 1, 1, false));
  EXPECT_TRUE(fs::is_symlink(path("dangling.txt")));
  EXPECT_EQ(read_bytes(path("sub/new.txt")), "4\n");
}

// A link to a directory or a FIFO is refused: the rename would have replaced the directory's
// link, or the FIFO itself, with a regular file.
TEST_F(IoWrite, LinksToWhatIsNotARegularFileAreRefused) {
  fs::create_directory(path("dir"));
  fs::create_symlink("dir", path("to_dir.txt"));
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  fs::create_symlink("fifo", path("to_fifo.txt"));
  for (const char* link : {"to_dir.txt", "to_fifo.txt"}) {
    const Error e = thrown_by([&] { fastconv::io::write_file(path(link), make_array(std::vector<double>{1}, 1, 1, false)); });
    EXPECT_EQ(e.code(), ErrorCode::io);
    EXPECT_NE(std::string(e.what()).find("which is not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(path("dir")) && fs::is_empty(path("dir")));
  EXPECT_EQ(fs::status(path("fifo")).type(), fs::file_type::fifo);
  EXPECT_EQ(entries(), (std::vector<std::string>{"dir", "fifo", "to_dir.txt", "to_fifo.txt"}));
}

// ---------------------------------------------------------------- conversions

TEST(IoConvert, IntegersBecomeFloats) {
  const Array a = make_array(std::vector<std::int64_t>{1, -2, (1LL << 53) + 1}, 1, 3, false);
  const Array f = fastconv::io::convert(a, DType::float64, "src");
  EXPECT_EQ(f.dtype(), DType::float64);
  EXPECT_EQ(f.values<double>(), (std::vector<double>{1, -2, 9007199254740992.0}));
  EXPECT_EQ(fastconv::io::convert(a, DType::float32, "src").values<float>()[1], -2.0F);
}

TEST(IoConvert, FloatsBecomeIntegersOnlyWhenIntegralAndInRange) {
  const Array ok = make_array(std::vector<double>{3, -2147483648.0, 2147483647.0}, 1, 3, false);
  EXPECT_EQ(fastconv::io::convert(ok, DType::int32, "src").values<std::int32_t>(),
            (std::vector<std::int32_t>{3, -2147483647 - 1, 2147483647}));
  const Error fraction = thrown_by([] {
    fastconv::io::convert(make_array(std::vector<double>{1, 2.5}, 1, 2, false), DType::int32, "src");
  });
  EXPECT_EQ(fraction.code(), ErrorCode::invalid_argument);
  EXPECT_STREQ(fraction.what(), "src: element 1: '2.5' is not an integer: cannot convert float64 to int32");
  const Error range = thrown_by([] {
    fastconv::io::convert(make_array(std::vector<float>{1, 2, 3, 2147483648.0F}, 2, 2, true), DType::int32, "src");
  });
  EXPECT_STREQ(
      range.what(),
      "src: element 3 (row 1, column 1): '2147483648' is out of the int32 range: cannot convert float32 to int32");
  EXPECT_EQ(
      fastconv::io::convert(make_array(std::vector<double>{-9223372036854775808.0}, 1, 1, false), DType::int64, "src")
          .values<std::int64_t>()[0],
      std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(thrown_by([] {
              fastconv::io::convert(make_array(std::vector<double>{9223372036854775808.0}, 1, 1, false), DType::int64,
                                    "src");
            }).code(),
            ErrorCode::invalid_argument);
}

TEST(IoConvert, Int64ToInt32ChecksTheRange) {
  const Array ok = make_array(std::vector<std::int64_t>{-2147483648LL, 2147483647LL}, 1, 2, false);
  EXPECT_EQ(fastconv::io::convert(ok, DType::int32, "src").values<std::int32_t>(),
            (std::vector<std::int32_t>{-2147483647 - 1, 2147483647}));
  const Error e = thrown_by([] {
    fastconv::io::convert(make_array(std::vector<std::int64_t>{0, -2147483649LL}, 1, 2, false), DType::int32, "src");
  });
  EXPECT_STREQ(e.what(), "src: element 1: '-2147483649' is out of the int32 range: cannot convert int64 to int32");
}

TEST(IoConvert, Float64ToFloat32RoundsButMustNotOverflow) {
  const Array a = make_array(std::vector<double>{0.1, 1e-50, 3.4e38}, 1, 3, false);
  EXPECT_EQ(fastconv::io::convert(a, DType::float32, "src").values<float>(), (std::vector<float>{0.1F, 0.0F, 3.4e38F}));
  const Error e = thrown_by([] {
    fastconv::io::convert(make_array(std::vector<double>{1, 1e300}, 1, 2, false), DType::float32, "src");
  });
  EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  EXPECT_STREQ(e.what(), "src: element 1: '1e+300' overflows float32: cannot convert float64 to float32");
}

TEST(IoConvert, ToHalfFloatsRoundsOnceButMustNotOverflow) {
  // 1 + 2^-11 + 2^-40: through float it would be the midpoint and round down to 1.
  const Array a = make_array(std::vector<double>{1 + 0x1p-11 + 0x1p-40, 65504, -1e-9}, 1, 3, false);
  const auto h = fastconv::io::convert(a, DType::float16, "src").values<float16>();
  EXPECT_EQ(h[0].bits, 0x3c01);
  EXPECT_EQ(h[1].bits, 0x7bff);
  EXPECT_EQ(h[2].bits, 0x8000);  // underflow to −0 is rounding, not an error
  const Error e = thrown_by([] {
    fastconv::io::convert(make_array(std::vector<std::int64_t>{1, 65520}, 1, 2, false), DType::float16, "src");
  });
  EXPECT_STREQ(e.what(), "src: element 1: '65520' overflows float16: cannot convert int64 to float16");
  EXPECT_EQ(fastconv::io::convert(a, DType::bfloat16, "src").values<bfloat16>()[1].bits, 0x4780);  // 65536
}

TEST(IoConvert, FromHalfFloatsIsExactOrChecked) {
  const Array h = make_array(std::vector<float16>{float16(2.5f), float16(-3.0f)}, 1, 2, false);
  EXPECT_EQ(fastconv::io::convert(h, DType::float64, "src").values<double>(), (std::vector<double>{2.5, -3.0}));
  EXPECT_EQ(fastconv::io::convert(h, DType::bfloat16, "src").values<bfloat16>()[0].bits, 0x4020);
  const Error e = thrown_by([&] { fastconv::io::convert(h, DType::int32, "src"); });
  EXPECT_STREQ(e.what(), "src: element 0: '2.5' is not an integer: cannot convert float16 to int32");
}

TEST(IoConvert, KeepsTheShape) {
  const Array a = make_array(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, 3, 2, true);
  const Array b = fastconv::io::convert(a, DType::int64, "src");
  EXPECT_EQ(b.rows, 3U);
  EXPECT_EQ(b.cols, 2U);
  EXPECT_TRUE(b.two_d);
  EXPECT_EQ(b.values<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(fastconv::io::convert(a, DType::int32, "src").values<std::int32_t>(), a.values<std::int32_t>());
}

}  // namespace
