// The thread-safety guarantees the headers document, exercised: one plan (or analysis object,
// or backend) used by several threads at once on different data gives, in every thread, what
// the same call gives alone. The oracle is the serial result of the same call (bitwise: the
// kernels' operation order does not depend on what else runs).
//
// These tests are their own executable so that the ThreadSanitizer build (scripts/test.sh,
// FASTCONV_SANITIZE=thread) can build and run just them; the other builds run them too.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "fastconv/fastconv.hpp"
#include "io/array_io.hpp"

namespace {

using namespace fastconv;

constexpr int kThreads = 4;

/// Runs body(t) for t = 0 … kThreads−1 on kThreads threads that start together.
void on_threads(const std::function<void(int)>& body) {
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  for (auto& thread : threads) thread.join();
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-100, 100);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(value(rng));
  return v;
}

/// The backends to share: the cpu backend on 2 OpenMP threads (so that the plan's own
/// parallel regions run inside each calling thread), the reference backend, and opencl where
/// a device exists.
std::vector<Backend> shared_backends() {
  std::vector<Backend> backends{Backend::cpu(2), Backend::from_name("reference")};
  for (const auto& name : Backend::names())
    if (name == "opencl") backends.push_back(Backend::from_name("opencl"));
  return backends;
}

template <class T>
class ConcurrentWht : public ::testing::Test {};
using WhtTypes = ::testing::Types<float, double, std::int64_t, float16>;
TYPED_TEST_SUITE(ConcurrentWht, WhtTypes);

// wht.hpp: "One plan may be executed concurrently from several threads on different data."
TYPED_TEST(ConcurrentWht, OnePlanManyThreads) {
  using T = TypeParam;
  for (const Backend& backend : shared_backends()) {
    for (const Order order : {Order::hadamard, Order::sequency}) {
      // 2^17 words: the sequency scratch comes from the cpu backend's shared buffer pool.
      // 2^20: the cpu backend splits each call over its own team too (a share per L2).
      for (const int log2n : {10, 17, 20}) {
        if (backend.name() == "reference" && log2n > 10) continue;
        if (backend.name() == "opencl" && log2n > 17) continue;
        SCOPED_TRACE(std::string(backend.name()) + " " + std::string(to_string(order)) + " 2^" + std::to_string(log2n));
        const WhtPlan<T> plan(log2n, WhtOptions{order, Normalization::none}, backend);
        std::vector<std::vector<T>> data(kThreads), expected(kThreads);
        for (int t = 0; t < kThreads; ++t) {
          data[t] = expected[t] = random_values<T>(std::size_t{1} << log2n, 100 + t);
          plan.execute(std::span<T>(expected[t]));
        }
        on_threads([&](int t) {
          for (int repeat = 0; repeat < 2; ++repeat) {
            std::vector<T> x = data[t];
            plan.execute(std::span<T>(x));
            EXPECT_TRUE(x == expected[t]) << "thread " << t;
          }
        });
      }
    }
  }
}

// The same for batches of short rows, back to back and with gaps: the cpu backend makes the
// reordering table of a sequency or Paley plan on its first batch, so the plan's first calls
// are the concurrent ones (the expected results come from another plan).
TYPED_TEST(ConcurrentWht, OnePlanOfShortRowsManyThreadsFromItsFirstCall) {
  using T = TypeParam;
  for (const Backend& backend : shared_backends())
    for (const Order order : {Order::hadamard, Order::sequency, Order::paley})
      for (const int log2n : {2, 7})
        for (const std::size_t pad : {0, 5}) {
          SCOPED_TRACE(std::string(backend.name()) + " " + std::string(to_string(order)) + " 2^" +
                       std::to_string(log2n) + " pad " + std::to_string(pad));
          const std::size_t size = std::size_t{1} << log2n, stride = size + pad, rows = (std::size_t{1} << 15) >> log2n;
          std::vector<std::vector<T>> data(kThreads), expected(kThreads);
          for (int t = 0; t < kThreads; ++t) {
            data[t] = expected[t] = random_values<T>(rows * stride, 200 + t);
            WhtPlan<T>(log2n, WhtOptions{order, Normalization::none}, backend).execute(std::span<T>(expected[t]), rows, stride);
          }
          const WhtPlan<T> plan(log2n, WhtOptions{order, Normalization::none}, backend);
          on_threads([&](int t) {
            std::vector<T> x = data[t];
            plan.execute(std::span<T>(x), rows, stride);
            EXPECT_TRUE(x == expected[t]) << "thread " << t;
          });
        }
}

// The cpu backend keeps a short Paley or sequency row's scratch (and a 16-bit row's floats,
// whose ordered rows then call the float kernel with its own kept scratch) in a buffer per
// thread for the thread's next call: plans of several sizes and orders, interleaved in a
// different order on each thread and each round, must each give their serial result.
TYPED_TEST(ConcurrentWht, PlansOfSeveralSizesInterleavedOnEachThread) {
  using T = TypeParam;
  struct Case {
    Order order;
    int log2n;
    std::size_t rows;
  };
  const std::vector<Case> cases{{Order::sequency, 4, 1},  {Order::paley, 10, 1},   {Order::sequency, 13, 1},
                                {Order::paley, 15, 1},    {Order::sequency, 6, 64}, {Order::paley, 12, 3},
                                {Order::hadamard, 11, 2}, {Order::sequency, 14, 2}};
  const Backend backend = Backend::cpu(2);
  std::vector<WhtPlan<T>> plans;
  std::vector<std::vector<std::vector<T>>> data(kThreads), expected(kThreads);
  for (const Case& c : cases) plans.emplace_back(c.log2n, WhtOptions{c.order, Normalization::none}, backend);
  for (int t = 0; t < kThreads; ++t)
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::size_t words = cases[i].rows << cases[i].log2n;
      data[t].push_back(random_values<T>(words, 300 + 10 * t + static_cast<unsigned>(i)));
      expected[t].push_back(data[t].back());
      WhtPlan<T>(cases[i].log2n, WhtOptions{cases[i].order, Normalization::none}, backend)
          .execute(std::span<T>(expected[t].back()), cases[i].rows, std::size_t{1} << cases[i].log2n);
    }
  on_threads([&](int t) {
    for (int round = 0; round < 3; ++round)
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const std::size_t i = (k * static_cast<std::size_t>(2 * (t + round) + 1) + static_cast<std::size_t>(t)) % cases.size();
        std::vector<T> x = data[t][i];
        plans[i].execute(std::span<T>(x), cases[i].rows, std::size_t{1} << cases[i].log2n);
        EXPECT_TRUE(x == expected[t][i]) << "thread " << t << ", round " << round << ", case " << i;
      }
  });
}

// dyadic.hpp: "apply() may run concurrently"; the free functions are reentrant.
TEST(ConcurrentDyadic, OneSystemAndFreeFunctionsManyThreads) {
  for (const Backend& backend : shared_backends()) {
    SCOPED_TRACE(std::string(backend.name()));
    // cpu: 2^20 doubles, so that each call runs on the backend's team as well.
    const int log2n = backend.name() == "reference" ? 10 : backend.name() == "cpu" ? 20 : 16;
    const std::size_t n = std::size_t{1} << log2n;
    const DyadicSystem<double> system(random_values<double>(n / 4, 7), backend);
    const DyadicSystem<std::int64_t> exact(random_values<std::int64_t>(n / 4, 8), backend);
    std::vector<std::vector<double>> x(kThreads), applied(kThreads), convolved(kThreads), autocorrelated(kThreads);
    std::vector<std::vector<std::int64_t>> xi(kThreads), applied_exact(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      x[t] = random_values<double>(n, 200 + t);
      xi[t] = random_values<std::int64_t>(n, 300 + t);
    }
    for (int t = 0; t < kThreads; ++t) {
      applied[t] = system.apply(x[t]);
      applied_exact[t] = exact.apply(xi[t]);
      convolved[t] = convolve(x[t], x[(t + 1) % kThreads], backend);
      autocorrelated[t] = autocorrelate(x[t], backend);
    }
    on_threads([&](int t) {
      EXPECT_TRUE(system.apply(x[t]) == applied[t]) << "thread " << t;
      EXPECT_TRUE(exact.apply(xi[t]) == applied_exact[t]) << "thread " << t;
      EXPECT_TRUE(convolve(x[t], x[(t + 1) % kThreads], backend) == convolved[t]) << "thread " << t;
      EXPECT_TRUE(autocorrelate(x[t], backend) == autocorrelated[t]) << "thread " << t;
    });
  }
}

// conv2d.hpp: "execute() may be called from several threads on one plan"; auto_'s choice is
// measured once per shape in the process, whichever thread plans first.
TEST(ConcurrentConv2d, PlansMadeAndExecutedOnManyThreads) {
  Conv2dShape shape;
  shape.batch = 2, shape.channels = 3, shape.height = 12, shape.width = 10;
  shape.filters = 4, shape.kernel_height = 3, shape.kernel_width = 3;
  const auto weights = random_values<float>(shape.weight_size(), 11);
  const auto bias = random_values<float>(shape.filters, 12);
  for (const Conv2dAlgorithm algorithm : {Conv2dAlgorithm::polyhankel, Conv2dAlgorithm::im2col_gemm,
                                          Conv2dAlgorithm::winograd, Conv2dAlgorithm::auto_}) {
    SCOPED_TRACE(std::string(to_string(algorithm)));
    const Conv2dPlan<float> shared(shape, weights, bias, algorithm, 2);
    std::vector<std::vector<float>> input(kThreads), expected(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      input[t] = random_values<float>(shape.input_size(), 400 + t);
      expected[t].resize(shape.output_size());
      shared.execute(input[t], expected[t]);
    }
    on_threads([&](int t) {
      std::vector<float> out(shape.output_size());
      shared.execute(input[t], out);
      EXPECT_TRUE(out == expected[t]) << "shared plan, thread " << t;
      const Conv2dPlan<float> own(shape, weights, bias, shared.algorithm(), 1);
      std::vector<float> mine(shape.output_size());
      own.execute(input[t], mine);
      for (std::size_t i = 0; i < mine.size(); ++i)  // another thread count may sum in another order
        ASSERT_NEAR(mine[i], expected[t][i], 1e-3f * (1 + std::abs(expected[t][i]))) << "own plan, thread " << t;
    });
  }
}

// sbox.hpp and boolean.hpp: "its const methods may run concurrently".
TEST(ConcurrentAnalysis, OneSBoxManyThreads) {
  const SBox sbox = *named_sbox("aes");
  const BooleanFunction f = sbox.component_function(0x1f);
  const auto lat = sbox.lat(Backend::cpu(2));
  const auto ddt = sbox.ddt();
  const auto bct = sbox.bct();
  const auto nonlinearity = sbox.nonlinearity(Backend::cpu(2));
  const auto walsh = f.walsh_spectrum(Backend::cpu(2));
  const auto degree = sbox.max_degree();
  on_threads([&](int t) {
    switch (t % 4) {
      case 0: EXPECT_TRUE(sbox.lat(Backend::cpu(2)).values == lat.values); break;
      case 1: EXPECT_TRUE(sbox.ddt().values == ddt.values); break;
      case 2: EXPECT_TRUE(sbox.bct().values == bct.values); break;
      default:
        EXPECT_EQ(sbox.nonlinearity(Backend::cpu(2)), nonlinearity);
        EXPECT_EQ(f.walsh_spectrum(Backend::cpu(2)), walsh);
        EXPECT_EQ(sbox.max_degree(), degree);
    }
  });
}

// io: atomic writes from several threads, each to its own file; the temporary files' names
// and the table of them (for the CLI's signal handler) are shared.
TEST(ConcurrentIo, AtomicWritesFromManyThreads) {
  const auto dir = std::filesystem::temp_directory_path() / ("fastconv_concurrency_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  on_threads([&](int t) {
    for (int repeat = 0; repeat < 20; ++repeat) {
      auto values = random_values<double>(64, 500 + t * 100 + repeat);
      for (double& v : values) v += 0.25;  // not integers: text reads back as float64
      const auto path = dir / ("t" + std::to_string(t) + (repeat % 2 ? ".npy" : ".txt"));
      io::write_file(path, io::make_array(values, 1, values.size(), false));
      EXPECT_TRUE(io::read_file(path, std::nullopt).values<double>() == values) << path;
    }
  });
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, std::size_t{2 * kThreads}) << "a temporary file was left behind";
  std::filesystem::remove_all(dir);
}

}  // namespace
