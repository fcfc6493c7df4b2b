// S-box look-up tables as the CLI reads them (src/io/lut.hpp): every accepted spelling, and the
// message of every rejected one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "fastconv/error.hpp"
#include "io/array_io.hpp"
#include "io/lut.hpp"

namespace {

using fastconv::Error;
using fastconv::io::parse_lut;
using Lut = std::vector<std::uint32_t>;

/// The message of the Error parse_lut throws on `text` (empty if it does not throw).
std::string rejection(const std::string& text) {
  try {
    parse_lut(text, "test");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), fastconv::ErrorCode::invalid_argument);
    return e.what();
  }
  return "";
}

TEST(Lut, SeparatorsBasesBracketsAndComments) {
  EXPECT_EQ(parse_lut("12, 5,6 11", "t"), (Lut{12, 5, 6, 11}));
  EXPECT_EQ(parse_lut("0xC 0X5\n0x6\t0xb", "t"), (Lut{12, 5, 6, 11}));
  EXPECT_EQ(parse_lut("[12, 5, 6, 11]", "t"), (Lut{12, 5, 6, 11}));
  EXPECT_EQ(parse_lut("# PRESENT's first values\n 12, 5, # and more\n6,11\n", "t"), (Lut{12, 5, 6, 11}));
  EXPECT_EQ(parse_lut("4294967295", "t"), (Lut{0xFFFFFFFFu}));
  EXPECT_EQ(parse_lut("0xffffffff,0", "t"), (Lut{0xFFFFFFFFu, 0}));
}

TEST(Lut, RejectionsNameTheValueAndWhy) {
  EXPECT_NE(rejection("1, 2, C, 4").find("value 2 'C' is not a non-negative integer"), std::string::npos)
      << rejection("1, 2, C, 4");
  EXPECT_NE(rejection("1 -2").find("value 1 '-2'"), std::string::npos);
  EXPECT_NE(rejection("1 4294967296").find("does not fit 32 bits"), std::string::npos);
  EXPECT_NE(rejection("0x100000000").find("does not fit 32 bits"), std::string::npos);
  EXPECT_NE(rejection("0x").find("'0x'"), std::string::npos);
  EXPECT_NE(rejection("1.5").find("'1.5'"), std::string::npos);
  EXPECT_NE(rejection("1 \x1b]0;x\x07").find("value 1 '\\x1b]0;x\\x07' is not"), std::string::npos)
      << rejection("1 \x1b]0;x\x07");
  EXPECT_NE(rejection("[1, 2").find("without a closing ']'"), std::string::npos);
  EXPECT_NE(rejection("  # nothing\n").find("no values"), std::string::npos);
  EXPECT_NE(rejection("").find("S-box look-up table test: no values"), std::string::npos);
  // A value left out is not skipped; one comma after the last value is allowed.
  EXPECT_NE(rejection("1,,0,3,2").find("a value is missing before value 1 (two commas in a row)"), std::string::npos)
      << rejection("1,,0,3,2");
  EXPECT_NE(rejection("1, ,\n 0").find("before value 1"), std::string::npos);
  EXPECT_NE(rejection(",1,0,3,2").find("before value 0 (a comma before the first)"), std::string::npos);
  EXPECT_NE(rejection("[,1, 0]").find("before value 0"), std::string::npos);
  EXPECT_NE(rejection("1,0,3,2,,").find("missing after the last"), std::string::npos);
  EXPECT_EQ(parse_lut("[1, 0, 3, 2,]", "t"), (Lut{1, 0, 3, 2}));
  EXPECT_EQ(parse_lut("1,\n0,\n3,\n2,\n", "t"), (Lut{1, 0, 3, 2}));
}

TEST(Lut, FilesInTextAndNpy) {
  const auto dir = std::filesystem::temp_directory_path() / ("fastconv_lut_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "s.txt") << "[0x0, 3, 2, 1]\n";
  EXPECT_EQ(fastconv::io::read_lut(dir / "s.txt"), (Lut{0, 3, 2, 1}));
  fastconv::io::write_file(dir / "s.npy", fastconv::io::make_array(std::vector<std::int32_t>{0, 3, 2, 1}, 1, 4, false));
  EXPECT_EQ(fastconv::io::read_lut(dir / "s.npy"), (Lut{0, 3, 2, 1}));
  fastconv::io::write_file(dir / "neg.npy", fastconv::io::make_array(std::vector<std::int64_t>{0, -3}, 1, 2, false));
  EXPECT_THROW(fastconv::io::read_lut(dir / "neg.npy"), Error);
  fastconv::io::write_file(dir / "f.npy", fastconv::io::make_array(std::vector<double>{0, 1}, 1, 2, false));
  EXPECT_THROW(fastconv::io::read_lut(dir / "f.npy"), Error);
  EXPECT_THROW(fastconv::io::read_lut(dir / "missing.txt"), Error);
  // NumPy's uint8 and uint32 tables (SBox.lut() is uint32), as numpy.save writes them.
  const auto save = [&](const char* name, const std::string& descr, const std::string& data) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (4,), }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::ofstream(dir / name, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8)
                                                << static_cast<char>(dict.size()) << '\0' << dict << data;
  };
  save("u1.npy", "|u1", std::string("\x0c\x05\xff\x00", 4));
  EXPECT_EQ(fastconv::io::read_lut(dir / "u1.npy"), (Lut{12, 5, 255, 0}));
  save("u4.npy", "<u4", std::string("\x0c\0\0\0\x05\0\0\0\xff\xff\xff\xff\0\0\0\0", 16));
  EXPECT_EQ(fastconv::io::read_lut(dir / "u4.npy"), (Lut{12, 5, 0xFFFFFFFFu, 0}));
  std::filesystem::remove_all(dir);
}

}  // namespace
