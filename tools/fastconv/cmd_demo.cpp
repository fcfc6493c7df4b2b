// fastconv demo — seed 001's Examples 1–3 checked against the paper's values, the published
// properties of the AES and PRESENT S-boxes, then the layout of seed 001's Table 2:
// dyadic-convolution time per n on every backend.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>

#include "common.hpp"

namespace fastconv::cli {
namespace {

using Vec = std::vector<std::int64_t>;

std::string show(const Vec& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// Prints one checked line; returns whether it matched.
bool check(const std::string& what, const Vec& got, const Vec& expected) {
  const bool ok = got == expected;
  std::printf("  %-44s %-18s expected %-18s %s\n", what.c_str(), show(got).c_str(), show(expected).c_str(),
              ok ? "ok" : "MISMATCH");
  return ok;
}

bool run_examples(const Backend& backend) {
  std::printf("Seed 001 (Gajic & Stankovic 2011), Examples 1-3 on the %s backend (%s variant):\n",
              std::string(backend.name()).c_str(), std::string(backend.variant()).c_str());
  bool ok = true;
  const Vec f = {1, 0, 1, 1}, g = {0, 1, 0, 1};

  Vec s_f = f;  // Example 1: S_f = W(2)·F
  wht(s_f, {}, backend);
  ok &= check("Example 1: Walsh spectrum of F = [1, 0, 1, 1]", s_f, {3, 1, -1, 1});

  Vec step1 = f;  // Example 2: the FWT's two steps, C2 = I(1)⊗W(1) then C1 = W(1)⊗I(1)
  wht(step1, 2, 2, 2, {}, backend);
  ok &= check("Example 2: after step 1 (C2 = I(1) x W(1))", step1, {1, 1, 2, 0});
  // W(1)⊗I(1) pairs elements 0 and 2, 1 and 3: the 2-point transforms of the columns of step 1
  // seen as a 2×2 matrix, i.e. of the rows of its transpose.
  Vec step2 = {step1[0], step1[2], step1[1], step1[3]};
  wht(step2, 2, 2, 2, {}, backend);
  step2 = {step2[0], step2[2], step2[1], step2[3]};
  ok &= check("Example 2: after step 2 (C1 = W(1) x I(1))", step2, {3, 1, -1, 1});

  Vec s_g = g;  // Example 3: the convolution theorem, step by step
  wht(s_g, {}, backend);
  ok &= check("Example 3: Walsh spectrum of G = [0, 1, 0, 1]", s_g, {2, -2, 0, 0});
  Vec product(4);
  std::transform(s_f.begin(), s_f.end(), s_g.begin(), product.begin(), std::multiplies<>());
  ok &= check("Example 3: S_f * S_g", product, {6, -2, 0, 0});
  Vec c = product;
  wht(c, {Order::hadamard, Normalization::inverse}, backend);
  ok &= check("Example 3: 2^-2 W(2) (S_f * S_g) = C_f*g", c, {1, 2, 1, 2});
  ok &= check("Example 3: fastconv::convolve(F, G)", convolve(f, g, backend), {1, 2, 1, 2});
  std::printf("\n");
  return ok;
}

/// The published properties of AES's and PRESENT's S-boxes (the analyses behind seed 004).
bool run_sbox_examples() {
  std::printf("S-boxes against their published properties (fastconv sbox analyze):\n");
  const SBoxSummary aes = named_sbox("aes")->summary(), present = named_sbox("present")->summary();
  const auto spectrum = [](const Histogram& h) {
    Vec v;
    for (const auto& [value, count] : h) v.insert(v.end(), {value, static_cast<std::int64_t>(count)});
    return v;
  };
  const auto as_vec = [](std::initializer_list<std::uint64_t> values) { return Vec(values.begin(), values.end()); };
  bool ok = check("AES: DU, linearity, NL, degree, BU, fixed points",
                  as_vec({aes.differential_uniformity, aes.linearity, aes.nonlinearity,
                          static_cast<std::uint64_t>(aes.min_degree), *aes.boomerang_uniformity, aes.fixed_points}),
                  {4, 32, 112, 7, 6, 0});
  ok &= check("AES: differential spectrum (value, count)", spectrum(aes.differential_spectrum),
              {0, 32895, 2, 32130, 4, 255});
  ok &= check("PRESENT: DU, linearity, degrees, BU, branch numbers",
              as_vec({present.differential_uniformity, present.linearity, static_cast<std::uint64_t>(present.max_degree),
                      static_cast<std::uint64_t>(present.min_degree), *present.boomerang_uniformity,
                      static_cast<std::uint64_t>(present.differential_branch_number),
                      static_cast<std::uint64_t>(present.linear_branch_number)}),
              {4, 8, 3, 2, 16, 3, 2});
  std::printf("\n");
  return ok;
}

/// Median wall time in ms of `body()` over `runs` runs.
template <class Body>
double median_ms(int runs, Body&& body) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[static_cast<std::size_t>(runs / 2)];
}

// Seed 001's Table 2 (ms): CPU reference; GPU computation; GPU memory transfer.
struct PaperRow { double cpu, gpu_compute, gpu_memory; };
const std::map<int, PaperRow> kPaperTable2 = {
    {4, {0, 0, 0}},     {8, {0, 0, 1}},       {10, {0, 1, 1}},     {16, {15, 3, 2}},     {18, {53, 6, 3}},
    {20, {108, 24, 9}}, {23, {1201, 220, 45}}, {24, {2512, 469, 86}}, {25, {5002, 998, 147}}};

void run_table(int min_n, int max_n) {
  const std::vector<Backend> backends = {Backend::reference(), Backend::best()};
  std::printf("Dyadic convolution of two random binary float32 vectors of 2^n points: median time [ms]\n"
              "(the layout of seed 001's Table 2; its 2011 numbers are from an AMD Phenom II N830 CPU and an\n"
              "ATI Mobility Radeon 5650 GPU)\n\n");
  std::printf("%4s", "n");
  for (const auto& b : backends) std::printf(" %12s", std::string(b.name()).c_str());
  std::printf(" %9s | %12s %12s %12s\n", "speedup", "paper CPU", "paper GPU", "paper xfer");
  std::mt19937 rng(2011);
  std::bernoulli_distribution bit(0.5);
  for (int n = min_n; n <= max_n; ++n) {
    std::vector<float> f(std::size_t{1} << n), g(f.size());
    for (auto& v : f) v = bit(rng);
    for (auto& v : g) v = bit(rng);
    std::printf("%4d", n);
    std::vector<float> out(f.size());
    std::vector<double> ms;
    for (const auto& b : backends) {
      // Into a buffer allocated once, as a program convolving repeatedly would. The fast
      // backend gets one untimed warm-up call (first-touch page faults of its scratch); the
      // textbook loop, which takes seconds at the top sizes, runs once there.
      const bool textbook = b.name() == "reference";
      if (!textbook) convolve(f, g, std::span(out), b);
      const int runs = n >= 22 ? (textbook ? 1 : 3) : n >= 18 ? 3 : 9;
      ms.push_back(median_ms(runs, [&] { convolve(f, g, std::span(out), b); }));
      std::printf(" %12.4f", ms.back());
    }
    std::printf(" %8.1fx |", ms.front() / ms.back());
    if (const auto it = kPaperTable2.find(n); it != kPaperTable2.end())
      std::printf(" %12.0f %12.0f %12.0f\n", it->second.cpu, it->second.gpu_compute, it->second.gpu_memory);
    else
      std::printf(" %12s %12s %12s\n", "-", "-", "-");
    std::fflush(stdout);
  }
  std::printf("\nreference = seed 004's Algorithm 0 (the textbook loop, one thread); %s\n",
              Backend::best().description().c_str());
}

}  // namespace

void add_demo_command(CLI::App& app, Action& action) {
  CLI::App* cmd = app.add_subcommand(
      "demo", "Seed 001's Examples 1-3, AES's and PRESENT's published S-box properties, seed 001's Table 2 here");
  auto range = std::make_shared<std::pair<int, int>>(4, 24);
  cmd->add_option("--min-n", range->first, "Smallest n of the timing table")->check(CLI::Range(0, 30));
  cmd->add_option("--max-n", range->second, "Largest n of the timing table (default 24)")->check(CLI::Range(0, 30));
  cmd->callback([range, &action] {
    action = [range] {
      if (range->first > range->second)  // before the examples run: nothing is printed
        usage_error("--min-n " + std::to_string(range->first) + " --max-n " + std::to_string(range->second) +
                    ": the table's range is empty: --min-n must not exceed --max-n");
      bool ok = true;
      for (const Backend& b : {Backend::reference(), Backend::best()}) ok &= run_examples(b);
      // ... and on every device backend that has a device here (seed 001's Algorithm 1 itself).
      for (const Device& d : devices()) {
        if (d.backend != "opencl" && d.backend != "cuda") continue;
        const Backend b = Backend::from_name(d.backend, 0, "gajic2011", d.id);
        std::printf("(%s)\n", b.description().c_str());
        ok &= run_examples(b);
        break;  // one device is enough to show it
      }
      ok &= run_sbox_examples();
      run_table(range->first, range->second);
      if (!ok) std::cerr << "fastconv: error: an example did not reproduce the published values\n";
      return ok ? 0 : 1;
    };
  });
}

}  // namespace fastconv::cli
