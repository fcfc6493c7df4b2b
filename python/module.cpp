// fastconv._fastconv — the nanobind bindings of the C++ API. The Python-facing conveniences
// (dtype coercion, axis handling, out=) live in python/fastconv/__init__.py; the functions
// here take C-contiguous NumPy/DLPack arrays of exactly the element type they name, so the
// data reach the C++ library without a copy, and release the GIL while it computes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/memory.hpp"  // advise_huge_pages for NumPy results, allocate_words
#include "fastconv/fastconv.hpp"

namespace nb = nanobind;
using namespace nb::literals;

// NumPy's float16 is IEEE binary16, the layout of fastconv::float16; DLPack's bfloat16 (PyTorch,
// JAX) is fastconv::bfloat16's.
namespace nanobind::detail {
template <>
struct dtype_traits<fastconv::float16> {
  static constexpr dlpack::dtype value{static_cast<std::uint8_t>(dlpack::dtype_code::Float), 16, 1};
  static constexpr auto name = const_name("float16");
};
template <>
struct dtype_traits<fastconv::bfloat16> {
  static constexpr dlpack::dtype value{static_cast<std::uint8_t>(dlpack::dtype_code::Bfloat), 16, 1};
  static constexpr auto name = const_name("bfloat16");
};
}  // namespace nanobind::detail

/// A NumPy array made by the extension (a result). nanobind hands arrays to NumPy through the
/// buffer protocol, whose format for 64-bit integers is 'q' (C's long long): NumPy then makes an
/// array whose dtype equals numpy.int64 but whose scalars are numpy.longlong, another type on
/// LP64 platforms (isinstance(a[0], numpy.int64) is False, a.dtype.char is 'q'). A 64-bit integer
/// result is therefore returned as a view of NumPy's own int64 (uint64); others as they are.
template <class T>
struct NumpyResult : nanobind::ndarray<nanobind::numpy, T> {
  using nanobind::ndarray<nanobind::numpy, T>::ndarray;
};

namespace nanobind::detail {
template <class T>
struct type_caster<NumpyResult<T>> {
  using Array = ndarray<numpy, T>;
  NB_TYPE_CASTER(NumpyResult<T>, make_caster<Array>::Name)

  bool from_python(handle, uint32_t, cleanup_list*) noexcept { return false; }  // results only

  static handle from_cpp(const NumpyResult<T>& result, rv_policy policy, cleanup_list* cleanup) noexcept {
    handle array = make_caster<Array>::from_cpp(result, policy, cleanup);
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
      if (!array.is_valid()) return array;
      PyObject* canonical = PyObject_CallMethod(array.ptr(), "view", "s", std::is_signed_v<T> ? "int64" : "uint64");
      array.dec_ref();
      return canonical;  // nullptr with the Python error set if the view failed
    }
    return array;
  }
};
}  // namespace nanobind::detail

namespace {

using fastconv::Backend;
using fastconv::BooleanFunction;
using fastconv::Error;
using fastconv::ErrorCode;
using fastconv::SBox;

/// Arrays on the host or on a CUDA device (PyTorch, CuPy): C-contiguous, of exactly T.
template <class T>
using Rows = nb::ndarray<T, nb::ndim<2>, nb::c_contig>;
template <class T>
using Vector = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using DeviceVector = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cuda>;

/// Where a computation runs: a backend name ("auto", "reference", "cpu", "opencl", "cuda") or a Backend.
using BackendArg = std::variant<Backend, std::string>;

Backend to_backend(const BackendArg& arg) {
  if (const auto* backend = std::get_if<Backend>(&arg)) return *backend;
  return Backend::from_name(std::get<std::string>(arg));
}

/// The backend for an array on CUDA device `device_id`: "auto" and "cuda" name the cuda backend
/// on that device; a host backend cannot read the array.
Backend device_backend(const BackendArg& arg, int device_id) {
  if (const auto* name = std::get_if<std::string>(&arg); name && (*name == "auto" || *name == "cuda"))
    return Backend::cuda("", std::to_string(device_id));
  Backend b = to_backend(arg);
  if (b.name() != "cuda")
    throw Error(ErrorCode::unsupported, "a CUDA array is computed by the cuda backend, not by " +
                                            std::string(b.name()) + " (which reads host memory): pass backend=\"cuda\" "
                                            "or \"auto\", or move the array to the host first");
  return b;
}

/// A cudaStream_t passed from Python as an integer (0 = the legacy default stream).
void* as_stream(std::uintptr_t stream) { return reinterpret_cast<void*>(stream); }

/// A new NumPy array that owns `values` (moved, not copied).
template <class T>
NumpyResult<T> to_numpy(std::vector<T>&& values, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return NumpyResult<T>(owned->data(), shape, owner);
}

/// A new NumPy array whose values are left for the caller to write: no zeroing pass before
/// a kernel overwrites them all (conv2d's outputs run to many MiB). Its words are 64-byte
/// aligned: a std::vector's or NumPy's large arrays start 16 bytes past a cache line as often
/// as not, and the cpu kernels' vectors then straddle lines (a dyadic convolution into such an
/// output took 1.10–1.20× as long: docs/benchmarks.md). They come from malloc's heap as those
/// arrays' do, so that a call reuses the room the last one freed (the library's 2 MiB-aligned
/// buffers were mapped and faulted in afresh by every call: 2^16 floats took 4× as long), with
/// huge pages advised where NumPy advises them (from 4 MiB on).
template <class T>
NumpyResult<T> uninitialized_numpy(std::span<const std::size_t> shape) {
  constexpr std::size_t kAlignment = 64, kHugeFrom = std::size_t{4} << 20;
  std::size_t size = 1;
  for (const std::size_t extent : shape) size *= extent;
  const std::size_t bytes = (std::max<std::size_t>(size, 1) * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
  void* owned = std::aligned_alloc(kAlignment, bytes);
  if (owned == nullptr) throw std::bad_alloc();
  if (bytes >= kHugeFrom) fastconv::detail::advise_huge_pages(owned, bytes);
  nb::capsule owner(owned, [](void* p) noexcept { std::free(p); });
  return NumpyResult<T>(static_cast<T*>(owned), shape.size(), shape.data(), owner);
}
template <class T>
NumpyResult<T> uninitialized_numpy(std::initializer_list<std::size_t> shape) {
  return uninitialized_numpy<T>(std::span<const std::size_t>(shape.begin(), shape.size()));
}

template <class T>
NumpyResult<T> table_to_numpy(fastconv::Table<T>&& table) {
  const std::size_t rows = table.rows, cols = table.cols;
  return to_numpy(std::move(table.values), {rows, cols});
}

nb::dict histogram_dict(const fastconv::Histogram& histogram) {
  nb::dict d;
  for (const auto& [value, count] : histogram) d[nb::int_(value)] = nb::int_(count);
  return d;
}

template <class T>
std::span<const T> span_of(const Vector<T>& a) {
  return {a.data(), a.shape(0)};
}

// --- WHT and dyadic operations ---------------------------------------------------------------

fastconv::Accumulation parse_accumulation(std::string_view accumulate) {
  const auto parsed = fastconv::parse_accumulation(accumulate);
  if (!parsed)
    throw Error(ErrorCode::invalid_argument,
                "unknown accumulation '" + std::string(accumulate) + "': use native or float64");
  return *parsed;
}

fastconv::DyadicOptions parse_dyadic_options(std::string_view accumulate) { return {parse_accumulation(accumulate)}; }

fastconv::WhtOptions parse_wht_options(std::string_view order, std::string_view normalize,
                                       std::string_view accumulate) {
  const auto parsed_order = fastconv::parse_order(order);
  if (!parsed_order)
    throw Error(ErrorCode::invalid_argument,
                "unknown order '" + std::string(order) + "': use hadamard, sequency or paley");
  const auto parsed_normalization = fastconv::parse_normalization(normalize);
  if (!parsed_normalization)
    throw Error(ErrorCode::invalid_argument,
                "unknown normalization '" + std::string(normalize) + "': use none, orthonormal or inverse");
  return {*parsed_order, *parsed_normalization, parse_accumulation(accumulate)};
}

/// Transforms each row of `data` in place: host arrays on `backend`, CUDA arrays on the cuda
/// backend of their device, on `stream`, without leaving the device.
template <class T>
void wht_rows(Rows<T> data, std::string_view order, std::string_view normalize, std::string_view accumulate,
              const BackendArg& backend, std::uintptr_t stream) {
  const fastconv::WhtOptions options = parse_wht_options(order, normalize, accumulate);
  const std::size_t rows = data.shape(0), length = data.shape(1);
  if (data.device_type() == nb::device::cuda::value) {
    if constexpr (std::integral<T>) {
      throw Error(ErrorCode::unsupported, "exact integer transforms of CUDA arrays are not supported (their range "
                                          "checks run on the host): use a floating-point dtype, or a host array");
    } else {
      const Backend b = device_backend(backend, data.device_id());
      const fastconv::WhtPlan<T> plan(fastconv::log2_exact(length, "WHT row"), options, b);
      nb::gil_scoped_release release;
      plan.execute_device(data.data(), rows, length, as_stream(stream));
    }
    return;
  }
  if (data.device_type() != nb::device::cpu::value)
    throw Error(ErrorCode::unsupported, "fastconv reads host (CPU) and CUDA arrays, not arrays on DLPack device type " +
                                            std::to_string(data.device_type()));
  const Backend b = to_backend(backend);
  const std::span<T> span(data.data(), rows * length);
  nb::gil_scoped_release release;
  fastconv::wht(span, rows, length, length, options, b);
}

/// W·x along the last axis of a C-contiguous host array, into a new array: the Python
/// package's wht() for such arrays in one call, instead of its own copy, reshape and checks
/// (about 2 µs a call: docs/benchmarks.md). The arguments as for wht_rows.
template <class T>
NumpyResult<T> wht_new(nb::ndarray<const T, nb::c_contig, nb::device::cpu> x, std::string_view order,
                                  std::string_view normalize, std::string_view accumulate, const BackendArg& backend) {
  const fastconv::WhtOptions options = parse_wht_options(order, normalize, accumulate);
  const Backend b = to_backend(backend);
  if (x.ndim() == 0)
    throw Error(ErrorCode::invalid_argument, "wht needs an array of at least one dimension, not a scalar");
  std::vector<std::size_t> shape(x.ndim());
  for (std::size_t i = 0; i < shape.size(); ++i) shape[i] = x.shape(i);
  auto out = uninitialized_numpy<T>(shape);
  const std::size_t size = x.size(), length = shape.back();
  if (size == 0) {
    (void)fastconv::log2_exact(length, "WHT row");  // no rows, but their length must still be one
    return out;
  }
  {
    nb::gil_scoped_release release;
    std::copy_n(x.data(), size, out.data());
    fastconv::wht(std::span<T>(out.data(), size), size / length, length, length, options, b);
  }
  return out;
}

/// W·x along the last axis of a C-contiguous host array into `out`, a C-contiguous host array
/// of x's shape (it may overlap x): the Python package's wht(x, out=out) in one call, instead
/// of an aligned copy, its transform and a copy into out in Python (about 4 µs a call more,
/// and for floating point two passes over the data: docs/benchmarks.md). The plan is made, and
/// so every argument checked, before out is written. Floating point: x copied into out and
/// transformed there (no error depends on the data). Integers: transformed in an aligned copy
/// that goes to out only if every result fits, so that an overflow leaves out as it was. The
/// other arguments as for wht_rows.
template <class T>
void wht_into(nb::ndarray<const T, nb::c_contig, nb::device::cpu> x, nb::ndarray<T, nb::c_contig, nb::device::cpu> out,
              std::string_view order, std::string_view normalize, std::string_view accumulate,
              const BackendArg& backend) {
  const fastconv::WhtOptions options = parse_wht_options(order, normalize, accumulate);
  const Backend b = to_backend(backend);
  if (x.ndim() == 0)
    throw Error(ErrorCode::invalid_argument, "wht needs an array of at least one dimension, not a scalar");
  bool same_shape = out.ndim() == x.ndim();
  for (std::size_t i = 0; same_shape && i < x.ndim(); ++i) same_shape = out.shape(i) == x.shape(i);
  if (!same_shape) throw Error(ErrorCode::invalid_argument, "out must have the shape of x");
  const std::size_t size = x.size(), length = x.shape(x.ndim() - 1);
  const fastconv::WhtPlan<T> plan(fastconv::log2_exact(length, "WHT row"), options, b);
  if (size == 0) return;
  nb::gil_scoped_release release;
  if constexpr (std::integral<T>) {
    const auto work = fastconv::detail::allocate_words<T>(size);
    std::copy_n(x.data(), size, work.get());
    plan.execute(std::span<T>(work.get(), size), size / length, length);
    std::copy_n(work.get(), size, out.data());
  } else {
    if (out.data() != x.data()) std::memmove(out.data(), x.data(), size * sizeof(T));  // memmove: they may overlap
    plan.execute(std::span<T>(out.data(), size), size / length, length);
  }
}

/// bfloat16 rows of a NumPy array (ml_dtypes' bfloat16, which NumPy cannot export through
/// DLPack), passed as their uint16 bit patterns.
void wht_bfloat16_bits(nb::ndarray<std::uint16_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> bits,
                       std::string_view order, std::string_view normalize, std::string_view accumulate,
                       const BackendArg& backend) {
  const fastconv::WhtOptions options = parse_wht_options(order, normalize, accumulate);
  const Backend b = to_backend(backend);
  const std::size_t rows = bits.shape(0), length = bits.shape(1);
  const std::span<fastconv::bfloat16> span(reinterpret_cast<fastconv::bfloat16*>(bits.data()), rows * length);
  nb::gil_scoped_release release;
  fastconv::wht(span, rows, length, length, options, b);
}

template <class T>
fastconv::DeviceArray<T> device_array(DeviceVector<T>& a) {
  return {a.data(), a.shape(0)};
}
template <class T>
fastconv::DeviceArray<const T> const_device_array(DeviceVector<T>& a) {
  return {a.data(), a.shape(0)};
}

/// Dyadic operations on CUDA arrays, into `out` (allocated by the caller's framework).
template <class T>
void convolve_device(DeviceVector<T> f, DeviceVector<T> g, DeviceVector<T> out, const BackendArg& backend,
                     std::uintptr_t stream) {
  const Backend b = device_backend(backend, out.device_id());
  nb::gil_scoped_release release;
  fastconv::convolve(const_device_array(f), const_device_array(g), device_array(out), b, as_stream(stream));
}

template <class T>
void autocorrelate_device(DeviceVector<T> f, DeviceVector<T> out, const BackendArg& backend, std::uintptr_t stream) {
  const Backend b = device_backend(backend, out.device_id());
  nb::gil_scoped_release release;
  fastconv::autocorrelate(const_device_array(f), device_array(out), b, as_stream(stream));
}

template <class T>
void deconvolve_device(DeviceVector<T> y, DeviceVector<T> h, DeviceVector<T> out, const BackendArg& backend,
                       std::uintptr_t stream) {
  const Backend b = device_backend(backend, out.device_id());
  nb::gil_scoped_release release;
  fastconv::deconvolve(const_device_array(y), const_device_array(h), device_array(out), b, as_stream(stream));
}

template <class T>
NumpyResult<T> convolve(Vector<T> f, Vector<T> g, std::string_view accumulate, const BackendArg& backend) {
  const fastconv::DyadicOptions options = parse_dyadic_options(accumulate);
  const Backend b = to_backend(backend);
  auto out = uninitialized_numpy<T>({std::max(f.shape(0), g.shape(0))});
  {
    nb::gil_scoped_release release;
    fastconv::convolve(span_of(f), span_of(g), std::span<T>(out.data(), out.shape(0)), options, b);
  }
  return out;
}

template <class T>
NumpyResult<T> autocorrelate(Vector<T> f, std::string_view accumulate, const BackendArg& backend) {
  const fastconv::DyadicOptions options = parse_dyadic_options(accumulate);
  const Backend b = to_backend(backend);
  auto out = uninitialized_numpy<T>({f.shape(0)});
  {
    nb::gil_scoped_release release;
    fastconv::autocorrelate(span_of(f), std::span<T>(out.data(), out.shape(0)), options, b);
  }
  return out;
}

template <class T>
NumpyResult<T> deconvolve(Vector<T> y, Vector<T> h, std::string_view accumulate, const BackendArg& backend) {
  const fastconv::DyadicOptions options = parse_dyadic_options(accumulate);
  const Backend b = to_backend(backend);
  std::vector<T> out;
  {
    nb::gil_scoped_release release;
    out = fastconv::deconvolve(span_of(y), span_of(h), options, b);
  }
  const std::size_t n = out.size();
  return to_numpy(std::move(out), {n});
}

template <class T>
void bind_dyadic(nb::module_& m, const char* suffix) {
  using namespace std::string_literals;
  m.def(("_wht_"s + suffix).c_str(), &wht_rows<T>, "data"_a.noconvert(), "order"_a, "normalize"_a, "accumulate"_a,
        "backend"_a, "stream"_a = 0, "Transforms each row of a C-contiguous 2-D host or CUDA array in place.");
  if constexpr (!std::is_same_v<T, fastconv::bfloat16>)  // NumPy's bfloat16 (ml_dtypes) has no DLPack type
    m.def(("_wht_new_"s + suffix).c_str(), &wht_new<T>, "x"_a.noconvert(), "order"_a, "normalize"_a, "accumulate"_a,
          "backend"_a, "The transform along the last axis of a C-contiguous host array, as a new array.");
  if constexpr (!std::is_same_v<T, fastconv::bfloat16>)
    m.def(("_wht_into_"s + suffix).c_str(), &wht_into<T>, "x"_a.noconvert(), "out"_a.noconvert(), "order"_a,
          "normalize"_a, "accumulate"_a, "backend"_a,
          "The transform along the last axis of a C-contiguous host array into out, a C-contiguous array of its shape.");
  if constexpr (fastconv::Element<T>) {
    m.def(("_convolve_"s + suffix).c_str(), &convolve<T>, "f"_a.noconvert(), "g"_a.noconvert(), "accumulate"_a,
          "backend"_a);
    m.def(("_autocorrelate_"s + suffix).c_str(), &autocorrelate<T>, "f"_a.noconvert(), "accumulate"_a, "backend"_a);
    m.def(("_deconvolve_"s + suffix).c_str(), &deconvolve<T>, "y"_a.noconvert(), "h"_a.noconvert(), "accumulate"_a,
          "backend"_a);
    using System = fastconv::DyadicSystem<T>;
    auto system = nb::class_<System>(m, ("_DyadicSystem_"s + suffix).c_str())
        .def(
            "__init__",
            [](System* self, Vector<T> h, std::string_view accumulate, const BackendArg& backend) {
              const fastconv::DyadicOptions options = parse_dyadic_options(accumulate);
              const Backend b = to_backend(backend);
              nb::gil_scoped_release release;
              new (self) System(span_of(h), options, b);
            },
            "h"_a.noconvert(), "accumulate"_a, "backend"_a)
        .def(
            "apply",
            [](const System& self, Vector<T> x) {
              auto out = uninitialized_numpy<T>({std::max(self.size(), x.shape(0))});
              {
                nb::gil_scoped_release release;
                self.apply(span_of(x), std::span<T>(out.data(), out.shape(0)));
              }
              return out;
            },
            "x"_a.noconvert())
        .def_prop_ro("backend", &System::backend)
        .def("__len__", &System::size);
    if constexpr (std::floating_point<T>) {
      m.def(("_convolve_device_"s + suffix).c_str(), &convolve_device<T>, "f"_a.noconvert(), "g"_a.noconvert(),
            "out"_a.noconvert(), "backend"_a, "stream"_a);
      m.def(("_autocorrelate_device_"s + suffix).c_str(), &autocorrelate_device<T>, "f"_a.noconvert(),
            "out"_a.noconvert(), "backend"_a, "stream"_a);
      m.def(("_deconvolve_device_"s + suffix).c_str(), &deconvolve_device<T>, "y"_a.noconvert(), "h"_a.noconvert(),
            "out"_a.noconvert(), "backend"_a, "stream"_a);
      system.def(
          "apply_device",
          [](const System& self, DeviceVector<T> x, DeviceVector<T> out, std::uintptr_t stream) {
            nb::gil_scoped_release release;
            self.apply_device(const_device_array(x), device_array(out), as_stream(stream));
          },
          "x"_a.noconvert(), "out"_a.noconvert(), "stream"_a);
    }
  }
}

// --- Boolean functions -----------------------------------------------------------------------

/// Values of an integer sequence or array, each checked to lie in [0, max]; `what` names them in errors.
template <class Wide>
std::vector<Wide> checked_values(nb::handle values, const char* what, std::uint64_t max) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object array = np.attr("asarray")(values);
  const std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
  // An empty sequence is NumPy's float64: it is refused for its length, not its type.
  const bool empty = nb::cast<std::size_t>(array.attr("size")) == 0;
  if (kind != "b" && kind != "i" && kind != "u" && !empty)
    throw Error(ErrorCode::invalid_argument, std::string(what) + " holds integers, not values of dtype " +
                                                 nb::cast<std::string>(array.attr("dtype").attr("name")));
  if (nb::cast<int>(array.attr("ndim")) != 1)
    throw Error(ErrorCode::invalid_argument, std::string(what) + " is one-dimensional");
  // Unsigned arrays are read as uint64 and the rest as int64: every value keeps its sign and size.
  const auto check = [&]<class W>(std::type_identity<W>) {
    const auto wide = nb::cast<Vector<W>>(np.attr("ascontiguousarray")(
        array.attr("astype")(kind == "u" ? "uint64" : "int64")));
    std::vector<Wide> out(wide.shape(0));
    for (std::size_t i = 0; i < out.size(); ++i) {
      const W v = wide.data()[i];
      if (std::cmp_less(v, 0) || std::cmp_greater(v, max))
        throw Error(ErrorCode::invalid_argument, std::string(what) + ": value " + std::to_string(i) + " is " +
                                                     std::to_string(v) + ", outside [0, " + std::to_string(max) + "]");
      out[i] = static_cast<Wide>(v);
    }
    return out;
  };
  if (kind == "u") return check(std::type_identity<std::uint64_t>{});
  return check(std::type_identity<std::int64_t>{});
}

/// 0/1 values from any integer or bool sequence or array (an Error names the first other value).
std::vector<std::uint8_t> bits_of(nb::handle values) {
  return checked_values<std::uint8_t>(values, "a truth table", 1);
}

BooleanFunction boolean_from(nb::handle table, std::optional<int> n) {
  if (nb::isinstance<nb::str>(table)) return BooleanFunction::from_hex(nb::cast<std::string>(table), n);
  BooleanFunction f = BooleanFunction::from_values(bits_of(table));
  if (n && *n != f.num_variables())
    throw Error(ErrorCode::invalid_argument, "the truth table has " + std::to_string(f.size()) +
                                                 " values, not 2^" + std::to_string(*n));
  return f;
}

/// A histogram as `fastconv ... analyze --json` prints it: [[value, count], ...] by value.
nb::list histogram_list(const fastconv::Histogram& histogram) {
  nb::list pairs;
  for (const auto& [value, count] : histogram) {
    nb::list pair;
    pair.append(value);
    pair.append(count);
    pairs.append(pair);
  }
  return pairs;
}

nb::dict boolean_summary(const BooleanFunction& f, const BackendArg& backend) {
  const Backend b = to_backend(backend);
  fastconv::BooleanSummary s;
  std::optional<int> immunity;
  {
    nb::gil_scoped_release release;
    s = fastconv::summarize(f, b);
    if (s.n <= BooleanFunction::max_algebraic_immunity_variables) immunity = f.algebraic_immunity();
  }
  // The keys and values of `fastconv boolean analyze --json`.
  nb::dict d;
  d["n"] = s.n;
  d["weight"] = s.weight;
  d["balanced"] = s.balanced;
  d["nonlinearity"] = s.nonlinearity;
  d["linearity"] = s.linearity;
  d["absolute_indicator"] = s.absolute_indicator;
  d["sum_of_squares_indicator"] =
      s.sum_of_squares_indicator ? nb::object(nb::int_(*s.sum_of_squares_indicator)) : nb::none();
  d["algebraic_degree"] = s.algebraic_degree;
  d["algebraic_immunity"] = immunity ? nb::object(nb::int_(*immunity)) : nb::none();
  d["correlation_immunity"] = s.correlation_immunity;
  d["resiliency"] = s.resiliency;
  d["is_bent"] = s.is_bent;
  d["is_plateaued"] = s.plateau_amplitude.has_value();
  d["plateau_amplitude"] = s.plateau_amplitude ? nb::object(nb::int_(*s.plateau_amplitude)) : nb::none();
  d["walsh_spectrum"] = histogram_list(s.walsh_histogram);
  d["autocorrelation_spectrum"] = histogram_list(s.autocorrelation_histogram);
  return d;
}

NumpyResult<std::uint8_t> truth_table(const BooleanFunction& f) {
  std::vector<std::uint8_t> bits(f.size());
  for (std::uint64_t x = 0; x < f.size(); ++x) bits[x] = f(x);
  const std::size_t n = bits.size();
  return to_numpy(std::move(bits), {n});
}

/// __hash__ of a type with value equality (BooleanFunction, SBox): FNV-1a over `tag` and the
/// words that make the value, so that equal values hash equal (Python's rule for dict keys).
template <class Word>
std::uint64_t value_hash(std::uint64_t tag, std::span<const Word> words) {
  std::uint64_t h = (14695981039346656037ull ^ tag) * 1099511628211ull;
  for (const Word w : words) h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ull;
  return h;
}

/// A method of an immutable `Self` (BooleanFunction, SBox) computed without the GIL, so that
/// other Python threads run meanwhile (docs/python.md, "Threads"); `Args` are its arguments
/// after the object.
template <class Self, class... Args, class F>
auto released(F f) {
  return [f](const Self& self, Args... args) {
    nb::gil_scoped_release release;
    return f(self, args...);
  };
}

void bind_boolean(nb::module_& m) {
  nb::class_<BooleanFunction>(m, "BooleanFunction",
                              "A Boolean function of n <= 32 variables, given by its truth table f(0 ... 2^n-1).\n\n"
                              "BooleanFunction(\"0113077C165E76A8\") reads a hex truth table (SageMath's convention: "
                              "the integer sum f(x)*2^x, most-significant digit first); BooleanFunction([0, 1, 1, 0]) "
                              "takes the values themselves. Immutable.")
      .def(
          "__init__", [](BooleanFunction* self, nb::handle table, std::optional<int> n) {
            new (self) BooleanFunction(boolean_from(table, n));
          },
          "truth_table"_a, "n"_a = nb::none(),
          "From a hex string (n from its length unless given) or a sequence/array of 0/1 values.")
      .def_static("from_hex", &BooleanFunction::from_hex, "hex"_a, "n"_a = nb::none(),
                  "From a hex truth table (\"0x\" optional).")
      .def_static(
          "from_values", [](nb::handle values) { return BooleanFunction::from_values(bits_of(values)); },
          "values"_a, "From 2^n values, each 0 or 1.")
      .def_static(
          "from_file", [](const std::filesystem::path& path) { return BooleanFunction::from_file(path); }, "path"_a,
          "From a file with a 0x-prefixed hex truth table or 0/1 values.")
      .def_static(
          "zero", [](int n) { return BooleanFunction(n); }, "n"_a, "The zero function of n variables.")
      .def_prop_ro("num_variables", &BooleanFunction::num_variables, "n, the number of variables.")
      .def("__len__", &BooleanFunction::size, "2^n, the number of points.")
      .def(
          "__call__",
          [](const BooleanFunction& f, std::uint64_t x) {
            if (x >= f.size())
              throw Error(ErrorCode::invalid_argument, "point " + std::to_string(x) + " is outside [0, 2^" +
                                                           std::to_string(f.num_variables()) + ")");
            return static_cast<int>(f(x));
          },
          "x"_a, "f(x), 0 or 1.")
      .def("truth_table", &truth_table, "The values f(0 ... 2^n-1) as a uint8 array.")
      .def("to_hex", &BooleanFunction::to_hex, "The hex truth table, without a prefix.")
      .def("__eq__", [](const BooleanFunction& a, const BooleanFunction& b) { return a == b; }, nb::is_operator())
      .def("__hash__", [](const BooleanFunction& f) { return value_hash(f.num_variables(), f.words()); })
      .def("__repr__",
           [](const BooleanFunction& f) { return "BooleanFunction(\"" + f.to_hex() + "\", n=" +
                                                 std::to_string(f.num_variables()) + ")"; })
      .def_prop_ro("weight", &BooleanFunction::weight, "Hamming weight: the number of x with f(x) = 1.")
      .def_prop_ro("is_balanced", &BooleanFunction::is_balanced)
      .def(
          "walsh_spectrum",
          [](const BooleanFunction& f, const BackendArg& backend) {
            const Backend b = to_backend(backend);
            std::vector<std::int64_t> w;
            {
              nb::gil_scoped_release release;
              w = f.walsh_spectrum(b);
            }
            const std::size_t n = w.size();
            return to_numpy(std::move(w), {n});
          },
          "backend"_a = "auto", "W_f(a) = sum_x (-1)^(f(x) xor a.x) for a = 0 ... 2^n-1 (int64).")
      .def(
          "autocorrelation",
          [](const BooleanFunction& f, const BackendArg& backend) {
            const Backend b = to_backend(backend);
            std::vector<std::int64_t> r;
            {
              nb::gil_scoped_release release;
              r = f.autocorrelation(b);
            }
            const std::size_t n = r.size();
            return to_numpy(std::move(r), {n});
          },
          "backend"_a = "auto", "Delta_f(a) = sum_x (-1)^(f(x) xor f(x xor a)) for a = 0 ... 2^n-1 (int64).")
      .def_prop_ro("linearity", released<BooleanFunction>([](const BooleanFunction& f) { return f.linearity(); }), "max |W_f(a)|.")
      .def_prop_ro("nonlinearity", released<BooleanFunction>([](const BooleanFunction& f) { return f.nonlinearity(); }),
                   "2^(n-1) - linearity/2: the distance to the nearest affine function.")
      .def_prop_ro("is_bent", released<BooleanFunction>([](const BooleanFunction& f) { return f.is_bent(); }))
      .def_prop_ro("plateau_amplitude", released<BooleanFunction>([](const BooleanFunction& f) { return f.plateau_amplitude(); }),
                   "The common nonzero |W_f(a)| if f is plateaued, else None.")
      .def_prop_ro("is_plateaued", released<BooleanFunction>([](const BooleanFunction& f) { return f.is_plateaued(); }))
      .def_prop_ro("correlation_immunity",
                   released<BooleanFunction>([](const BooleanFunction& f) { return f.correlation_immunity(); }))
      .def_prop_ro("resiliency_order", released<BooleanFunction>([](const BooleanFunction& f) { return f.resiliency_order(); }),
                   "The correlation immunity if f is balanced, -1 otherwise.")
      .def_prop_ro("absolute_indicator",
                   released<BooleanFunction>([](const BooleanFunction& f) { return f.absolute_indicator(); }))
      .def_prop_ro("sum_of_squares_indicator",
                   released<BooleanFunction>([](const BooleanFunction& f) { return f.sum_of_squares_indicator(); }))
      .def("walsh_histogram",
           [](const BooleanFunction& f) {
             return histogram_dict(released<BooleanFunction>([](const BooleanFunction& g) { return g.walsh_histogram(); })(f));
           },
           "W_f value -> count.")
      .def("autocorrelation_histogram",
           [](const BooleanFunction& f) {
             return histogram_dict(
                 released<BooleanFunction>([](const BooleanFunction& g) { return g.autocorrelation_histogram(); })(f));
           },
           "Delta_f value -> count.")
      .def(
          "linear_structures",
          [](const BooleanFunction& f) {
            std::vector<std::pair<std::uint64_t, int>> out;
            const auto structures = released<BooleanFunction>([](const BooleanFunction& g) { return g.linear_structures(); })(f);
            for (const auto& s : structures) out.emplace_back(s.a, s.c ? 1 : 0);
            return out;
          },
          "Every (a, c) with f(x xor a) xor f(x) = c for all x, by increasing a.")
      .def("algebraic_normal_form",
           released<BooleanFunction>([](const BooleanFunction& f) { return f.algebraic_normal_form(); }),
           "The ANF as a BooleanFunction: value u is the coefficient of the monomial prod_{i in u} x_i.")
      .def_prop_ro("algebraic_degree", released<BooleanFunction>([](const BooleanFunction& f) { return f.algebraic_degree(); }),
                   "-1 for the zero function.")
      .def_prop_ro(
          "algebraic_immunity",
          [](const BooleanFunction& f) {
            nb::gil_scoped_release release;
            return f.algebraic_immunity();
          },
          "The smallest degree of a nonzero annihilator of f or f xor 1 (n <= 16).")
      .def("summary", &boolean_summary, "backend"_a = "auto",
           "The dict `fastconv boolean analyze --json` prints (same keys and values).");
}

// --- S-boxes ---------------------------------------------------------------------------------

std::vector<std::uint32_t> lut_of(nb::handle values) {
  return checked_values<std::uint32_t>(values, "an S-box look-up table", 0xffffffffu);
}

nb::dict sbox_summary(const SBox& s, const BackendArg& backend) {
  fastconv::AnalysisOptions options{to_backend(backend), {}};
  fastconv::SBoxSummary x;
  {
    nb::gil_scoped_release release;
    x = s.summary(options);
  }
  // The keys and values of `fastconv sbox analyze --json`.
  nb::dict d;
  d["n"] = x.n;
  d["m"] = x.m;
  d["bijective"] = x.bijective;
  d["differential_uniformity"] = x.differential_uniformity;
  d["differential_spectrum"] = histogram_list(x.differential_spectrum);
  d["linearity"] = x.linearity;
  d["nonlinearity"] = x.nonlinearity;
  d["absolute_walsh_spectrum"] = histogram_list(x.absolute_walsh_spectrum);
  d["algebraic_degree"] = x.max_degree;
  d["min_algebraic_degree"] = x.min_degree;
  d["degree_spectrum"] = histogram_list(x.degree_spectrum);
  d["boomerang_uniformity"] = x.boomerang_uniformity ? nb::object(nb::int_(*x.boomerang_uniformity)) : nb::none();
  d["boomerang_spectrum"] = x.boomerang_uniformity ? nb::object(histogram_list(x.boomerang_spectrum)) : nb::none();
  d["fixed_points"] = x.fixed_points;
  d["is_apn"] = x.is_apn;
  d["differential_branch_number"] = x.differential_branch_number;
  d["linear_branch_number"] = x.linear_branch_number;
  return d;
}

void bind_sbox(nb::module_& m) {
  nb::class_<SBox>(m, "SBox",
                   "An S-box S: F_2^n -> F_2^m given by its look-up table S(0 ... 2^n-1) (n <= 24, m <= 32).\n\n"
                   "Tables (lat, ddt, bct, act) are NumPy arrays of 2^n rows (input mask/difference a) and 2^m "
                   "columns (b); statistics are properties. Conventions are SageMath's and sboxU's. Immutable.")
      .def(
          "__init__", [](SBox* self, nb::handle lut, std::optional<int> m) { new (self) SBox(lut_of(lut), m); },
          "lut"_a, "m"_a = nb::none(),
          "From a look-up table of 2^n integers; m = the bit length of the largest value unless given.")
      .def_static(
          "named",
          [](std::string_view name) {
            auto s = fastconv::named_sbox(name);
            if (!s) {
              std::string known;
              for (auto k : fastconv::named_sbox_names()) known += (known.empty() ? "" : ", ") + std::string(k);
              throw Error(ErrorCode::invalid_argument, "unknown S-box '" + std::string(name) + "': use " + known);
            }
            return *s;
          },
          "name"_a, "A well-known S-box: \"aes\" or \"present\".")
      .def_prop_ro("input_bits", &SBox::input_bits, "n")
      .def_prop_ro("output_bits", &SBox::output_bits, "m")
      .def("__len__", &SBox::size)
      .def(
          "__call__",
          [](const SBox& s, std::uint32_t x) {
            if (x >= s.size())
              throw Error(ErrorCode::invalid_argument, "input " + std::to_string(x) + " is outside [0, " +
                                                           std::to_string(s.size()) + ")");
            return s(x);
          },
          "x"_a)
      .def(
          "lut",
          [](const SBox& s) {
            std::vector<std::uint32_t> v(s.lut().begin(), s.lut().end());
            const std::size_t n = v.size();
            return to_numpy(std::move(v), {n});
          },
          "The look-up table as a uint32 array.")
      .def("__eq__", [](const SBox& a, const SBox& b) { return a == b; }, nb::is_operator())
      .def("__hash__", [](const SBox& s) { return value_hash(s.output_bits(), s.lut()); })
      .def("__repr__",
           [](const SBox& s) {
             std::string out = "SBox([";
             for (std::size_t x = 0; x < s.size() && x < 16; ++x) out += (x ? ", " : "") + std::to_string(s(x));
             return out + (s.size() > 16 ? ", ...]" : "]") + ", m=" + std::to_string(s.output_bits()) + ")";
           })
      .def(
          "lat",
          [](const SBox& s, std::string_view scale, const BackendArg& backend) -> nb::object {
            const auto parsed = fastconv::parse_lat_scale(scale);
            if (!parsed)
              throw Error(ErrorCode::invalid_argument, "unknown LAT scale '" + std::string(scale) +
                                                           "': use fourier_coefficient, absolute_bias, bias or correlation");
            const Backend b = to_backend(backend);
            if (*parsed == fastconv::LatScale::fourier_coefficient) {
              fastconv::Table<std::int32_t> t;
              {
                nb::gil_scoped_release release;
                t = s.lat(b);
              }
              return nb::cast(table_to_numpy(std::move(t)));
            }
            fastconv::Table<double> t;
            {
              nb::gil_scoped_release release;
              t = s.lat(*parsed, b);
            }
            return nb::cast(table_to_numpy(std::move(t)));
          },
          "scale"_a = "fourier_coefficient", "backend"_a = "auto",
          "LAT[a][b] = sum_x (-1)^(a.x xor b.S(x)) (int32); scale \"absolute_bias\" (LAT/2), \"bias\" "
          "(LAT/2^(n+1)) or \"correlation\" (LAT/2^n) give float64.")
      .def(
          "ddt",
          [](const SBox& s) {
            fastconv::Table<std::int32_t> t;
            {
              nb::gil_scoped_release release;
              t = s.ddt();
            }
            return table_to_numpy(std::move(t));
          },
          "DDT[a][b] = #{x : S(x xor a) xor S(x) = b} (int32).")
      .def(
          "bct",
          [](const SBox& s) {
            fastconv::Table<std::int32_t> t;
            {
              nb::gil_scoped_release release;
              t = s.bct();
            }
            return table_to_numpy(std::move(t));
          },
          "The boomerang connectivity table of a permutation (int32).")
      .def(
          "act",
          [](const SBox& s, const BackendArg& backend) {
            const Backend b = to_backend(backend);
            fastconv::Table<std::int32_t> t;
            {
              nb::gil_scoped_release release;
              t = s.act(b);
            }
            return table_to_numpy(std::move(t));
          },
          "backend"_a = "auto", "ACT[a][b] = sum_x (-1)^(b.(S(x) xor S(x xor a))) (int32).")
      .def_prop_ro("differential_uniformity", released<SBox>([](const SBox& s) { return s.differential_uniformity(); }),
                   "max over a != 0 and b of DDT[a][b].")
      .def_prop_ro("differential_spectrum",
                   [](const SBox& s) { return histogram_dict(released<SBox>([](const SBox& x) { return x.differential_spectrum(); })(s)); },
                   "DDT value -> count over a != 0.")
      .def_prop_ro("is_apn", released<SBox>([](const SBox& s) { return s.is_apn(); }))
      .def_prop_ro("linearity", released<SBox>([](const SBox& s) { return s.linearity(); }), "max over b != 0 of |LAT[a][b]|.")
      .def_prop_ro("nonlinearity", released<SBox>([](const SBox& s) { return s.nonlinearity(); }))
      .def_prop_ro("absolute_walsh_spectrum",
                   [](const SBox& s) { return histogram_dict(released<SBox>([](const SBox& x) { return x.absolute_walsh_spectrum(); })(s)); },
                   "|LAT| value -> count over b != 0.")
      .def_prop_ro("boomerang_uniformity", released<SBox>([](const SBox& s) { return s.boomerang_uniformity(); }),
                   "max over a, b != 0 of BCT[a][b] (permutations only).")
      .def_prop_ro("boomerang_spectrum",
                   [](const SBox& s) { return histogram_dict(released<SBox>([](const SBox& x) { return x.boomerang_spectrum(); })(s)); })
      .def_prop_ro("max_degree", released<SBox>([](const SBox& s) { return s.max_degree(); }),
                   "The largest algebraic degree of a coordinate (SageMath's max_degree).")
      .def_prop_ro("min_degree", released<SBox>([](const SBox& s) { return s.min_degree(); }),
                   "The smallest algebraic degree of a component b != 0 (SageMath's min_degree).")
      .def_prop_ro("degree_spectrum",
                   [](const SBox& s) { return histogram_dict(released<SBox>([](const SBox& x) { return x.degree_spectrum(); })(s)); })
      .def_prop_ro("differential_branch_number", released<SBox>([](const SBox& s) { return s.differential_branch_number(); }))
      .def_prop_ro("linear_branch_number", released<SBox>([](const SBox& s) { return s.linear_branch_number(); }))
      .def_prop_ro("is_permutation", &SBox::is_permutation)
      .def("inverse", released<SBox>([](const SBox& s) { return s.inverse(); }), "The inverse permutation.")
      .def("fixed_points", released<SBox>([](const SBox& s) { return s.fixed_points(); }), "Every x with S(x) = x.")
      .def("cycle_type", released<SBox>([](const SBox& s) { return s.cycle_type(); }),
           "Cycle length -> number of cycles (permutations).")
      .def("component_function", released<SBox, std::uint32_t>([](const SBox& s, std::uint32_t b) { return s.component_function(b); }),
           "b"_a, "x -> b.S(x) as a BooleanFunction.")
      .def("coordinate_function", released<SBox, int>([](const SBox& s, int i) { return s.coordinate_function(i); }),
           "i"_a, "x -> bit i of S(x) as a BooleanFunction.")
      .def("summary", &sbox_summary, "backend"_a = "auto",
           "The dict `fastconv sbox analyze --json` prints (same keys and values).");
}

// --- conv2d ----------------------------------------------------------------------------------

template <class T>
using Tensor4 = nb::ndarray<const T, nb::ndim<4>, nb::c_contig, nb::device::cpu>;
template <class T>
using DeviceTensor4 = nb::ndarray<T, nb::ndim<4>, nb::c_contig, nb::device::cuda>;

/// A backend named `name` that computes no conv2d (opencl) is refused before its device is opened,
/// so that the answer is the same whether or not this build has it.
void refuse_backend_without_conv2d(std::string_view name) {
  fastconv::check_conv2d_backend(name, fastconv::Conv2dAlgorithm::auto_);
}

/// The backend of a conv2d plan: a name ("auto" = the cpu backend with `threads`) or a Backend.
Backend conv2d_backend(const BackendArg& arg, int threads) {
  const auto* name = std::get_if<std::string>(&arg);
  if (!name) return std::get<Backend>(arg);
  refuse_backend_without_conv2d(*name);
  return Backend::from_name(*name, threads);
}

/// The backend of a conv2d plan for arrays on CUDA device `device_id` (see device_backend).
Backend conv2d_device_backend(const BackendArg& arg, int device_id) {
  if (const auto* name = std::get_if<std::string>(&arg)) refuse_backend_without_conv2d(*name);
  return device_backend(arg, device_id);
}

std::string shape_text(std::initializer_list<std::size_t> dims) {
  std::string out;
  for (const std::size_t d : dims) out += (out.empty() ? "(" : ", ") + std::to_string(d);
  return out + ")";
}

/// An invalid_argument Error unless `array` has the shape `expected` of a plan's `what`.
template <class Array>
void check_shape(const Array& array, std::initializer_list<std::size_t> expected, const char* what) {
  const std::size_t* e = expected.begin();
  for (std::size_t i = 0; i < 4; ++i)
    if (array.shape(i) != e[i])
      throw Error(ErrorCode::invalid_argument,
                  "conv2d plan for " + std::string(what) + " " + shape_text(expected) + " was given " +
                      shape_text({array.shape(0), array.shape(1), array.shape(2), array.shape(3)}));
}

template <class T>
void bind_conv2d(nb::module_& m, const char* suffix) {
  using namespace std::string_literals;
  using Plan = fastconv::Conv2dPlan<T>;
  nb::class_<Plan>(m, ("_Conv2dPlan_"s + suffix).c_str())
      .def(
          "__init__",
          [](Plan* self, std::size_t batch, std::size_t height, std::size_t width, Tensor4<T> weights,
             std::optional<Vector<T>> bias, std::array<std::size_t, 4> padding, std::string_view algorithm,
             const BackendArg& backend, int threads) {
            const auto parsed = fastconv::parse_conv2d_algorithm(algorithm);
            if (!parsed)
              throw Error(ErrorCode::invalid_argument, "unknown conv2d algorithm '" + std::string(algorithm) +
                                                           "': use " + fastconv::conv2d_algorithm_names());
            fastconv::Conv2dShape shape;
            shape.batch = batch;
            shape.channels = weights.shape(1);
            shape.height = height;
            shape.width = width;
            shape.filters = weights.shape(0);
            shape.kernel_height = weights.shape(2);
            shape.kernel_width = weights.shape(3);
            shape.padding = {padding[0], padding[1], padding[2], padding[3]};
            const Backend b = conv2d_backend(backend, threads);
            const std::span<const T> w(weights.data(), weights.size());
            const std::span<const T> bias_values = bias ? span_of(*bias) : std::span<const T>{};
            nb::gil_scoped_release release;
            new (self) Plan(shape, w, bias_values, *parsed, b);
          },
          "batch"_a, "height"_a, "width"_a, "weights"_a.noconvert(), "bias"_a.noconvert().none(), "padding"_a,
          "algorithm"_a, "backend"_a, "threads"_a,
          "A plan on `backend` (a name: \"auto\" = cpu with `threads`; or a Backend) for host weights.")
      .def(
          "execute",
          [](const Plan& self, Tensor4<T> input) {
            const auto& s = self.shape();
            check_shape(input, {s.batch, s.channels, s.height, s.width}, "input");
            auto out = uninitialized_numpy<T>({s.batch, s.filters, s.out_height(), s.out_width()});
            {
              nb::gil_scoped_release release;
              self.execute(std::span<const T>(input.data(), input.size()), std::span<T>(out.data(), out.size()));
            }
            return out;
          },
          "input"_a.noconvert(), "The convolution of a host array, as a new NumPy array.")
      .def(
          "execute_device",
          [](const Plan& self, DeviceTensor4<const T> input, DeviceTensor4<T> output, std::uintptr_t stream) {
            const auto& s = self.shape();
            check_shape(input, {s.batch, s.channels, s.height, s.width}, "input");
            check_shape(output, {s.batch, s.filters, s.out_height(), s.out_width()}, "output");
            if (input.device_id() != output.device_id())
              throw Error(ErrorCode::invalid_argument, "conv2d: the input is on CUDA device " +
                                                           std::to_string(input.device_id()) + ", the output on " +
                                                           std::to_string(output.device_id()));
            nb::gil_scoped_release release;
            self.execute_device(input.data(), output.data(), as_stream(stream));
          },
          "input"_a.noconvert(), "output"_a.noconvert(), "stream"_a,
          "The convolution of a CUDA array into `output` (allocated by the caller, on the same device), queued on "
          "`stream` (a cudaStream_t as an integer); cuda plans only.")
      .def_prop_ro("algorithm", [](const Plan& self) { return std::string(fastconv::to_string(self.algorithm())); })
      .def_prop_ro("backend", &Plan::backend);
}

// --- backends, devices, errors ---------------------------------------------------------------

nb::dict device_dict(const fastconv::Device& d) {
  nb::dict out;
  out["backend"] = d.backend;
  out["id"] = d.id;
  out["name"] = d.name;
  out["platform"] = d.platform;
  out["type"] = d.type;
  out["version"] = d.version;
  out["compute_units"] = d.compute_units;
  out["global_memory_bytes"] = d.global_memory_bytes;
  out["local_memory_bytes"] = d.local_memory_bytes;
  out["max_work_group_size"] = d.max_work_group_size;
  out["fp64"] = d.fp64;
  return out;
}

void bind_backend(nb::module_& m) {
  nb::class_<Backend>(m, "Backend",
                      "A compute backend: Backend(\"cpu\", threads=2), Backend(\"opencl\", device=\"0:0\"), "
                      "Backend(\"reference\"). Functions take one, or its name, as `backend=`.")
      .def(
          "__init__",
          [](Backend* self, std::string_view name, int threads, std::string_view variant, std::string_view device) {
            new (self) Backend(Backend::from_name(name, threads, variant, device));
          },
          "name"_a = "auto", "threads"_a = 0, "variant"_a = "", "device"_a = "")
      .def_prop_ro("name", &Backend::name)
      .def_prop_ro("variant", &Backend::variant)
      .def_prop_ro("threads", &Backend::threads, "The cpu backend's threads as given (0: all cores); 1 for the others.")
      .def_prop_ro("device", &Backend::device, "The device id (\"P:D\" for opencl, \"N\" for cuda); \"\" for cpu and reference.")
      .def("variants", &Backend::variants, "Every variant this backend offers here, slowest first.")
      .def("description", &Backend::description)
      .def("__repr__", [](const Backend& b) {  // what makes the same backend again
        std::string repr = "Backend(\"" + std::string(b.name()) + "\", variant=\"" + std::string(b.variant()) + "\"";
        if (const std::string device = b.device(); !device.empty()) repr += ", device=\"" + device + "\"";
        if (b.name() == "cpu" && b.threads() > 0) repr += ", threads=" + std::to_string(b.threads());
        return repr + ")";
      });
  m.def("backends", &Backend::names, "Backend names this build accepts, \"auto\" first.");
  m.def("variants", &Backend::variants_of, "name"_a, "The variants backend `name` offers, slowest first.");
  m.def(
      "devices",
      [] {
        nb::list out;
        for (const auto& d : fastconv::devices()) out.append(device_dict(d));
        return out;
      },
      "Every device of every device backend (opencl, cuda) in this build, as dicts.");
}

/// The exception classes (see docs/python.md): Error, and one subclass per ErrorCode.
struct Exceptions {
  PyObject* base = nullptr;
  PyObject* by_code[6] = {};
};
Exceptions exceptions;

PyObject* new_exception(nb::module_& m, const char* name, const char* doc, PyObject* bases, const char* code) {
  const std::string qualified = std::string("fastconv.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!type) throw nb::python_error();
  if (code) PyObject_SetAttrString(type, "code", nb::str(code).ptr());
  m.attr(name) = nb::handle(type);
  return type;
}

void bind_errors(nb::module_& m) {
  exceptions.base = new_exception(m, "Error", "Every error the fastconv library reports; `code` names its kind.",
                                  PyExc_Exception, nullptr);
  const auto with = [](PyObject* builtin) {
    return nb::make_tuple(nb::handle(exceptions.base), nb::handle(builtin));
  };
  const auto code = [](ErrorCode c) { return static_cast<int>(c); };
  exceptions.by_code[code(ErrorCode::invalid_argument)] =
      new_exception(m, "InvalidArgumentError", "Bad sizes, lengths, options or values.",
                    with(PyExc_ValueError).ptr(), "invalid_argument");
  exceptions.by_code[code(ErrorCode::io)] = new_exception(
      m, "FileError", "A file could not be read or written, or is malformed.", with(PyExc_ValueError).ptr(), "io");
  exceptions.by_code[code(ErrorCode::unsupported)] =
      new_exception(m, "UnsupportedError", "A valid request this build, type or backend cannot honour.",
                    with(PyExc_ValueError).ptr(), "unsupported");
  exceptions.by_code[code(ErrorCode::overflow)] =
      new_exception(m, "IntegerOverflowError", "An exact integer result does not fit its type.",
                    with(PyExc_ValueError).ptr(), "overflow");
  exceptions.by_code[code(ErrorCode::device)] = new_exception(
      m, "DeviceError", "A backend or device failed or is missing.", with(PyExc_RuntimeError).ptr(), "device");
  exceptions.by_code[code(ErrorCode::out_of_memory)] =
      new_exception(m, "OutOfMemoryError", "The work needs more memory than is available; refused before allocating.",
                    with(PyExc_MemoryError).ptr(), "out_of_memory");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(exceptions.by_code[static_cast<int>(e.code())], e.what());
    }
  });
}

}  // namespace

NB_MODULE(_fastconv, m) {
  m.doc() = "fastconv's C++ bindings; use the fastconv package, which wraps them.";
  m.attr("__version__") = std::string(fastconv::version());
  m.def("conv2d_fft_library", &fastconv::conv2d_fft_library,
        "The FFT library behind the cpu backend's fft2d and polyhankel (a build choice): FFTW's version\n"
        "string, e.g. 'fftw-3.3.10-sse2-avx', or 'Intel MKL 2026.2 (<its code path on this CPU>)'.");
  bind_errors(m);
  bind_backend(m);
  bind_dyadic<float>(m, "float32");
  bind_dyadic<double>(m, "float64");
  bind_dyadic<std::int32_t>(m, "int32");
  bind_dyadic<std::int64_t>(m, "int64");
  bind_dyadic<fastconv::float16>(m, "float16");
  bind_dyadic<fastconv::bfloat16>(m, "bfloat16");
  m.def(
      "_accumulation",
      [](std::string_view accumulate) { return std::string(fastconv::to_string(parse_accumulation(accumulate))); },
      "accumulate"_a, "The canonical name of an accumulation: \"native\" or \"float64\" (an unknown one is an error).");
  m.def("_wht_bfloat16_bits", &wht_bfloat16_bits, "bits"_a.noconvert(), "order"_a, "normalize"_a, "accumulate"_a,
        "backend"_a);
  bind_boolean(m);
  bind_sbox(m);
  m.def("_conv2d_device_backend", &conv2d_device_backend, "backend"_a, "device_id"_a,
        "The backend of a conv2d plan for arrays on CUDA device `device_id`: \"auto\" and \"cuda\" name the cuda "
        "backend on that device; a host backend is an UnsupportedError.");
  bind_conv2d<float>(m, "float32");
  bind_conv2d<double>(m, "float64");
}
