// src/distributed/cross_ranks.hpp — the steps of a distributed transform that act on the rank
// bits of the index: the pairwise exchange, the all-to-all transpose and the butterflies
// between its rows, and the permutation into sequency or Paley order. W is a word: float,
// double, or an unsigned ring word whose wrap-around is the ring's arithmetic.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "cpu/order.hpp"
#include "distributed/comm.hpp"
#include "fastconv/wht.hpp"

namespace fastconv::distributed::detail {

/// Round k of the pairwise exchange for one chunk: the rank whose bit k is 0 keeps a + b, its
/// partner b − a (a: this rank's words, b: the partner's).
template <class W>
void combine_with_partner(W* mine, const W* theirs, std::size_t n, bool lower) {
  if (lower) {
    for (std::size_t i = 0; i < n; ++i) mine[i] = mine[i] + theirs[i];
  } else {
    for (std::size_t i = 0; i < n; ++i) mine[i] = theirs[i] - mine[i];
  }
}

/// The words of one chunk of the pairwise exchange: `chunk_words` rounded down to a power of
/// two, at most the block and at most 2^30 bytes (an int count).
template <class W>
std::size_t pairwise_chunk(std::size_t words, std::size_t chunk_words) {
  const std::size_t most = (std::size_t{1} << 30) / sizeof(W);
  return std::min({words, most, std::bit_floor(std::max<std::size_t>(chunk_words, 1))});
}

/// The WHT over the rank bits by p rounds of pairwise exchange, in place on this rank's
/// `words`. Chunks go through the two halves of `buffers` (2·pairwise_chunk words) so that
/// chunk c + 1 is in flight while chunk c is combined; a chunk is overwritten only once its own
/// send has completed.
template <class W>
void pairwise_rounds(W* data, std::size_t words, const Ranks& r, std::size_t chunk_words, W* buffers) {
  const std::size_t chunk = pairwise_chunk<W>(words, chunk_words);
  const std::size_t chunks = words / chunk;
  const int bytes = static_cast<int>(chunk * sizeof(W));
  for (int k = 0; k < r.log2p; ++k) {
    const int partner = r.rank ^ (1 << k);
    const bool lower = (r.rank & (1 << k)) == 0;
    std::array<std::array<MPI_Request, 2>, 2> requests{};
    const auto post = [&](std::size_t c) {
      auto& req = requests[c % 2];
      check_mpi(MPI_Irecv(buffers + (c % 2) * chunk, bytes, MPI_BYTE, partner, kTag, r.comm, &req[0]),
                "MPI_Irecv");
      check_mpi(MPI_Isend(data + c * chunk, bytes, MPI_BYTE, partner, kTag, r.comm, &req[1]), "MPI_Isend");
    };
    post(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) post(c + 1);
      check_mpi(MPI_Waitall(2, requests[c % 2].data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      combine_with_partner(data + c * chunk, buffers + (c % 2) * chunk, chunk, lower);
    }
  }
}

/// `rows` (P rows of `row_words`, row q from rank q after a transpose) replaced by their WHT
/// along the rank axis: p butterfly stages, done column block by column block so that the P
/// rows of a block stay in cache through all of them.
template <class W>
void wht_across_rows(W* rows, std::size_t row_words, int log2p, int threads) {
  const std::size_t P = std::size_t{1} << log2p;
  const std::size_t block = std::max<std::size_t>(1, std::min(row_words, (std::size_t{1} << 17) / (P * sizeof(W))));
  const auto blocks = static_cast<std::ptrdiff_t>(row_words / block);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && blocks > 1)
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    const std::size_t c0 = static_cast<std::size_t>(b) * block;
    for (std::size_t h = 1; h < P; h <<= 1)
      for (std::size_t q = 0; q < P; q += 2 * h)
        for (std::size_t j = q; j < q + h; ++j) {
          W* a = rows + j * row_words + c0;
          W* c = rows + (j + h) * row_words + c0;
          for (std::size_t i = 0; i < block; ++i) {
            const W x = a[i], y = c[i];
            a[i] = x + y;
            c[i] = x - y;
          }
        }
  }
}

/// The low p bits of the output index k (k's bit p is `above`) whose natural-order source
/// lies on rank q: the top p bits of natural_index(k) are q. Paley: natural_index(k) =
/// bitrev(k), so k's low bits are bitrev_p(q); sequency: bitrev(gray(k)), so gray(k)'s low
/// bits are bitrev_p(q), solved bit by bit from the top.
std::size_t low_bits_from(std::size_t q, int log2p, std::size_t above, Order order) noexcept;

/// The output index in `order` of natural-order coefficient s (the inverse of cpu::natural_index).
std::size_t ordered_index(std::size_t s, int n, Order order) noexcept;

/// Permutes a distributed natural-order transform into `order` with one all-to-all: each
/// rank sends rank d, in d's order, the M/P values d's outputs take from it. Needs n ≥ 2p
/// (each rank pair then exchanges M/P values); `buffer` holds M words.
template <class T>
void reorder(T* data, T* buffer, std::size_t words, int log2n, const Ranks& r, Order order) {
  const std::size_t per = words / static_cast<std::size_t>(r.size);
  const int p = r.log2p;
  const std::size_t first = static_cast<std::size_t>(r.rank) * words;
  const auto k_of = [&](std::size_t d, std::size_t q, std::size_t m) {
    const std::size_t high = d * words + (m << p);
    return high | low_bits_from(q, p, (high >> p) & 1, order);
  };
  for (std::size_t d = 0; d < static_cast<std::size_t>(r.size); ++d)
    for (std::size_t m = 0; m < per; ++m)
      buffer[d * per + m] = data[cpu::natural_index(k_of(d, static_cast<std::size_t>(r.rank), m), log2n, order) - first];
  alltoall_bytes(buffer, data, per * sizeof(T), r.comm);
  for (std::size_t q = 0; q < static_cast<std::size_t>(r.size); ++q)
    for (std::size_t m = 0; m < per; ++m) buffer[k_of(static_cast<std::size_t>(r.rank), q, m) - first] = data[q * per + m];
  std::memcpy(data, buffer, words * sizeof(T));
}

/// The same for arrays too small for that (n < 2p, N < P²): every rank
/// gathers the whole natural-order result and picks its outputs.
template <class T>
void reorder_gathered(T* data, std::size_t words, int log2n, const Ranks& r, Order order) {
  std::vector<T> all(words * static_cast<std::size_t>(r.size));
  const int bytes = static_cast<int>(words * sizeof(T));
  check_mpi(MPI_Allgather(data, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, r.comm), "MPI_Allgather");
  const std::size_t first = static_cast<std::size_t>(r.rank) * words;
  for (std::size_t j = 0; j < words; ++j) data[j] = all[cpu::natural_index(first + j, log2n, order)];
}

}  // namespace fastconv::distributed::detail
