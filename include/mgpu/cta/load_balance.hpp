// mgpu/cta/load_balance.hpp
//
// Load-balancing search in one CTA: which segment each of a tile's work items belongs to.
//
// Work items [0, count) are grouped into segments by their heads: segment s starts at item
// heads[s] (heads sorted ascending; the exclusive scan of per-segment item counts is one). Item i
// belongs to the last segment whose head is at or before it, s = upper_bound(heads, i) - 1, at
// rank i - heads[s] within it; items before heads[0] belong to no segment (s = -1). Merging the
// items with the heads, heads first on ties (merge_path<bounds::upper>), visits every item right
// after the head of its segment. So the merged sequence is cut into tiles of NV = NT * VT steps
// (load_balance_partitions: one Merge Path search per tile), and in each tile every thread walks
// VT steps serially, labelling the items it passes with the number of heads it has passed. Work
// per tile is the same whether its items come from one segment or from thousands of empty ones.
#pragma once

#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/types.hpp"
#include "loadstore.hpp"
#include "search.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

// One tile's ranges of the items-and-heads merge: items [item_begin, item_end), heads
// [head_begin, head_end), clamped so that even partitions of unsorted heads (undefined behaviour
// unchecked) keep every access inside the arrays and the tile.
struct lbs_range {
  std::int64_t item_begin, item_end, head_begin, head_end;

  MGPU_HOST_DEVICE static std::int64_t clamp(std::int64_t x, std::int64_t lo, std::int64_t hi) {
    return x < lo ? lo : x > hi ? hi : x;
  }

  // Tile `tile` (of NV merge steps) from its partitions: p[tile], p[tile + 1] items precede its start
  // and end.
  MGPU_HOST_DEVICE static lbs_range of_tile(int tile, int nv, std::int64_t count, std::int64_t num_heads,
                                            const std::int64_t* p) {
    return of_splits(tile, nv, count, num_heads, p[tile], p[tile + 1]);
  }

  // The same from the two entries themselves (p[tile] and p[tile + 1]), found by the tile's own
  // CTA, say (cta_merge_path_pair with bounds::upper, items as a and heads as b).
  MGPU_HOST_DEVICE static lbs_range of_splits(int tile, int nv, std::int64_t count, std::int64_t num_heads,
                                              std::int64_t items_before, std::int64_t items_before_end) {
    const std::int64_t first = std::int64_t(tile) * nv, left = count + num_heads - first;
    const int steps = left < nv ? int(left) : nv;
    lbs_range r;
    r.item_begin = clamp(items_before, 0, count);
    // The tile's items, then its heads in the steps left over, counted in 32 bits (at most nv).
    const std::int64_t items_left = count - r.item_begin;
    const int items = int(clamp(items_before_end - r.item_begin, 0, items_left < steps ? items_left : steps));
    r.item_end = r.item_begin + items;
    r.head_begin = clamp(first - r.item_begin, 0, num_heads);
    const std::int64_t heads_left = num_heads - r.head_begin;
    const int heads = steps - items;
    r.head_end = r.head_begin + (heads_left < heads ? heads_left : heads);
    return r;
  }

  // The only tile of an input of count + num_heads <= nv steps: everything, no partitions needed.
  MGPU_HOST_DEVICE static lbs_range whole(std::int64_t count, std::int64_t num_heads) {
    return lbs_range{0, count, 0, num_heads};
  }
};

template <int NT, int VT>
struct cta_load_balance {
  static constexpr int nv = NT * VT;

  // The tile's heads relative to its first item, and its labels, are positions in the tile: 16 bits
  // where a tile has fewer than 65535 steps (half the shared memory of 32, so more CTAs an SM),
  // and the search, the walk and the ranks 32-bit arithmetic (64-bit heads took two registers and
  // two instructions per comparison in a kernel bound by its instruction issue).
  using step_t = std::conditional_t<(nv + 1 < 65535), std::uint16_t, int>;
  struct storage_t {
    std::int64_t first_head;   // the head of local segment 0 (0 where the tile starts before the first head)
    step_t heads[nv + 2];      // [k], 1 <= k <= head count: local segment k's head - item_begin; then a sentinel
    step_t local_segment[nv];  // per item of the tile: its segment - (head_begin - 1)
  };

  // What run() found, read back from the storage (valid until the storage is reused).
  struct tile_t {
    std::int64_t item_begin;  // the tile's items are [item_begin, item_begin + item_count)
    int item_count;
    std::int64_t segment_begin;  // the segment of local segment 0 (head_begin - 1; -1 for none)
    int segment_count;           // local segments [0, segment_count) cover the tile's items
    const storage_t* storage;

    // The local segment of the tile's item j: segment(j) - segment_begin.
    MGPU_DEVICE int local_segment(int j) const { return int(storage->local_segment[j]); }
    // The segment of item item_begin + j, or -1 if it lies before the first head.
    MGPU_DEVICE std::int64_t segment(int j) const { return segment_begin + local_segment(j); }
    // Its rank within its segment (meaningless where segment(j) is -1). Local segment 0 may have
    // begun any number of items before the tile: its rank is the one computed in 64 bits.
    MGPU_DEVICE std::int64_t rank(int j) const { return rank(j, local_segment(j)); }
    // The same, given its local segment.
    MGPU_DEVICE std::int64_t rank(int j, int local) const {
      return local == 0 ? item_begin + j - storage->first_head : std::int64_t(j - storage->heads[local]);
    }
  };

  // Labels the items of tile `tile` of the merge of items [0, count) with heads[0, num_heads),
  // given partitions p from load_balance_partitions with spacing nv. All NT threads call it;
  // it ends with a barrier, so every thread may read any item's label at once.
  template <typename HeadIt>
  MGPU_DEVICE static tile_t run(int tid, int tile, std::int64_t count, HeadIt heads, std::int64_t num_heads,
                                const std::int64_t* p, storage_t& s) {
    return run(tid, lbs_range::of_tile(tile, nv, count, num_heads, p), heads, s);
  }
  // The same for the tile of range r (of_tile's, or whole(count, num_heads) for an input of a
  // single tile, which needs no partition pass).
  template <typename HeadIt>
  MGPU_DEVICE static tile_t run(int tid, lbs_range r, HeadIt heads, storage_t& s) {
    const int items = int(r.item_end - r.item_begin), head_count = int(r.head_end - r.head_begin);
    // The tile's heads and the one before (local segment 0's), where there is one, loaded in the
    // same rows (a load of its own ahead of them held warp 0 up for a memory latency, SASS sm_90),
    // every load issued before the first store.
    const int lead = r.head_begin > 0 ? 1 : 0, loaded = head_count + lead, rows = (loaded + NT - 1) / NT;
    array_t<iterator_value_t<HeadIt>, VT + 1> raw;
    load_rows<NT, rows_past::skipped>(raw, heads, r.head_begin - lead, rows, r.head_end, tid);
    // Rows past the last loaded one are skipped as a whole (the same for every thread: a tile of
    // long segments holds one row of heads, and predicated rows cost it their instructions anyway).
    // The lead lands in heads[0], which nothing reads; its 64 bits go to first_head.
    MGPU_UNROLL
    for (int i = 0; i < VT + 1; ++i) {
      if (i >= rows) break;
      int j = NT * i + tid;
      if (j < loaded) {
        // A sorted head of the tile lies within items of its first item; any other (unsorted
        // heads) lands somewhere in [0, items], which is all that safety asks.
        std::uint32_t head = std::uint32_t(std::int64_t(raw[i])) - std::uint32_t(r.item_begin);
        s.heads[j + 1 - lead] = step_t(head < std::uint32_t(items) ? head : std::uint32_t(items));
      }
    }
    if (tid == 0) {
      s.first_head = lead ? std::int64_t(raw[0]) : 0;
      s.heads[head_count + 1] = step_t(items + 1);  // the walk's sentinel: after every item
    }
    __syncthreads();

    const int total = items + head_count;
    const int diag = VT * tid < total ? VT * tid : total;
    const step_t* tile_heads = s.heads + 1;
    const int split =
        merge_path<bounds::upper>(make_counting_iterator<int>(0), items, tile_heads, head_count, diag, less<>());
    // The walk: all VT steps unguarded but in the tile's last threads (a guard made each step a
    // branch).
    if (diag + VT <= total)
      walk<VT>(split, diag - split, tile_heads, s.local_segment);
    else
      walk<VT>(split, diag - split, tile_heads, s.local_segment, total - diag);
    __syncthreads();
    return tile_t{r.item_begin, items, r.head_begin - 1, head_count + 1, &s};
  }

 private:
  // `steps` steps of the walk from item `item` and head `head`, each labelling an item with the
  // number of heads passed or passing a head; the next head stays in a register, so a step is one
  // comparison.
  template <int STEPS>
  MGPU_DEVICE static void walk(int item, int head, const step_t* tile_heads, step_t* labels, int steps = STEPS) {
    int next_head = tile_heads[head];
    MGPU_UNROLL
    for (int step = 0; step < STEPS; ++step) {
      if (step >= steps) break;
      if (item < next_head)
        labels[item++] = step_t(head);
      else
        next_head = tile_heads[++head];
    }
  }
};

}  // namespace mgpu
