// indexing.cl — the index arithmetic of the OpenCL kernels, in the common subset of OpenCL C
// and C++ so that tests/opencl_indexing_test.cpp runs the very same functions on the CPU.
// The includer defines FC_INLINE and the types ulong and uint.

/// Seed 001, eq. 15: the first element of thread `tid`'s butterfly in the step of span `step`.
FC_INLINE ulong fc_gajic_op1(ulong tid, ulong step) { return tid % step + 2 * step * (tid / step); }

/// Seed 001, eq. 16: its partner.
FC_INLINE ulong fc_gajic_op2(ulong tid, ulong step) { return fc_gajic_op1(tid, step) + step; }

/// `rest` with `count` zero bits inserted at bit `at`: the first of the 2^count indices that
/// differ only in bits [at, at + count).
FC_INLINE ulong fc_insert_zero_bits(ulong rest, uint at, uint count) {
  const ulong low = rest & ((((ulong)1) << at) - 1);
  return ((rest >> at) << (at + count)) | low;
}

/// The low `bits` bits of k in reverse order.
FC_INLINE ulong fc_bit_reverse(ulong k, uint bits) {
  ulong r = 0;
  for (uint i = 0; i < bits; ++i) {
    r = (r << 1) | (k & 1);
    k >>= 1;
  }
  return r;
}

/// The natural (Hadamard) index of output coefficient k of an ordered transform of 2^bits
/// points. order: 0 Hadamard, 1 sequency (row bit_reverse(gray(k))), 2 Paley (row bit_reverse(k)).
FC_INLINE ulong fc_natural_index(ulong k, uint bits, uint order) {
  if (order == 1) return fc_bit_reverse(k ^ (k >> 1), bits);
  if (order == 2) return fc_bit_reverse(k, bits);
  return k;
}

/// The padded position, in vectors, of (row, column vector c) in a tile of the fast pass
/// kernel: one spare row after every 2^round_bits rows, so that the work-items of a round
/// that walks the low row bits do not all hit the same local-memory bank.
FC_INLINE uint fc_tile_slot(uint row, uint c, uint round_bits, uint column_bits) {
  return ((row + (row >> round_bits)) << column_bits) + c;
}
