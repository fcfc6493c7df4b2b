// src/io/lut.hpp — S-box look-up tables as people write them: "12, 5, 6, 11", "0xC 0x5 …",
// "[12, 5, 6]" (a Python or SageMath list), in a text file, or a .npy array of integers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace fastconv::io {

/// Parses values separated by whitespace and/or commas, each decimal or 0x-hex and < 2^32;
/// one pair of enclosing brackets is allowed and '#' starts a comment running to the end of
/// the line. An invalid_argument Error names `source`, the value's position and the reason.
std::vector<std::uint32_t> parse_lut(std::string_view text, std::string_view source);

/// Reads a look-up table from a file: a .npy array of non-negative integers (1-D), or text as
/// parse_lut reads it.
std::vector<std::uint32_t> read_lut(const std::filesystem::path& path);

}  // namespace fastconv::io
