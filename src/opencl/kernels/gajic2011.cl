// gajic2011.cl — seed 001's Algorithm 1 as written: one launch of fwt_step per FWT step with
// N/2 work-items (eqs. 15-16), a componentwise multiply with N work-items, and a 2^-n scale
// with N work-items. Dimension 1 of the range enumerates the rows of a batch.

__kernel void fwt_step(__global word* x, ulong row_length, ulong step) {
  __global word* row = x + get_global_id(1) * row_length;
  const ulong tid = get_global_id(0);
  const ulong op1 = fc_gajic_op1(tid, step), op2 = fc_gajic_op2(tid, step);
  const word a = row[op1], b = row[op2];
  row[op1] = vadd(a, b);
  row[op2] = vsub(a, b);
}

/// x[i] = x[i] · s[i mod |s|] (FC_OP 1), x[i]² (FC_OP 2) or x[i] / s[i mod |s|] (FC_OP 3).
__kernel void multiply(__global word* x, __global const word* s, ulong s_mask) {
  const ulong i = get_global_id(0);
#if FC_OP == 1
  x[i] = vmul(x[i], s[i & s_mask]);
#elif FC_OP == 2
  x[i] = vmul(x[i], x[i]);
#else
  x[i] = vdiv(x[i], s[i & s_mask]);
#endif
}

__kernel void scale(__global word* x, FC_REAL factor) {
  const ulong i = get_global_id(0);
  x[i] = vscale(x[i], factor);
}
