// tests/fuzz/npy_builder.hpp — small .npy files for the CLI targets' scratch inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fastconv::fuzz {

/// A .npy version 1.0 file: `dict` is the header's dictionary, `data` the bytes after it.
inline std::string npy_file(std::string_view dict, std::string_view data) {
  std::string header(dict);
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string file = "\x93NUMPY\x01";
  file += '\0';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + std::string(data);
}

/// A C-order .npy file of `values` as `descr` ("<f4", …) with `shape` ("(2, 3)").
template <class T>
std::string npy_of(std::string_view descr, std::string_view shape, const std::vector<T>& values) {
  std::string data(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(data.data(), values.data(), data.size());
  return npy_file(
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + std::string(shape) + ", }", data);
}

}  // namespace fastconv::fuzz
