// The distributed WHT and convolution timed under mpirun, beside the single-process transform.
//
//   mpirun -np P fastconv_distributed_bench [--log2n A-B] [--weak LOG2M] [--repeats R] [--threads T]
//                                           [--chunk WORDS] [--convolve no]
//
// For each size: the median over R runs of the distributed WHT with each exchange (and of a
// dyadic convolution), measured on rank 0 between barriers, and the time spent communicating
// (the same run with the local transforms left out is not possible, so the communication time is
// that of a pure exchange of the same volume: one pairwise round or two all-to-alls of the block).
// Rank 0 prints one line per measurement: np, log2n, what, median ms.
// With --weak LOG2M each rank holds 2^LOG2M elements (log2n = LOG2M + p) instead.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "fastconv/distributed.hpp"

namespace {

using namespace fastconv;

double median_ms(int repeats, const std::function<void()>& run) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    run();
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Args {
  int from = 24, to = 24, weak = -1, repeats = 5, threads = 0;
  std::size_t chunk = std::size_t{1} << 21;
  bool convolve = true;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--log2n") {
      const auto dash = value.find('-');
      a.from = std::stoi(value.substr(0, dash));
      a.to = dash == std::string::npos ? a.from : std::stoi(value.substr(dash + 1));
    } else if (key == "--weak") {
      a.weak = std::stoi(value);
    } else if (key == "--repeats") {
      a.repeats = std::stoi(value);
    } else if (key == "--convolve") {
      a.convolve = value != "no";
    } else if (key == "--chunk") {
      a.chunk = std::stoull(value);
    } else if (key == "--threads") {
      a.threads = std::stoi(value);
    } else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      std::exit(2);
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int p = __builtin_ctz(static_cast<unsigned>(ranks));
  const Args args = parse(argc, argv);
  const int from = args.weak >= 0 ? args.weak + p : args.from, to = args.weak >= 0 ? args.weak + p : args.to;
  for (int n = from; n <= to; ++n) {
    const std::size_t local = std::size_t{1} << (n - p);
    std::vector<float> x(local), g(local), out(local);
    for (std::size_t i = 0; i < local; ++i) {
      x[i] = static_cast<float>((i * 2654435761U) % 1000) / 1000.0f - 0.5f;
      g[i] = static_cast<float>((i * 40503U) % 997) / 997.0f - 0.5f;
    }
    const auto report = [&](const std::string& what, double ms) {
      if (rank == 0) std::printf("np=%d log2n=%d threads=%d %-28s %10.2f ms\n", ranks, n, args.threads, what.c_str(), ms);
      std::fflush(stdout);
    };
    for (const auto exchange : {distributed::Exchange::pairwise, distributed::Exchange::alltoall}) {
      if (exchange == distributed::Exchange::alltoall && (p == 0 || n < 2 * p)) continue;
      distributed::Options options;
      options.exchange = exchange;
      options.threads = args.threads;
      options.chunk_words = args.chunk;
      const distributed::WhtPlan<float> plan(n, MPI_COMM_WORLD, {}, options);
      report("wht " + std::string(to_string(exchange)), median_ms(args.repeats, [&] { plan.execute(std::span(x)); }));
      if (!args.convolve) continue;
      report("convolve " + std::string(to_string(exchange)), median_ms(args.repeats, [&] {
               distributed::convolve(std::span<const float>(x), std::span<const float>(g), std::span(out),
                                     MPI_COMM_WORLD, options);
             }));
    }
    if (p > 0 && n >= 2 * p) {
      std::vector<float> rows(local);
      const int per = static_cast<int>(local / static_cast<std::size_t>(ranks) * 4);
      report("alltoall of the block", median_ms(args.repeats, [&] {
               MPI_Alltoall(x.data(), per, MPI_BYTE, rows.data(), per, MPI_BYTE, MPI_COMM_WORLD);
             }));
    }
    if (p > 0) {  // the exchanges alone: what crossing the rank bits costs
      std::vector<float> buffer(local);
      const int partner = rank ^ 1;
      report("sendrecv of the block", median_ms(args.repeats, [&] {
               const std::size_t chunk = std::min<std::size_t>(local, std::size_t{1} << 28);
               for (std::size_t c = 0; c < local; c += chunk)
                 MPI_Sendrecv(x.data() + c, static_cast<int>(chunk * 4), MPI_BYTE, partner, 0, buffer.data() + c,
                              static_cast<int>(chunk * 4), MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
             }));
    }
  }
  MPI_Finalize();
  return 0;
}
