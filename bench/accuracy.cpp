// fastconv_accuracy — the measured rounding error of the float WHT and the float dyadic
// convolution against exact references, for N = 2^10 … 2^28 (docs/accuracy.md, section 5).
//
// For each size and input distribution it computes the float result twice — natively and with
// Accumulation::float64 — and compares it with a reference:
//   - integer-valued data: the exact result, from the int64 transform or convolution;
//   - real data: the double result on the same (float) inputs, whose own error is below
//     n·2^-53·‖x‖₁ (WHT) or (3n+2)·2^-53·‖f‖₂‖g‖₂ (convolution): 2^-29 of the float bounds.
// It prints Markdown tables of the errors in units of u = 2^-24, measured against the scale of
// the documented bounds (‖x‖₁, ‖f‖₂·‖g‖₂) and against the result itself (max|y|, ‖y‖₂).
// Only the public API is used.
//
//   fastconv_accuracy [--min-log2n 10] [--max-log2n 28] [--step 2] [--threads 0] [--seed 1]
//
// Memory: the convolutions need up to about 13·N floats' worth at once (13 GiB at 2^28).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fastconv/fastconv.hpp>

namespace {

using fastconv::Accumulation;

constexpr double kU = 0x1p-24;  // float's unit roundoff

struct Args {
  int min_log2n = 10;
  int max_log2n = 28;
  int step = 2;
  int threads = 0;
  std::uint64_t seed = 1;
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "fastconv_accuracy: error: %s\n"
               "usage: fastconv_accuracy [--min-log2n 10] [--max-log2n 28] [--step 2] [--threads 0] [--seed 1]\n",
               message.c_str());
  std::exit(2);
}

long long parse_number(const char* text, const std::string& option, long long min, long long max) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < min || value > max)
    usage(option + ": '" + text + "' is not a whole number in [" + std::to_string(min) + ", " + std::to_string(max) +
          "]");
  return value;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 == argc) usage(option + " needs a value");
    const char* value = argv[++i];
    if (option == "--min-log2n") args.min_log2n = static_cast<int>(parse_number(value, option, 1, 30));
    else if (option == "--max-log2n") args.max_log2n = static_cast<int>(parse_number(value, option, 1, 30));
    else if (option == "--step") args.step = static_cast<int>(parse_number(value, option, 1, 30));
    else if (option == "--threads") args.threads = static_cast<int>(parse_number(value, option, 0, 1024));
    else if (option == "--seed") args.seed = static_cast<std::uint64_t>(parse_number(value, option, 0, 1LL << 62));
    else usage("unknown option '" + option + "'");
  }
  if (args.min_log2n > args.max_log2n) usage("--min-log2n is larger than --max-log2n");
  return args;
}

/// SplitMix64: fast, and good enough to draw test data.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  long long integer(long long bound) {  // [−bound, bound]
    return static_cast<long long>(next() % static_cast<std::uint64_t>(2 * bound + 1)) - bound;
  }

 private:
  std::uint64_t state_;
};

/// An input distribution: uniform reals in [−1, 1] or [0, 1], or uniform integers in
/// [−2^bound_log2, 2^bound_log2] (exact in float; their exact result comes from int64 arithmetic).
struct Distribution {
  enum Kind { signed_reals, positive_reals, integers } kind;
  int bound_log2 = 0;

  std::string name() const {
    if (kind == signed_reals) return "uniform [−1, 1]";
    if (kind == positive_reals) return "uniform [0, 1]";
    return "integers [−2^" + std::to_string(bound_log2) + ", 2^" + std::to_string(bound_log2) + "]";
  }

  std::vector<float> draw(std::size_t size, Random& rng) const {
    const long long bound = 1LL << bound_log2;
    std::vector<float> x(size);
    for (auto& v : x)
      v = kind == signed_reals     ? static_cast<float>(2 * rng.unit() - 1)
          : kind == positive_reals ? static_cast<float>(rng.unit())
                                   : static_cast<float>(rng.integer(bound));
    return x;
  }
};

/// max|got − want|, ‖got − want‖₂, max|want| and ‖want‖₂.
struct Errors {
  double max_error = 0, max_reference = 0;
  long double error_squares = 0, reference_squares = 0;

  Errors(std::span<const float> got, std::span<const double> want) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double e = std::fabs(static_cast<double>(got[i]) - want[i]);  // rounded to 2^-53 relative
      max_error = std::max(max_error, e);
      max_reference = std::max(max_reference, std::fabs(want[i]));
      error_squares += static_cast<long double>(e) * e;
      reference_squares += static_cast<long double>(want[i]) * want[i];
    }
  }

  /// "max|err|/(u·scale) | max|err|/(u·max|ref|) | ‖err‖₂/(u·‖ref‖₂)".
  std::string cells(long double scale) const {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.3g | %.3g | %.3g", static_cast<double>(max_error / (kU * scale)),
                  max_error / (kU * max_reference),
                  static_cast<double>(std::sqrt(error_squares / reference_squares) / kU));
    return buf;
  }
};

long double l1(const std::vector<float>& x) {
  long double s = 0;
  for (const float v : x) s += std::fabs(v);
  return s;
}

long double l2(const std::vector<float>& x) {
  long double s = 0;
  for (const float v : x) s += static_cast<long double>(v) * v;
  return std::sqrt(s);
}

std::vector<double> to_double(const auto& values) { return {values.begin(), values.end()}; }

/// The float WHT of N = 2^n points, natively and with float64 accumulation, against the reference.
std::string measure_wht(int n, const Distribution& data, Random& rng, const fastconv::Backend& backend) {
  const auto x = data.draw(std::size_t{1} << n, rng);
  std::vector<double> reference;
  if (data.kind == Distribution::integers) {
    std::vector<std::int64_t> exact(x.begin(), x.end());
    fastconv::wht(exact, {}, backend);
    reference = to_double(exact);  // |y| ≤ N·bound < 2^53: exact
  } else {
    reference = to_double(x);
    fastconv::wht(reference, {}, backend);
  }
  std::string row = "| " + std::to_string(n) + " | " + data.name() + " | " + std::to_string(n) + " | ";
  auto y = x;
  fastconv::wht(y, {}, backend);
  row += Errors(y, reference).cells(l1(x)) + " | ";
  y = x;
  fastconv::wht(y, {.accumulation = Accumulation::float64}, backend);
  return row + Errors(y, reference).cells(l1(x)) + " |";
}

/// The float dyadic convolution of two signals of 2^n points, natively and with float64
/// accumulation, against the reference.
std::string measure_convolution(int n, const Distribution& data, Random& rng, const fastconv::Backend& backend) {
  const auto f = data.draw(std::size_t{1} << n, rng), g = data.draw(std::size_t{1} << n, rng);
  std::vector<double> reference;
  if (data.kind == Distribution::integers) {
    std::vector<std::int64_t> exact(f.begin(), f.end());
    fastconv::convolve(exact, std::vector<std::int64_t>(g.begin(), g.end()), std::span(exact), backend);
    reference = to_double(exact);
  } else {
    reference = to_double(f);
    fastconv::convolve(reference, to_double(g), std::span(reference), backend);
  }
  const long double norms = l2(f) * l2(g);
  std::string row = "| " + std::to_string(n) + " | " + data.name() + " | " + std::to_string(3 * n + 2) + " | ";
  std::vector<float> c(f.size());
  fastconv::convolve(f, g, std::span(c), backend);
  row += Errors(c, reference).cells(norms) + " | ";
  fastconv::convolve(f, g, std::span(c), {.accumulation = Accumulation::float64}, backend);
  return row + Errors(c, reference).cells(norms) + " |";
}

void print_header(const char* bound_scale) {
  std::printf("| n | data | bound | native: max\\|err\\|/(u·%s) | native: max\\|err\\|/(u·max\\|ref\\|) | "
              "native: ‖err‖₂/(u·‖ref‖₂) | float64: max\\|err\\|/(u·%s) | float64: max\\|err\\|/(u·max\\|ref\\|) | "
              "float64: ‖err‖₂/(u·‖ref‖₂) |\n",
              bound_scale, bound_scale);
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const fastconv::Backend backend = fastconv::Backend::cpu(args.threads);
  // WHT integers: |x| ≤ 2^20, so intermediate sums pass 2^24 and the float transform rounds.
  const Distribution wht_data[] = {
      {Distribution::signed_reals}, {Distribution::positive_reals}, {Distribution::integers, 20}};
  // Convolution integers: |x| ≤ 2^(31−n) (at most 2^20), the widest range whose exact result the
  // 64-bit ring gives (‖f‖₁·max|g|·N < 2^63); the products of the spectra pass 2^24 at every size.
  const auto convolution_data = [](int n) {
    return std::vector<Distribution>{
        {Distribution::signed_reals}, {Distribution::positive_reals}, {Distribution::integers, std::min(20, 31 - n)}};
  };
  std::printf("Backend: %s. u = 2^-24. Errors against the exact result (integers) or the double one (reals).\n\n",
              backend.description().c_str());

  const auto timed = [](int n, const char* what, auto&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    std::fprintf(stderr, "%s 2^%d: %.1f s\n", what, n,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  Random rng(args.seed);
  std::printf("WHT (unnormalised, Hadamard order); bound: max|err| ≤ n·u·‖x‖₁\n\n");
  print_header("‖x‖₁");
  for (int n = args.min_log2n; n <= args.max_log2n; n += args.step)
    timed(n, "wht", [&] {
      for (const auto& data : wht_data) std::printf("%s\n", measure_wht(n, data, rng, backend).c_str());
      std::fflush(stdout);
    });
  std::printf("\nDyadic convolution of two signals of 2^n points; bound: max|err| ≤ (3n+2)·u·‖f‖₂·‖g‖₂\n\n");
  print_header("‖f‖₂‖g‖₂");
  for (int n = args.min_log2n; n <= args.max_log2n; n += args.step)
    timed(n, "convolve", [&] {
      for (const auto& data : convolution_data(n))
        std::printf("%s\n", measure_convolution(n, data, rng, backend).c_str());
      std::fflush(stdout);
    });
  return 0;
}
