// Arrays already in device memory (WhtPlan::execute_device, the DeviceArray overloads of the
// dyadic operations, DyadicSystem::apply_device): what a CUDA tensor from PyTorch or CuPy
// reaches. Each result is compared with the reference backend on a host copy. The cuda tests
// need a GPU (and a build with the CUDA toolkit) and are skipped, saying so, without one; the
// refusal of host backends runs everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fastconv/fastconv.hpp"

#ifdef FASTCONV_TEST_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace {

using fastconv::Backend;
using fastconv::DeviceArray;
using fastconv::ErrorCode;

TEST(DeviceArrays, HostBackendsRefuseThem) {
  // The pointers are never dereferenced: the refusal comes before any work.
  std::vector<float> host(16);
  const fastconv::WhtPlan<float> plan(4, {}, Backend::cpu());
  try {
    plan.execute_device(host.data(), 1, 16);
    FAIL() << "the cpu backend took a device array";
  } catch (const fastconv::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("cuda backend"), std::string::npos) << e.what();
  }
  const DeviceArray<const float> f{host.data(), 16};
  EXPECT_THROW(fastconv::convolve(f, f, DeviceArray<float>{host.data(), 16}, Backend::reference()), fastconv::Error);
  const fastconv::DyadicSystem<float> system(std::span<const float>(host), Backend::cpu());
  EXPECT_THROW(system.apply_device(f, DeviceArray<float>{host.data(), 16}), fastconv::Error);
}

#ifdef FASTCONV_TEST_CUDA_RUNTIME

bool have_cuda_device() {
  for (const auto& d : fastconv::devices())
    if (d.backend == "cuda") return true;
  return false;
}

#define SKIP_WITHOUT_CUDA()                                                                                  \
  if (!have_cuda_device()) {                                                                                 \
    GTEST_SKIP() << "no CUDA device: device arrays need an NVIDIA GPU (the code compiles here, but did not run)"; \
  }

void check(cudaError_t e) { ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e); }

/// Device memory holding a copy of `values` (and `slack` more elements, for misaligned views).
template <class T>
class DeviceCopy {
 public:
  explicit DeviceCopy(const std::vector<T>& values, std::size_t slack = 0) : size_(values.size() + slack) {
    check(cudaMalloc(&ptr_, size_ * sizeof(T)));
    check(cudaMemcpy(ptr_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceCopy() { cudaFree(ptr_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  T* get() const { return ptr_; }
  std::vector<T> read(std::size_t count, std::size_t offset = 0) const {
    std::vector<T> out(count);
    check(cudaMemcpy(out.data(), ptr_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t size_;
};

template <class T>
std::vector<T> random_values(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-100, 100);
  std::vector<T> v(size);
  for (auto& x : v) x = static_cast<T>(static_cast<float>(d(rng)) / 8);
  return v;
}

template <class T>
void expect_near_all(const std::vector<T>& expected, const std::vector<T>& actual, double tolerance,
                     const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(static_cast<double>(expected[i]), static_cast<double>(actual[i]), tolerance) << what << " at " << i;
}

template <class T>
class DeviceArrayWht : public ::testing::Test {};
using WhtTypes = ::testing::Types<float, double, fastconv::float16, fastconv::bfloat16>;
TYPED_TEST_SUITE(DeviceArrayWht, WhtTypes);

TYPED_TEST(DeviceArrayWht, EveryOrderStrideAndStreamMatchesTheReference) {
  using T = TypeParam;
  SKIP_WITHOUT_CUDA();
  constexpr bool half = sizeof(T) == 2;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream));
  for (int log2n : {3, 5, 10, 13, 16, 20}) {
    for (auto order : {fastconv::Order::hadamard, fastconv::Order::sequency, fastconv::Order::paley}) {
      const std::size_t n = std::size_t{1} << log2n, rows = log2n > 16 ? 2 : 5;
      for (std::size_t stride : {n, n + 8}) {
        const auto host = random_values<T>(rows * stride, 7 * log2n + stride);
        const fastconv::WhtOptions options{order, fastconv::Normalization::orthonormal};
        auto expected = host;
        fastconv::WhtPlan<T>(log2n, options, Backend::reference()).execute(std::span(expected), rows, stride);
        const DeviceCopy<T> device(host);
        fastconv::WhtPlan<T>(log2n, options, Backend::cuda()).execute_device(device.get(), rows, stride, stream);
        const double scale = std::sqrt(static_cast<double>(n)) * 12.5;  // max |x| · √N after the 1/√N
        expect_near_all(expected, device.read(host.size()), (half ? 1e-2 : 1e-5) * scale,
                        "2^" + std::to_string(log2n) + " stride " + std::to_string(stride));
      }
    }
  }
  check(cudaStreamDestroy(stream));
}

TEST(DeviceArrayWhtAlignment, MisalignedRowsAreTransformedThroughTheBuffer) {
  SKIP_WITHOUT_CUDA();
  const auto host = random_values<float>(1024, 3);
  std::vector<float> expected(host.begin() + 1, host.begin() + 513);
  fastconv::wht(expected, {}, Backend::reference());
  const DeviceCopy<float> device(host);
  fastconv::WhtPlan<float>(9, {}, Backend::cuda()).execute_device(device.get() + 1, 1, 512);
  expect_near_all(expected, device.read(512, 1), 1e-3, "misaligned");
}

template <class T>
class DeviceArrayDyadic : public ::testing::Test {};
using DyadicTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DeviceArrayDyadic, DyadicTypes);

TYPED_TEST(DeviceArrayDyadic, ConvolveAutocorrelateDeconvolveAndSystemsMatchTheHost) {
  using T = TypeParam;
  SKIP_WITHOUT_CUDA();
  const Backend cuda = Backend::cuda();
  for (auto [log2f, log2g] : {std::pair{4, 4}, {10, 6}, {6, 12}, {18, 18}, {20, 9}}) {
    const std::size_t nf = std::size_t{1} << log2f, ng = std::size_t{1} << log2g, n = std::max(nf, ng);
    const auto f = random_values<T>(nf, log2f), g = random_values<T>(ng, 100 + log2g);
    const DeviceCopy<T> df(f), dg(g), dout{std::vector<T>(n)};
    const std::string what = "2^" + std::to_string(log2f) + " ⊛ 2^" + std::to_string(log2g);
    // |values| ≤ 12.5, so |results| ≤ 12.5² · N: the error is a few ulps of that.
    const double tolerance = (sizeof(T) == 4 ? 1e-5 : 1e-12) * 12.5 * 12.5 * static_cast<double>(n);

    fastconv::convolve(DeviceArray<const T>{df.get(), nf}, DeviceArray<const T>{dg.get(), ng},
                       DeviceArray<T>{dout.get(), n}, cuda);
    expect_near_all(fastconv::convolve(f, g, Backend::reference()), dout.read(n), tolerance, "convolve " + what);

    fastconv::autocorrelate(DeviceArray<const T>{df.get(), nf}, DeviceArray<T>{dout.get(), nf}, cuda);
    expect_near_all(fastconv::autocorrelate(f, Backend::reference()), dout.read(nf), tolerance,
                    "autocorrelate " + what);

    const fastconv::DyadicSystem<T> system(std::span<const T>(g), cuda);
    system.apply_device(DeviceArray<const T>{df.get(), nf}, DeviceArray<T>{dout.get(), n});
    expect_near_all(fastconv::convolve(f, g, Backend::reference()), dout.read(n), tolerance, "system " + what);

    // h = δ + a small spread: an invertible spectrum; y = f ⊛ h identifies f back.
    std::vector<T> h(ng, T{0});
    h[0] = T{4};
    h[ng - 1] = T{1};
    const auto y = fastconv::convolve(f, h, Backend::reference());
    const DeviceCopy<T> dy(y), dh(h);
    fastconv::deconvolve(DeviceArray<const T>{dy.get(), n}, DeviceArray<const T>{dh.get(), ng},
                         DeviceArray<T>{dout.get(), n}, cuda);
    auto padded = f;
    padded.resize(n, T{0});
    expect_near_all(padded, dout.read(n), sizeof(T) == 4 ? 1e-2 : 1e-9, "deconvolve " + what);
  }
}

TEST(DeviceArrayDyadicErrors, SingularSystemsAreErrors) {
  SKIP_WITHOUT_CUDA();
  const std::vector<float> y(16, 1.0f), h(16, 1.0f);  // the spectrum of all-ones is zero off index 0
  const DeviceCopy<float> dy(y), dh(h), dout{std::vector<float>(16)};
  EXPECT_THROW(fastconv::deconvolve(DeviceArray<const float>{dy.get(), 16}, DeviceArray<const float>{dh.get(), 16},
                                    DeviceArray<float>{dout.get(), 16}, Backend::cuda()),
               fastconv::Error);
}

TEST(DeviceArrayConv2d, PolyHankelOnDeviceArraysMatchesTheCpuBackend) {
  SKIP_WITHOUT_CUDA();
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream));
  for (const fastconv::Conv2dShape& s : {fastconv::Conv2dShape{2, 3, 17, 13, 5, 3, 3, {1, 1, 1, 1}},
                                         fastconv::Conv2dShape{1, 8, 32, 40, 4, 5, 2, {3, 0, 0, 2}}}) {
    const auto x = random_values<float>(s.input_size(), 11), w = random_values<float>(s.weight_size(), 12);
    const auto b = random_values<float>(s.filters, 13);
    std::vector<float> expected(s.output_size());
    fastconv::Conv2dPlan<float>(s, w, b, fastconv::Conv2dAlgorithm::direct, Backend::cpu()).execute(x, expected);
    const DeviceCopy<float> dx(x), dy{std::vector<float>(s.output_size(), 1e30f)};
    const fastconv::Conv2dPlan<float> plan(s, w, b, fastconv::Conv2dAlgorithm::auto_, Backend::cuda());
    for (cudaStream_t on : {stream, cudaStream_t{nullptr}}) {
      plan.execute_device(dx.get(), dy.get(), on);
      expect_near_all(expected, dy.read(s.output_size()), 1e-3, "conv2d on device arrays");
    }
  }
  check(cudaStreamDestroy(stream));
}

#endif  // FASTCONV_TEST_CUDA_RUNTIME

}  // namespace
