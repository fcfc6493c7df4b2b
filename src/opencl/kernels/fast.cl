// fast.cl — the `fast` variant: a transform in a few passes, each doing FC_T stages in one
// tile per work-group. Everything below is fixed at build time with -D options, so every loop
// has a constant trip count and unrolls, and every butterfly is branch-free:
//
//   FC_V, FC_LOGV  words per vector (vload/vstore), and its log2
//   FC_LANES       1: this pass also does the log2(FC_V) stages inside each vector (first pass)
//   FC_P0          log2 of the distance, in words, between the tile's rows (the first stage bit)
//   FC_T           stages of this pass: rows of the tile = 2^FC_T, on bits [FC_P0, FC_P0 + FC_T)
//   FC_R           row bits one work-item holds in registers per round (2^FC_R vectors)
//   FC_GC          log2 of the vectors side by side in a tile row (tile width = FC_V << FC_GC words)
//   FC_TPG         log2 of the tiles one work-group does at once
//   FC_MODE        0 transform; 1, 2, 3: then, before storing, multiply by the spectrum (1),
//                  square (2) or divide by the spectrum (3), and by `scale` (the dyadic middle:
//                  the last forward pass of a dyadic convolution, whose inverse follows)
//   FC_STORE_SCALE 1: multiply by `scale` when storing (the last pass of a normalised WHT)
//
// Arguments: the data x (rows of whole transforms, back to back), where the pass reads its tiles
// from (x itself, or for the first pass of a call another buffer of the same layout: the copy
// into x is folded into the pass), the spectrum and the mask of its vector index (dyadic middle
// only), the scale, and the number of tiles in x.
//
// A pass loads the tile in rounds: each round, every work-item takes 2^r rows of one column
// vector that differ in r row bits, does those r stages in registers and writes them back,
// first from global to local memory, then local to local, and at last local to global. The
// rounds run from the high row bits down, so the first round's loads and the last round's
// stores are contiguous across neighbouring work-items. Barriers sit between rounds only,
// in straight-line code: PoCL vectorises the work-item loops between them.

#define FC_ROUNDS (FC_T == 0 ? 1 : (FC_T + FC_R - 1) / FC_R)
#define FC_TILE_ITEMS_LOG (FC_GC + FC_T - FC_R)  // work-items per tile (log2); FC_T >= FC_R
#define FC_WG (1 << (FC_TILE_ITEMS_LOG + FC_TPG))
#define FC_SLOTS ((((1 << FC_T) + ((1 << FC_T) >> FC_R)) << FC_GC))  // vectors of one padded tile
#define FC_CB_LOG (FC_P0 - FC_LOGV - FC_GC)                            // tiles side by side in a band

// Row bits of round k, from the top: [FC_ROUND_LO(k), FC_ROUND_LO(k) + FC_ROUND_BITS(k)).
#define FC_ROUND_HI(k) (FC_T - (k) * FC_R)
#define FC_ROUND_LO(k) (FC_ROUND_HI(k) > FC_R ? FC_ROUND_HI(k) - FC_R : 0)
#define FC_ROUND_BITS(k) (FC_ROUND_HI(k) - FC_ROUND_LO(k))

/// In-place butterflies on the 2^bits vectors of v: `bits` stages.
#define FC_UNROLL _Pragma("unroll")
#define FC_BUTTERFLIES(v, bits)                                        \
  FC_UNROLL for (int h_ = 1; h_ < (1 << (bits)); h_ <<= 1)             \
    FC_UNROLL for (int b_ = 0; b_ < (1 << (bits)); b_ += 2 * h_)       \
      FC_UNROLL for (int i_ = b_; i_ < b_ + h_; ++i_) {                \
        const vec a_ = v[i_], c_ = v[i_ + h_];                         \
        v[i_] = vadd(a_, c_);                                          \
        v[i_ + h_] = vsub(a_, c_);                                     \
      }

#if FC_LANES && FC_V > 1
/// The stage on lane bit j: lane l becomes v[l ^ 2^j] ± v[l] (+ where bit j of l is 0).
#if FC_V == 2
#define FC_LANE_STAGES(x) x = x.s10 + x * (vec)(1, -1);
#elif FC_V == 4
#define FC_LANE_STAGES(x)                 \
  x = x.s1032 + x * (vec)(1, -1, 1, -1);  \
  x = x.s2301 + x * (vec)(1, 1, -1, -1);
#elif FC_V == 8
#define FC_LANE_STAGES(x)                                 \
  x = x.s10325476 + x * (vec)(1, -1, 1, -1, 1, -1, 1, -1); \
  x = x.s23016745 + x * (vec)(1, 1, -1, -1, 1, 1, -1, -1); \
  x = x.s45670123 + x * (vec)(1, 1, 1, 1, -1, -1, -1, -1);
#elif FC_V == 16
#define FC_LANE_STAGES(x)                                                                         \
  x = x.s1032547698badcfe + x * (vec)(1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1);   \
  x = x.s23016745ab89efcd + x * (vec)(1, 1, -1, -1, 1, 1, -1, -1, 1, 1, -1, -1, 1, 1, -1, -1);   \
  x = x.s45670123cdef89ab + x * (vec)(1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1);   \
  x = x.s89abcdef01234567 + x * (vec)(1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1);
#endif
#define FC_LANES_ALL(v, bits) \
  FC_UNROLL for (int i_ = 0; i_ < (1 << (bits)); ++i_) { FC_LANE_STAGES(v[i_]) }
#else
#define FC_LANES_ALL(v, bits)
#endif

#if FC_MODE == 1
#define FC_COMBINE(x, k) x = vmul(vscale(x, scale), VLOAD((k) & s_mask, spectrum))
#elif FC_MODE == 2
#define FC_COMBINE(x, k) x = vmul(vscale(x, scale), x)
#elif FC_MODE == 3
#define FC_COMBINE(x, k) x = vscale(vdiv(x, VLOAD((k) & s_mask, spectrum)), scale)
#endif

// Where (row, column vector c) of this work-item's tile lives: in global memory as a vector
// index, in local memory as a slot.
#define FC_GLOBAL(row, c) (tile_vec + ((ulong)(row) << (FC_P0 - FC_LOGV)) + (c))
#define FC_LOCAL(row, c) (tile_slot0 + fc_tile_slot(row, c, FC_R, FC_GC))

#define FC_LOAD_G(row, c) VLOAD(FC_GLOBAL(row, c), in)
#define FC_LOAD_L(row, c) lds[FC_LOCAL(row, c)]
#if FC_STORE_SCALE
#define FC_STORE_G(row, c, val) \
  if (active) VSTORE(vscale(val, scale), FC_GLOBAL(row, c), x)
#else
#define FC_STORE_G(row, c, val) \
  if (active) VSTORE(val, FC_GLOBAL(row, c), x)
#endif
#define FC_STORE_L(row, c, val) lds[FC_LOCAL(row, c)] = (val)

/// Round k: every group of 2^bits rows this work-item owns is loaded with LOAD, transformed
/// (stages of the round, then BODY on the registers v[]), and stored with STORE.
#define FC_ROUND(k, LOAD, STORE, BODY)                                                       \
  {                                                                                          \
    const int lo_ = FC_ROUND_LO(k), bits_ = FC_ROUND_BITS(k);                                \
    for (int j_ = 0; j_ < (1 << (FC_R - bits_)); ++j_) {                                     \
      const uint g_ = ((uint)j_ << FC_TILE_ITEMS_LOG) + item;                                \
      const uint c = g_ & ((1u << FC_GC) - 1);                                               \
      const uint row0 = (uint)fc_insert_zero_bits(g_ >> FC_GC, lo_, bits_);                  \
      vec v[1 << FC_R];                                                                      \
      FC_UNROLL for (int i_ = 0; i_ < (1 << bits_); ++i_) v[i_] = LOAD(row0 + ((uint)i_ << lo_), c); \
      FC_BUTTERFLIES(v, bits_)                                                               \
      BODY                                                                                   \
      FC_UNROLL for (int i_ = 0; i_ < (1 << bits_); ++i_) STORE(row0 + ((uint)i_ << lo_), c, v[i_]); \
    }                                                                                        \
  }

#define FC_NOTHING
#if FC_MODE == 0
#define FC_LAST_BODY FC_LANES_ALL(v, bits_)
#else
#define FC_LAST_BODY                                                                \
  FC_LANES_ALL(v, bits_)                                                            \
  FC_UNROLL for (int i_ = 0; i_ < (1 << bits_); ++i_) {                             \
    const ulong k_ = FC_GLOBAL(row0 + ((uint)i_ << lo_), c);                        \
    FC_COMBINE(v[i_], k_);                                                          \
  }
#endif

#define FC_BARRIER barrier(CLK_LOCAL_MEM_FENCE);

__kernel __attribute__((reqd_work_group_size(FC_WG, 1, 1))) void wht_pass(__global word* x,
                                                                         __global const word* in,
                                                                         __global const word* spectrum,
                                                                         ulong s_mask, FC_REAL scale,
                                                                         ulong tiles) {
  const uint local_id = get_local_id(0);
  const uint item = local_id & ((1u << FC_TILE_ITEMS_LOG) - 1);
  const uint sub = local_id >> FC_TILE_ITEMS_LOG;
  // The last work-group may hold fewer than 2^FC_TPG tiles: the spare ones compute a copy of
  // the last tile (every work-item must reach every barrier) and store nothing.
  const ulong wanted = ((ulong)get_group_id(0) << FC_TPG) + sub;
  const bool active = wanted < tiles;
  const ulong tile = active ? wanted : tiles - 1;
  const ulong band = tile >> FC_CB_LOG, column_block = tile & ((((ulong)1) << FC_CB_LOG) - 1);
  const ulong tile_vec = (band << (FC_P0 + FC_T - FC_LOGV)) + (column_block << FC_GC);
  (void)spectrum;
  (void)s_mask;
  (void)scale;
#if FC_ROUNDS == 1
  FC_ROUND(0, FC_LOAD_G, FC_STORE_G, FC_LAST_BODY)
#else
  __local vec lds[FC_SLOTS << FC_TPG];
  const uint tile_slot0 = sub * FC_SLOTS;
  FC_ROUND(0, FC_LOAD_G, FC_STORE_L, FC_NOTHING)
  FC_BARRIER
#if FC_ROUNDS > 2
  FC_ROUND(1, FC_LOAD_L, FC_STORE_L, FC_NOTHING)
  FC_BARRIER
#endif
#if FC_ROUNDS > 3
  FC_ROUND(2, FC_LOAD_L, FC_STORE_L, FC_NOTHING)
  FC_BARRIER
#endif
#if FC_ROUNDS > 4
  FC_ROUND(3, FC_LOAD_L, FC_STORE_L, FC_NOTHING)
  FC_BARRIER
#endif
#if FC_ROUNDS > 5
#error "at most 5 rounds per pass"
#endif
  FC_ROUND(FC_ROUNDS - 1, FC_LOAD_L, FC_STORE_G, FC_LAST_BODY)
#endif
}
