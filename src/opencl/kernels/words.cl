// words.cl — the word type a program computes in. The host defines one of
//   FC_WORD=float|double|uint|ulong  (with FC_V = 1, 2, 4, 8 or 16 words per vector), or
//   FC_U128                          (the ring Z/2^128 as two ulongs, one word per vector),
// and FC_REAL, the type of the scale argument.
// Integer words are the wrapping rings Z/2^32, Z/2^64, Z/2^128: the host picks one wide
// enough that the exact result is recovered from it; scaling is then done by the host.
#define FC_INLINE static inline  // plain C99 inline leaves no definition at -O0
#define FC_CAT_(a, b) a##b
#define FC_CAT(a, b) FC_CAT_(a, b)

#ifdef FC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifdef FC_U128
#define FC_V 1
typedef struct {
  ulong lo, hi;
} word;
typedef word vec;
FC_INLINE vec vadd(vec a, vec b) {
  vec r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo);
  return r;
}
FC_INLINE vec vsub(vec a, vec b) {
  vec r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo);
  return r;
}
FC_INLINE vec vmul(vec a, vec b) {  // the low 128 bits of the product
  vec r;
  r.lo = a.lo * b.lo;
  r.hi = mul_hi(a.lo, b.lo) + a.lo * b.hi + a.hi * b.lo;
  return r;
}
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
#else
typedef FC_WORD word;
#if FC_V == 1
typedef word vec;
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
#else
typedef FC_CAT(FC_WORD, FC_V) vec;
// Whole aligned vectors: buffers start aligned, and every access is at a multiple of FC_V words.
#define VLOAD(i, p) (((const __global vec*)(p))[i])
#define VSTORE(v, i, p) (((__global vec*)(p))[i] = (v))
#endif
#define vadd(a, b) ((a) + (b))
#define vsub(a, b) ((a) - (b))
#define vmul(a, b) ((a) * (b))
#define vdiv(a, b) ((a) / (b))
#endif

#ifdef FC_FLOAT
#define vscale(v, s) ((v) * (word)(s))
#else
#define vscale(v, s) (v)  // rings: the host divides exactly
#endif

// indexing.cl follows this file in every program (the host concatenates them).
