// Fuzz target: the .npy readers — io::read_npy (1-D and 2-D arrays), io::read_npy_tensor (up to
// 8 dimensions, conv2d's tensors) and io::read_array_layout (the header alone, for the
// out-of-core and distributed readers) — on one file: headers of versions 1 to 3 and their
// Python-literal dictionaries, then the values. The three must agree on what they accept (but
// for the integer dtypes read_npy widens, which read_array_layout refuses by design: a file read
// in pieces keeps its own dtype), and what they read must be written back by io::write_file /
// io::write_npy_tensor as the same bytes.
#include <filesystem>

#include "array_util.hpp"
#include "io/array_io.hpp"

using namespace fastconv;

namespace {

void check_agreement(const std::filesystem::path& path, std::uint64_t file_size) {
  const std::string name = path.string();
  io::Array array;
  io::Tensor tensor;
  io::ArrayFileLayout layout;
  const auto array_error = fuzz::error_naming(name, [&] { array = io::read_npy(path); });
  const auto tensor_error = fuzz::error_naming(name, [&] { tensor = io::read_npy_tensor(path); });
  const auto layout_error = fuzz::error_naming(name, [&] { layout = io::read_array_layout(path, std::nullopt); });
  const bool widened = layout_error && layout_error->find(" is read whole only (as ") != std::string::npos;

  if (!tensor_error) {
    fuzz::check_well_formed(tensor.values);
    fuzz::check(!tensor.shape.empty() && tensor.shape.size() <= io::kMaxTensorDimensions, "a tensor's dimensions");
    std::uint64_t count = 1;
    for (const std::size_t d : tensor.shape) count *= d;
    fuzz::check(count == tensor.values.size(), "a tensor's shape does not match its values");
    // read_npy takes the same files, of one or two dimensions.
    fuzz::check(tensor.shape.size() > 2 || !array_error, "read_npy_tensor read a file that read_npy rejects");
  }
  if (!array_error) {
    fuzz::check_well_formed(array);
    fuzz::check(!tensor_error && tensor.shape.size() == (array.two_d ? 2 : 1),
                "read_npy read a file that read_npy_tensor rejects");
    fuzz::check(fuzz::as_doubles(tensor.values) == fuzz::as_doubles(array), "read_npy and read_npy_tensor disagree");
    fuzz::check(!layout_error || widened, "read_npy read a file that read_array_layout rejects");
  }
  if (!layout_error) {
    // The layout accepts what read_npy accepts but for the values, which it does not read.
    fuzz::check(layout.format == io::Format::npy && (layout.shape.size() == 1 || layout.shape.size() == 2),
                "read_array_layout's format or shape");
    fuzz::check(layout.count() != 0 && layout.data_offset + layout.count() * size_of(layout.dtype) == file_size,
                "read_array_layout's count and offset do not cover the file");
    if (!array_error)
      fuzz::check(layout.dtype == array.dtype() && layout.count() == array.size(),
                  "read_array_layout and read_npy disagree");
  } else {
    fuzz::check(array_error.has_value() || widened, "read_array_layout rejects a file that read_npy reads");
  }

  // What was read is written back as it was; the 1-D and 2-D writer keeps the shape.
  if (!array_error && array.dtype() != DType::bfloat16) {
    const std::filesystem::path out = fuzz::scratch_dir() / "out.npy";
    io::write_file(out, array);
    fuzz::check(fuzz::identical(io::read_npy(out), array), "write_file then read_npy changed the array");
  }
  if (!tensor_error) {
    const std::filesystem::path out = fuzz::scratch_dir() / "tensor.npy";
    io::write_npy_tensor(out, tensor);
    const io::Tensor back = io::read_npy_tensor(out);
    fuzz::check(back.shape == tensor.shape && fuzz::identical(back.values, tensor.values),
                "write_npy_tensor then read_npy_tensor changed the tensor");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::single_threaded();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_agreement(fuzz::write_scratch("in.npy", fuzz::as_text(data, size)), size);
  return 0;
}
