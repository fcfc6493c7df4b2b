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

/// The low `bits` bits of k in reverse order: the 64-bit word reversed by swapping halves,
/// quarters, … and single bits (no loop), then shifted down.
FC_INLINE ulong fc_bit_reverse(ulong k, uint bits) {
  if (bits == 0) return 0;
  k = (k >> 32) | (k << 32);
  k = ((k >> 16) & 0x0000ffff0000fffful) | ((k & 0x0000ffff0000fffful) << 16);
  k = ((k >> 8) & 0x00ff00ff00ff00fful) | ((k & 0x00ff00ff00ff00fful) << 8);
  k = ((k >> 4) & 0x0f0f0f0f0f0f0f0ful) | ((k & 0x0f0f0f0f0f0f0f0ful) << 4);
  k = ((k >> 2) & 0x3333333333333333ul) | ((k & 0x3333333333333333ul) << 2);
  k = ((k >> 1) & 0x5555555555555555ul) | ((k & 0x5555555555555555ul) << 1);
  return k >> (64 - bits);
}

/// The natural (Hadamard) index of output coefficient k of an ordered transform of 2^bits
/// points. order: 0 Hadamard, 1 sequency (row bit_reverse(gray(k))), 2 Paley (row bit_reverse(k)).
FC_INLINE ulong fc_natural_index(ulong k, uint bits, uint order) {
  if (order == 1) return fc_bit_reverse(k ^ (k >> 1), bits);
  if (order == 2) return fc_bit_reverse(k, bits);
  return k;
}

/// The prefix XOR of x from its top bit down: the inverse of the Gray map k ⊕ (k >> 1).
FC_INLINE ulong fc_gray_inverse(ulong x) {
  for (uint s = 1; s < 64; s <<= 1) x ^= x >> s;
  return x;
}

/// The low q ≤ 8 bits of k in reverse order, without a loop (three multiplies and masks
/// reverse the byte).
FC_INLINE uint fc_reverse_short(uint k, uint q) {
  const ulong byte = ((((ulong)(k & 0xff)) * 0x80200802ul) & 0x0884422110ul) * 0x0101010101ul >> 32;
  return (uint)(byte & 0xff) >> (8 - q);
}

/// fc_gray_inverse of a number below 2^8.
FC_INLINE uint fc_gray_inverse_short(uint x) {
  x ^= x >> 1;
  x ^= x >> 2;
  return x ^ (x >> 4);
}

// The reorder kernel's tiles (reorder.cl). An index of 2^bits points splits into its top q
// bits, the m = bits − 2q middle ones and the low q; Paley coefficient (a, mid, b) is natural
// coefficient (rev(b), rev(mid), rev(a)), and sequency coefficient k is Paley coefficient
// gray(k), whose low q bits depend on k's only through k's own low q bits and bit q. So for
// each mid, one tile of 2^q × 2^q natural words (x, rev(mid), y), read row by row, holds the
// 2^q output blocks of 2^q words below: block fc_order_block(a, ...), word lo of which is
// tile word (rev(fc_order_lane(lo, block)), rev(a)).

/// The output block (index >> q) that holds Paley block (a, mid), a < 2^8: the block itself in
/// Paley order; in sequency order its inverse Gray image, whose low m bits are the tile's
/// `gray_mid` = fc_gray_inverse(mid), complemented when a has odd parity. (Paley order:
/// gray_mid = mid.)
FC_INLINE ulong fc_order_block(uint a, ulong gray_mid, uint m, uint sequency) {
  if (!sequency) return (((ulong)a) << m) | gray_mid;
  const uint g = fc_gray_inverse_short(a);
  const ulong flip = (g & 1) ? ((((ulong)1) << m) - 1) : 0;
  return (((ulong)g) << m) | (gray_mid ^ flip);
}

/// The Paley lane (low q bits) of word lo of output block `block`.
FC_INLINE uint fc_order_lane(uint lo, ulong block, uint q, uint sequency) {
  if (!sequency || q == 0) return lo;
  return lo ^ (lo >> 1) ^ ((uint)(block & 1) << (q - 1));
}

/// The padded position, in vectors, of (row, column vector c) in a tile of the fast pass
/// kernel: one spare row after every 2^round_bits rows, so that the work-items of a round
/// that walks the low row bits do not all hit the same local-memory bank.
FC_INLINE uint fc_tile_slot(uint row, uint c, uint round_bits, uint column_bits) {
  return ((row + (row >> round_bits)) << column_bits) + c;
}
