// Raw binary arrays: little-endian values of a dtype the caller names, nothing else.
#include <bit>

#include "io/array_io.hpp"
#include "io/detail.hpp"
#include "core/files.hpp"
#include "core/memory.hpp"

namespace fastconv::io {

// Values are copied to and from memory as they are; a big-endian port would byte-swap here.
static_assert(std::endian::native == std::endian::little, "the I/O module assumes a little-endian machine");

namespace detail {

Array read_values(InputFile& file, DType dtype, std::size_t count) {
  fastconv::detail::require_elements(count, size_of(dtype), file.name() + ": reading " + std::to_string(count) + " " +
                                                                std::string(to_string(dtype)) + " values");
  return with_element(dtype, [&](auto tag) {
    std::vector<decltype(tag)> values(count);
    file.read_exact(values.data(), count * sizeof(tag));
    return make_array(std::move(values), 1, count, false);
  });
}

}  // namespace detail

Array read_raw(const std::filesystem::path& path, DType dtype) {
  detail::InputFile file(path);
  const std::uint64_t size = file.size();
  const std::size_t item = size_of(dtype);
  if (size == 0) detail::fail(ErrorCode::invalid_argument, file.name(), "no values: the file is empty");
  if (size % item != 0) {
    detail::fail(ErrorCode::io, file.name(),
                 "size " + std::to_string(size) + " bytes is not a multiple of " + std::to_string(item) + " (" +
                     std::string(to_string(dtype)) + ")");
  }
  Array array = detail::read_values(file, dtype, static_cast<std::size_t>(size / item));
  detail::reject_non_finite(array, file.name());
  return array;
}

}  // namespace fastconv::io
