// reorder.cl — sequency and Paley orders from a natural-order transform: a gather per row.

__kernel void gather_order(__global word* out, __global const word* in, uint bits, uint order) {
  const ulong base = get_global_id(1) << bits;
  const ulong k = get_global_id(0);
  out[base + k] = in[base + fc_natural_index(k, bits, order)];
}
