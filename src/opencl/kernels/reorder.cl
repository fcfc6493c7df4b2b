// reorder.cl — sequency and Paley orders from a natural-order transform, in tiles (the index
// arithmetic and why it holds: indexing.cl, fc_order_block). Work-group g of a row reads the
// 2^q natural rows (x, g, ·), each straight through, into a padded local tile, and writes the
// 2^q output blocks that the tile of mid = rev(g) fills, each straight through; the padding
// (one word a tile row) spreads the tile's column reads over the local-memory banks.
// Consecutive groups read on along the same rows. A work-item keeps its column (y, then lo)
// through both loops: consecutive work-items touch consecutive words. (A gather per output
// word, its natural index recomputed in loops each time, took 20–55× the natural-order
// transform at 2^20 … 2^22 under PoCL: docs/benchmarks.md.)

__kernel void tile_order(__global word* out, __global const word* in, uint bits, uint q, uint sequency,
                         __local word* tile) {
  const uint m = bits - 2 * q, side = 1u << q, pitch = side + 1;
  const uint column = get_local_id(0) & (side - 1), first = get_local_id(0) >> q, step = get_local_size(0) >> q;
  const ulong base = get_global_id(1) << bits;
  const ulong natural_mid = get_group_id(0), mid = fc_bit_reverse(natural_mid, m);
  const __global word* from = in + base + (natural_mid << q) + column;
  for (uint x = first; x < side; x += step) tile[x * pitch + column] = from[((ulong)x) << (m + q)];
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong gray_mid = sequency ? fc_gray_inverse(mid) : mid;
  for (uint a = first; a < side; a += step) {
    const ulong block = fc_order_block(a, gray_mid, m, sequency);
    const uint lane = fc_order_lane(column, block, q, sequency);
    out[base + (block << q) + column] = tile[fc_reverse_short(lane, q) * pitch + fc_reverse_short(a, q)];
  }
}
