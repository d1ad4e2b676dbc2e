// mgpu/algorithms/segmented_reduce.hpp
//
// Segmented reduction: one reduction per segment of an array, the segments' sizes free to be
// anything from zero to the whole array. Two kernels, one per way of saying where segments start.
//
// Heads (segments_by_heads, CSR offsets): the partition of load-balancing search. The items are
// merged with the heads (a head before the items of its segment) and the merged sequence is cut
// into tiles of NV steps, so a tile holds at most NV items and heads together, whatever the
// segments' sizes: a million empty segments cost what a million items do. In a tile, every thread
// walks its VT steps serially (its start found by Merge Path in the tile's heads), folding items
// and closing a segment at each head it passes: segments that open and close within one thread
// are finished there. What a thread leaves open is joined by one CTA scan of (heads passed, value
// of the open segment) pairs; the tile's results wait in shared memory, one per segment, and are
// stored coalesced. No tile waits on another: the segment open on entry to a tile is the only one
// that needs its predecessors, so the tile records its own part of it and its aggregate pair, and
// an exclusive scan of the tiles' pairs (a second, small pass: one CTA up to 1,024 tiles) closes them.
//
// Starts by flags or by keys (segments_by_flags, reduce_by_key): tiles of NV items, VT
// consecutive items per thread. A run starts where a flag is set or where a key differs from the
// one before. The same scan (runs started, value of the open run) gives each thread the output
// index of its runs and the value carried into its first one, and each tile its predecessors'
// through look-back; keys and values are staged in shared memory and stored coalesced.
//
// Either kernel folds each item exactly once, in index order: op need only be associative. (The
// heads kernel may read a value twice, or f(i) of transform_segreduce call twice: a tile's last
// row of loads reads on into the next tile's values.)
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/segments.hpp"
#include "../cta/cta_reduce.hpp"
#include "../cta/cta_scan.hpp"
#include "../cta/load_balance.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/lookback.hpp"
#include "../cta/search.hpp"
#include "../platform/memory.hpp"
#include "load_balance.hpp"
#include "preconditions.hpp"
#include "scan.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace mgpu {

namespace detail {
// Steps per thread for tiles of NT threads that keep `bytes` of shared memory per step: up to 15,
// within 44 KiB.
constexpr int steps_within_44k(int bytes, int NT = 128) { return std::max(1, std::min(15, 44 * 1024 / bytes / NT)); }
}  // namespace detail

// The tile shape of the segmented reductions by heads, computing in T, with per-segment values of
// type V cached (empty_t: none) and per-item segment labels (the load-balancing forms): 128
// threads with up to 15 steps each, fewer where a tile's shared memory (a head, a value and a
// result per step, plus a label and a cached value) would pass 44 KiB. On an H100 (int32), 128 x 15,
// 19, 23, 27 and 192 x 15 ran within 4% of each other, 128 x 11 and 256 x 11 8-25% slower
// (bench/results/2026-11-26_h100_segreduce_ab.txt).
template <typename T, typename V = empty_t, bool labels = false>
using segreduce_params = launch_params<128, detail::steps_within_44k(4 + 2 * int(sizeof(T)) + (labels ? 4 : 0) +
                                                                     (has_values_v<V> ? int(sizeof(V)) : 0))>;

// The tile shape of the reductions by runs (reduce_by_key, and segmented reduce by flags): keys of
// type K (empty_t: none) and values of type T, 256 threads with up to 15 items each. On an H100,
// int32 keys and values: 256 x 15 ran 2-4% faster than 128 x 15 on runs of 4, 64 and 1024, and
// the same on runs of 1, in two runs (bench/results/2026-11-25_h100_set_shapes.txt).
template <typename K, typename T>
using reduce_by_key_params =
    launch_params<256, detail::steps_within_44k((has_values_v<K> ? int(sizeof(K)) : 0) + int(sizeof(T)), 256)>;

// Inputs of a few tiles, when no shape is given: smaller tiles, as the scans take
// (scan_few_tiles_params), so that the few there are spread over more SMs and each thread's
// serial walk is shorter. Between one default tile (which one launch takes) and the limit, for
// 4-byte values (and keys). Measured on an H200, graph replays against the default shape
// (bench/tune.cu segmentedsmall, bench/results/2026-11-29_h200_segmented_few_tiles_shapes.txt):
// segmented_reduce of segments of 128, 128 x 7: 10^4 items 1.13x faster, 10^5 1.18x, 10^6 9%
// slower; reduce_by_key of runs of 4, 256 x 7: 10^4 1.24x, 10^5 1.14x, 10^6 the same.
using segreduce_few_tiles_params = launch_params<128, 7>;
using reduce_by_key_few_tiles_params = launch_params<256, 7>;
constexpr std::int64_t segreduce_few_tiles_limit = std::int64_t(1) << 17;      // items and heads
constexpr std::int64_t reduce_by_key_few_tiles_limit = std::int64_t(1) << 18;  // items

// Inputs of at most one tile of this shape (1,024 steps by heads, 1,024 items by keys), 4-byte
// values (and keys), no shape given: one tile still, of more threads that each walk fewer steps,
// the time of a lone CTA being its threads' serial walks. Measured on an H200, 10^3 items, graph
// replays (bench/tune.cu segmentedone, bench/results/2026-11-29_h200_segmented_one_tile_shapes.txt):
// segmented_reduce of segments of 128 1.18x faster than at 128 x 15, reduce_by_key of runs of 4
// 1.69x faster than at 256 x 15 (512 x 2 the same; 128 x 8 and 256 x 7 slower).
using segmented_small_tile_params = launch_params<256, 4>;

namespace detail {

// What a stretch of items leaves for the items after it: how many segments (or runs) it closed,
// and the value of the one still open at its end. (An empty stretch is never combined.)
// A 64-bit count aligned to 4 bytes: it keeps run_carry<T> of a 4-byte T at 12 bytes, which the
// look-back publishes together with its status in one 16-byte word (lookback_state).
class run_count {
 public:
  run_count() = default;
  MGPU_HOST_DEVICE run_count(std::int64_t n) : low_(std::uint32_t(n)), high_(std::uint32_t(std::uint64_t(n) >> 32)) {}
  MGPU_HOST_DEVICE operator std::int64_t() const { return std::int64_t((std::uint64_t(high_) << 32) | low_); }

 private:
  std::uint32_t low_, high_;
};

template <typename T>
struct run_carry {
  run_count closed;
  T value;
};

// The stretches' composition: the open value is the right one's if the right one closed anything,
// else the two folded. Associative whenever op is.
template <typename Op>
struct carry_op {
  Op op;
  template <typename T>
  MGPU_HOST_DEVICE run_carry<T> operator()(const run_carry<T>& a, const run_carry<T>& b) const {
    const std::int64_t b_closed = b.closed;
    return run_carry<T>{std::int64_t(a.closed) + b_closed, b_closed ? b.value : T(op(a.value, b.value))};
  }
};

// acc op x, or x where acc is absent.
template <typename T, typename Op>
MGPU_DEVICE maybe<T> fold_into(const maybe<T>& acc, const T& x, Op op) {
  return maybe<T>{acc.valid ? T(op(acc.value, x)) : x, true};
}

// The CTA scan's callback: publishes the tile's aggregate, and returns (the tile prefix) the
// carry of every tile before it, by decoupled look-back; tile 0 has none.
template <typename T, typename Op>
struct tile_lookback {
  lookback_state<run_carry<T>> state;
  carry_op<Op> combine;
  int tile;
  MGPU_DEVICE maybe<run_carry<T>> operator()(const run_carry<T>& aggregate) const {
    using state_t = lookback_state<run_carry<T>>;
    if (tile == 0) {
      if (lane_id() == 0) state.publish(0, state_t::status_prefix, aggregate);
      return maybe<run_carry<T>>{aggregate, false};
    }
    if (lane_id() == 0) state.publish(tile, state_t::status_aggregate, aggregate);
    run_carry<T> prefix = state.exclusive_prefix(tile, combine);
    if (lane_id() == 0) state.publish(tile, state_t::status_prefix, combine(prefix, aggregate));
    return maybe<run_carry<T>>{prefix, true};
  }
};

// ---- where a tile's values come from (the heads kernel) ----
//
// A source whose values do not depend on the segment (by_segment false) gives them in two steps:
// stage(i) makes the loads that depend only on i, finish<T>(staged) the rest. A tile stages all
// of a thread's items before it finishes any, so that loads that depend on other loads (SpMV's
// x[column]) wait on index loads that are all in flight at once.

// Values read from input[i] (segmented_reduce).
template <typename It>
struct values_from_input {
  static constexpr bool by_segment = false;
  using staged_t = iterator_value_t<It>;
  It input;
  MGPU_DEVICE staged_t stage(std::int64_t i) const { return input[i]; }
  template <typename T>
  MGPU_DEVICE T finish(const staged_t& value) const {
    return T(value);
  }
};

// Values computed as f(i) (transform_segreduce). f may be a device-only lambda.
template <typename F>
struct values_from_index {
  static constexpr bool by_segment = false;
  using staged_t = std::int64_t;
  F f;
  MGPU_DEVICE staged_t stage(std::int64_t i) const { return i; }
  template <typename T>
  MGPU_DEVICE T finish(std::int64_t i) const {
    return T(f(i));
  }
};

// Values computed as f(i, segment, rank[, the segment's cached value]) (lbs_segreduce).
template <typename F>
struct values_from_segment {
  static constexpr bool by_segment = true;
  F f;
  template <typename T, typename... Cached>
  MGPU_DEVICE T at(std::int64_t i, std::int64_t segment, std::int64_t rank, const Cached&... v) const {
    return T(f(i, segment, rank, v...));
  }
};

// Values read from input[sources[segment] + rank], sources cached per segment
// (segmented_reduce_indirect).
template <typename It>
struct values_indirect {
  static constexpr bool by_segment = true;
  It input;
  template <typename T, typename Source>
  MGPU_DEVICE T at(std::int64_t, std::int64_t, std::int64_t rank, const Source& source) const {
    return T(input[std::int64_t(source) + rank]);
  }
};

// What a tile of the heads kernel leaves for the fix-up pass: its aggregate (heads passed, value of
// the segment open at its end) and its part of its local segment 0, the segment open on entry
// (the values of its items before its first head, or of all its items where it has no head;
// absent where there are none).
template <typename T>
struct tile_record {
  run_carry<T> aggregate;
  maybe<T> lead;
};

// The fix-up pass is an exclusive scan of the tiles' aggregates: these read them, and write, for
// every tile that closes its local segment 0 (it has a head, or it is the last tile), that
// segment's value: what the tiles before it carry (prefix) op the tile's own part.
template <typename T>
struct tile_aggregates {
  const tile_record<T>* records;
  MGPU_HOST_DEVICE run_carry<T> operator()(std::int64_t tile) const { return records[tile].aggregate; }
};

// Tile `tile`'s part of the fix-up, given its record and what the tiles before it carry.
template <typename T, typename Out, typename Op>
MGPU_HOST_DEVICE void close_first_segment(const run_carry<T>& prefix, std::int64_t tile, const tile_record<T>& r,
                                          std::int64_t last_tile, Out output, Op op) {
  const std::int64_t heads_before = prefix.closed;  // local segment 0 of the tile is heads_before - 1
  if (heads_before > 0 && (std::int64_t(r.aggregate.closed) > 0 || tile == last_tile))
    output[heads_before - 1] = r.lead.valid ? T(op(prefix.value, r.lead.value)) : prefix.value;
}

template <typename T, typename Out, typename Op>
struct close_first_segments {
  const tile_record<T>* records;
  Out output;
  Op op;
  std::int64_t last_tile;
  MGPU_HOST_DEVICE void operator()(const run_carry<T>& prefix, std::int64_t tile) const {
    close_first_segment(prefix, tile, records[tile], last_tile, output, op);
  }
};

// The fix-up pass of at most fixup_cta_params::nv tiles, in one CTA: each thread reads its
// records once, whole, and one CTA scan gives every tile its prefix. (The scan over load and
// store iterators read each record twice, the second time after the scan: a second dependent
// round trip. ncu, H200, 12 records: 3.5 us for the pass, a launch alone about 1.6 us;
// bench/results/2026-12-02_h200_small_kernels_ncu.txt.)
using fixup_cta_params = launch_params<256, 4>;

template <typename T, typename Out, typename Op>
void close_first_segments_in_cta(const tile_record<T>* records, int tiles, Out output, T init, Op op, context& ctx) {
  using F = fixup_cta_params;
  cta_launch<F>(
      [=] MGPU_LAMBDA(int tid, int) {
        using scan_t = cta_scan<F::nt, run_carry<T>>;
        __shared__ shared_storage<typename scan_t::storage_t> storage;
        const carry_op<Op> combine{op};
        const int first = F::vt * tid;
        // (Every load inside the records: a thread past the last tile reads the last one again.)
        tile_record<T> r[F::vt];
        MGPU_UNROLL
        for (int i = 0; i < F::vt; ++i) r[i] = records[first + i < tiles ? first + i : tiles - 1];
        run_carry<T> mine = r[0].aggregate;  // (a thread past the last tile is not scanned)
        MGPU_UNROLL
        for (int i = 1; i < F::vt; ++i)
          if (first + i < tiles) mine = combine(mine, r[i].aggregate);
        run_carry<T> prefix =
            scan_t::exclusive(tid, mine, storage.get(), combine, run_carry<T>{0, init}, div_up(tiles, F::vt)).scan;
        MGPU_UNROLL
        for (int i = 0; i < F::vt; ++i) {
          if (first + i < tiles) {
            close_first_segment(prefix, first + i, r[i], tiles - 1, output, op);
            prefix = combine(prefix, r[i].aggregate);
          }
        }
      },
      1, ctx);
}

// source.stage(i) as an iterator.
template <typename Source>
struct stages_of {
  Source source;
  MGPU_DEVICE typename Source::staged_t operator[](std::int64_t i) const { return source.stage(i); }
};

// A tile's shared memory: its heads (relative to its first item), its values, a result per local
// segment, and for the load-balancing forms a local segment per item and the cached values of its
// segments. The scan's storage is separate: threads write results while others still scan.
template <int NT, int VT, typename T, typename V, bool labels>
struct segreduce_storage {
  static constexpr int nv = NT * VT;
  int heads[nv + 1];  // then a sentinel past the last item
  T values[nv];
  T results[nv + 1];
  int labels_[labels ? nv : 1];
  V cached[has_values_v<V> ? nv + 1 : 1];
  std::int64_t first_head;  // the head of local segment 0 (load-balancing forms)
  std::int64_t splits[2];   // the tile's own partition search (lbs_bounds::searched)
  union {
    typename cta_scan<NT, run_carry<T>>::storage_t scan;
    typename cta_reduce<NT, T>::storage_t reduce;  // (a tile inside one segment)
  };
};

// The kernel of segreduce_by_heads over `tiles` tiles, a kernel per way of finding a tile's range
// (lbs_bounds, as load_balance_launch): `whole`, the input is one tile, which takes everything
// and leaves no record; `partitioned`, from the partitions p; `searched`, each CTA its own, where
// the grid runs in one or two waves (else the partition pass runs here and the partitioned
// kernel after it).
template <lbs_bounds Bounds, typename P, typename T, typename Source, typename CachedIt, typename HeadIt, typename Out,
          typename Op>
void segreduce_heads_launch(const char* fn, Source source, CachedIt cached, std::int64_t count, HeadIt heads,
                            std::int64_t num_heads, Out output, T init, Op op, const std::int64_t* p,
                            tile_record<T>* records, int tiles, context& ctx) {
  // (Inside the kernel, Source::by_segment and has_values_v<V> rather than local constants: nvcc
  // would capture those.)
  using V = lbs_value_t<CachedIt>;
  constexpr int NT = P::nt, VT = P::vt;
  using storage_t = segreduce_storage<NT, VT, T, V, Source::by_segment>;
  static_assert(sizeof(storage_t) <= 48 * 1024,
                "mgpu: a segmented reduction's tile takes too much shared memory for this value type: pass smaller "
                "launch_params (fewer values per thread) as the first template argument");

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> storage;
    storage_t& s = storage.get();
    Source src = source;  // (captured outside `if constexpr`, as nvcc requires)
    CachedIt cached_values = cached;
    const T init_value = init;
    const std::int64_t item_count = count, head_total = num_heads;
    const std::int64_t* partitions = p;
    const HeadIt tile_heads = heads;
    const lbs_range r =
        lbs_tile_range<Bounds, P::nt, P::nv>(tid, tile, item_count, tile_heads, head_total, partitions, s.splits);
    const int items = int(r.item_end - r.item_begin), head_count = int(r.head_end - r.head_begin);
    const int total = items + head_count;
    const std::int64_t segment_begin = r.head_begin - 1;  // the segment of local segment 0 (-1: none)

    // Load the tile's heads and, where the values do not depend on the segment, its values, every
    // global load issued before the first shared store: loads and stores under one condition
    // (j < count) were interleaved by the compiler, the stores waiting on the loads one by one
    // (ncu, H100). So the loads are unpredicated, whole rows of NT, the last row reading on past
    // the tile (into the next tile's elements, or at the input's end the last element again).
    const int head_rows = div_up(head_count, NT), item_rows = div_up(items, NT);
    array_t<iterator_value_t<HeadIt>, VT> raw_heads;
    array_t<T, VT> x;
    load_rows<NT>(raw_heads, heads, r.head_begin, head_rows, num_heads, tid);
    if constexpr (!Source::by_segment) {
      array_t<typename Source::staged_t, VT> staged;
      load_rows<NT>(staged, stages_of<Source>{src}, r.item_begin, item_rows, item_count, tid);
      MGPU_UNROLL
      for (int i = 0; i < P::vt; ++i)  // (P::vt: VT would be first captured here, as nvcc forbids)
        if (i < item_rows) x[i] = src.template finish<T>(staged[i]);
    }
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      int j = NT * i + tid;
      if (j < head_count) {
        // (In 32 bits: a sorted head of the tile is within items of its first; any other lands
        // somewhere in [0, items], which is all that safety asks.)
        std::uint32_t head = std::uint32_t(raw_heads[i]) - std::uint32_t(r.item_begin);
        s.heads[j] = int(head < std::uint32_t(items) ? head : std::uint32_t(items));
      }
      if constexpr (!Source::by_segment)
        if (j < items) s.values[j] = x[i];
    }
    if (tid == 0) s.heads[head_count] = items + 1;  // the walk's sentinel: after every item
    if constexpr (has_values_v<V>) {
      // Local segment 0 is the one open before the tile's first head (if any); then one per head.
      if (tid == 0 && segment_begin >= 0) s.cached[0] = cached_values[segment_begin];
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        int j = NT * i + tid;
        if (j < head_count) s.cached[j + 1] = cached_values[r.head_begin + j];
      }
    }
    if constexpr (Source::by_segment)
      if (tid == 0) s.first_head = segment_begin >= 0 ? std::int64_t(heads[segment_begin]) : std::int64_t(0);
    __syncthreads();

    // A tile with no head lies inside one segment (segments longer than a tile): its aggregate and
    // its lead are the fold of its items, which each thread takes over VT consecutive ones and one
    // CTA reduction joins in thread order; no merge path, no walk, no scan. (The branch is the
    // same in the whole CTA.)
    // (A plain `if`: nvcc forbids a lambda's first capture of `records` under `if constexpr`.)
    if (Bounds != lbs_bounds::whole && !Source::by_segment && head_count == 0) {
      const int first = VT * tid;
      T acc = s.values[first < items ? first : 0];
      MGPU_UNROLL
      for (int i = 1; i < VT; ++i)
        if (first + i < items) acc = T(op(acc, s.values[first + i]));
      const T fold = cta_reduce<NT, T>::reduce(tid, acc, s.reduce, op, div_up(items, VT));
      if (tid == 0) records[tile] = tile_record<T>{run_carry<T>{0, fold}, maybe<T>{fold, true}};
      return;
    }

    // This thread's steps of the merge of items (relative, 0..items-1) with heads, heads first on
    // ties: a head comes before the items of its segment.
    const int diag = VT * tid < total ? VT * tid : total;
    const int split =
        merge_path<bounds::upper>(make_counting_iterator<int>(0), items, s.heads, head_count, diag, less<>());

    if constexpr (Source::by_segment) {
      // Label each item with its local segment, then compute the values coalesced: f(index,
      // segment, rank[, cached value]). Items before the first head are in no segment: f is not
      // called for them, and their placeholder (init) is never stored.
      int item = split, head = diag - split;
      MGPU_UNROLL
      for (int step = 0; step < VT; ++step) {
        if (diag + step < total) {
          if (head >= head_count || (item < items && item < s.heads[head]))
            s.labels_[item++] = head;
          else
            ++head;
        }
      }
      __syncthreads();
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        int j = NT * i + tid;
        if (j < items) {
          int local = s.labels_[j];
          std::int64_t segment = segment_begin + local, index = r.item_begin + j;
          std::int64_t start = local == 0 ? s.first_head : r.item_begin + s.heads[local - 1];
          if (segment < 0)
            x[i] = init_value;
          else if constexpr (has_values_v<V>)
            x[i] = src.template at<T>(index, segment, index - start, s.cached[local]);
          else
            x[i] = src.template at<T>(index, segment, index - start);
        }
      }
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (NT * i + tid < items) s.values[NT * i + tid] = x[i];
      __syncthreads();
    }

    // The serial walk. Passing head k closes local segment k and opens k + 1 with init. A
    // segment opened and closed here is complete; the first one this thread closes (its lead,
    // local segment first_segment) still lacks what earlier threads and tiles hold of it. The
    // next head's position stays in a register (past the tile's heads, the sentinel), so a step
    // is one comparison. The steps after the first compile to predicated code, no branch (about
    // 15 instructions a step, sm_90 SASS, where an earlier form's branches took about 25 and cost
    // segments of 1 12% at 2^26): the lead is recognized by its index, and every closed segment's
    // slot is written, the lead's too (the thread rewrites that one after the scan).
    int item = split, head = diag - split;
    const int first_segment = head;
    int next_head = s.heads[head];
    // After its first step a thread's open segment always has a value (its first item, or init
    // from the head it passed), so only the first step deals with an absent one: a lead closed
    // there is empty (the segment holds nothing of this thread).
    T acc = init_value, lead_value = init_value;
    bool lead_empty = false;
    if (diag < total) {
      if (item < next_head) {
        acc = s.values[item++];
      } else {
        lead_empty = true;
        next_head = s.heads[++head];
      }
    }
    auto walk_step = [&] {
      const bool is_item = item < next_head;
      if (is_item) {
        acc = T(op(acc, s.values[item]));
      } else {
        s.results[head] = acc;
        if (head == first_segment) lead_value = acc;
        acc = init_value;
        next_head = s.heads[head + 1];
      }
      item += is_item;
      head += !is_item;
    };
    // (Two loops: every thread of a full tile takes all VT steps, and a step count tested at each
    // step cost a branch a step.)
    const int steps = total - diag < VT ? total - diag : VT;
    if (steps == VT) {
      MGPU_UNROLL
      for (int step = 1; step < VT; ++step) walk_step();
    } else {
      MGPU_UNROLL
      for (int step = 1; step < VT; ++step)
        if (step < steps) walk_step();
    }
    const bool lead_closed = head > first_segment;
    const maybe<T> lead{lead_value, !lead_empty};

    // Scan (segments closed, value of the open one) over the threads: every thread learns the
    // value its first segment had on entry to it from within the tile. Every active thread's open
    // value is present: it opened a segment with init, or all its steps were items. What earlier
    // tiles hold of the tile's local segment 0 is not waited for: the tile records its aggregate
    // and its part of that segment, and the fix-up pass closes it (segreduce_by_heads).
    const int active = div_up(total, VT);
    run_carry<T> mine{head - first_segment, acc};
    carry_op<Op> combine{op};
    auto record_aggregate = [&](const run_carry<T>& aggregate) {
      if (Bounds != lbs_bounds::whole && lane_id() == 0) {
        records[tile].aggregate = aggregate;
        if (head_count == 0) records[tile].lead = maybe<T>{aggregate.value, true};
      }
      return maybe<run_carry<T>>{aggregate, false};
    };
    maybe<run_carry<T>> carry = cta_scan<NT, run_carry<T>>::template scan<scan_kind::exclusive>(
                                    tid, mine, s.scan, combine, record_aggregate, active)
                                    .prefix;
    if (VT * tid < total) {
      if (lead_closed) {
        maybe<T> value = lead;
        if (carry.valid) value = maybe<T>{lead.valid ? T(op(carry.value.value, lead.value)) : carry.value.value, true};
        if (first_segment > 0)
          s.results[first_segment] = value.value;  // opened within the tile: present
        else if (Bounds != lbs_bounds::whole)
          records[tile].lead = value;  // (a single tile's local segment 0 is no segment)
      }
      // The last tile also stores the last segment, still open at its end, where it opened it.
      if (tile == tiles - 1 && tid == active - 1 && head_count > 0)
        s.results[head_count] = carry.valid ? combine(carry.value, mine).value : mine.value;
    }
    __syncthreads();

    // Coalesced stores of the segments this tile opened and closed: local segments
    // [1, head_count), and in the last tile the last one too.
    const int last = tile == tiles - 1 ? head_count : head_count - 1;
    for (int local = 1 + tid; local <= last; local += NT) output[segment_begin + local] = s.results[local];
  };
  if constexpr (Bounds == lbs_bounds::searched) {
    if (!search_in_ctas<P, decltype(kernel)>(tiles, ctx)) {
      buffer<std::int64_t> partitions = load_balance_partitions(count, heads, num_heads, P::nv, ctx);
      segreduce_heads_launch<lbs_bounds::partitioned, P>(fn, source, cached, count, heads, num_heads, output, init, op,
                                                         partitions.data(), records, tiles, ctx);
      return;
    }
  }
  cta_launch<P>(kernel, tiles, ctx);
}

// The segmented reduction by heads: output[s] = init op values of segment s (init for an empty
// one), for every segment s of heads[0, num_heads) over items [0, count). `partitions`: from
// load_balance_partitions with spacing P::nv, or null to compute them here (an input of one tile
// needs none). Values come from `source` (above); for the load-balancing forms `cached` is an
// iterator of per-segment values (empty_t: none). No argument checks.
template <typename P, typename T, typename Source, typename CachedIt, typename HeadIt, typename Out, typename Op>
void segreduce_by_heads(const char* fn, Source source, CachedIt cached, std::int64_t count, HeadIt heads,
                        std::int64_t num_heads, Out output, T init, Op op, const std::int64_t* partitions,
                        context& ctx) {
  if (num_heads == 0) return;  // no segments: nothing to write
  const std::int64_t steps = checked_sum(fn, "count", count, "num_heads", num_heads);
  const int tiles = num_tiles<P>(steps, fn);
  if (tiles == 1) {  // (a plan's partition of one tile says nothing the tile does not know)
    segreduce_heads_launch<lbs_bounds::whole, P>(fn, source, cached, count, heads, num_heads, output, init, op, nullptr,
                                                 static_cast<tile_record<T>*>(nullptr), tiles, ctx);
    return;
  }
  // Temporaries first (the tiles' records, the fix-up scan's state, the partitions if a partition
  // pass runs): a failed allocation leaves the output untouched.
  const bool fixup_in_cta = tiles <= fixup_cta_params::nv;
  buffer<tile_record<T>> records(tiles, ctx);
  buffer<unsigned char> scan_temp(fixup_in_cta ? 0 : std::int64_t(scan_temp_bytes<void, run_carry<T>>(tiles)), ctx);
  if (partitions)
    segreduce_heads_launch<lbs_bounds::partitioned, P>(fn, source, cached, count, heads, num_heads, output, init, op,
                                                       partitions, records.data(), tiles, ctx);
  else
    segreduce_heads_launch<lbs_bounds::searched, P>(fn, source, cached, count, heads, num_heads, output, init, op,
                                                    nullptr, records.data(), tiles, ctx);
  // The fix-up pass: a tile waits on no other (no look-back in the kernel above, which measured
  // on an H100 spent about 40% of its time there); the local segments 0 are closed here.
  const tile_record<T>* r = records.data();
  if (fixup_in_cta) return close_first_segments_in_cta(r, tiles, output, init, op, ctx);
  scan_impl<scan_kind::exclusive, void, run_carry<T>>(
      "mgpu::segmented_reduce", make_load_iterator(tile_aggregates<T>{r}), tiles,
      make_store_iterator(close_first_segments<T, Out, Op>{r, output, op, tiles - 1}),
      maybe<run_carry<T>>{run_carry<T>{0, init}, true}, carry_op<Op>{op}, discard_iterator(), scan_temp.data(), ctx);
}

// ---- the reduction by runs (flags, keys) ----

// Runs start where a head flag is set (and at item 0).
struct starts_at_flags {
  static constexpr bool has_keys = false;
  using key_t = empty_t;
  const unsigned* flags;
  MGPU_DEVICE bool starts(std::int64_t i) const { return i == 0 || ((flags[i / 32] >> (i % 32)) & 1u); }
};

// Runs start where a key is not equal to the one before (and at item 0).
template <typename KeysIt, typename Eq>
struct starts_at_new_keys {
  static constexpr bool has_keys = true;
  using key_t = iterator_value_t<KeysIt>;
  KeysIt keys;
  Eq equal;
};

template <int NT, int VT, typename K, typename T>
struct runs_storage {
  static constexpr int nv = NT * VT;
  K keys[has_values_v<K> ? nv + 1 : 1];  // the tile's keys after the one before it; then the run starts' keys
  T values[nv];                          // the tile's values in transit; then the closed runs' values
  std::int64_t runs_before;              // runs started before the tile
  typename cta_scan<NT, run_carry<T>>::storage_t scan;
};

// The reduction by runs: runs start where `starts` says (item 0 always starts one); values_out[r]
// = [init op] the values of run r, keys_out[r] = the key that starts it (key policies only), and
// *count_out = the number of runs (when count_out is not discard_iterator). No argument checks.
template <typename P, typename T, typename Starts, typename ValuesIt, typename KeysOut, typename ValuesOut,
          typename CountOut, typename Op>
void reduce_runs(const char* fn, Starts starts, ValuesIt values, std::int64_t count, KeysOut keys_out,
                 ValuesOut values_out, CountOut count_out, maybe<T> init, Op op, context& ctx) {
  using K = typename Starts::key_t;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  static_assert(VT <= 32, "mgpu: the reductions by runs take at most 32 values per thread");
  using storage_t = runs_storage<NT, VT, K, T>;
  static_assert(sizeof(storage_t) <= 48 * 1024,
                "mgpu: a reduction by keys' tile takes too much shared memory for these types: pass smaller "
                "launch_params (fewer values per thread) as the first template argument");
  if (count == 0) {
    if constexpr (!std::is_same<CountOut, discard_iterator>::value)
      transform([=] MGPU_LAMBDA(std::int64_t) { count_out[0] = 0; }, 1, ctx);
    return;
  }
  const int tiles = num_tiles<P>(count, fn);
  using state_t = lookback_state<run_carry<T>>;
  buffer<unsigned char> state_memory = zeroed_bytes(state_t::storage_bytes(tiles), ctx);
  state_t state(state_memory.data(), tiles);

  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> storage;
    storage_t& s = storage.get();
    Starts run_starts = starts;  // (captured outside `if constexpr`, as nvcc requires)
    KeysOut keys_dst = keys_out;
    CountOut count_dst = count_out;
    const std::int64_t base = std::int64_t(tile) * NV;
    const int valid = int(count - base < NV ? count - base : NV);
    const int first = VT * tid, mine = first < valid ? (valid - first < VT ? valid - first : VT) : 0;

    array_t<T, VT> x = mem_to_reg_thread<NT, VT, T>(values + base, tid, valid, s.values);
    // Bit i: item first + i starts a run.
    unsigned start_bits = 0;
    array_t<K, VT> k;
    if constexpr (Starts::has_keys) {
      // keys[0] is the key before the tile (tile 0: unused), keys[1 + j] the tile's item j, all
      // loaded in the same rows (a load and a store of their own ahead of them held warp 0 up
      // for a memory latency).
      if (base > 0)
        load_to_shared<NT, VT + 1>(run_starts.keys + (base - 1), valid + 1, tid, s.keys);
      else
        load_to_shared<NT, VT + 1>(run_starts.keys, valid, tid, s.keys + 1);
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        if (i < mine) {
          k[i] = s.keys[first + i + 1];
          if (base + first + i == 0 || !run_starts.equal(s.keys[first + i], k[i])) start_bits |= 1u << i;
        }
      }
      __syncthreads();  // the keys array takes the run starts' keys next
    } else {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (i < mine && run_starts.starts(base + first + i)) start_bits |= 1u << i;
    }

    // The run still open at this thread's end: from its last start (with init), or all its items.
    const int last_start = start_bits ? highest_bit(start_bits) : -1;
    maybe<T> acc{x[0], false};
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) {
      if (i < mine && i >= last_start) {
        if (i == last_start)
          acc = maybe<T>{init.valid ? T(op(init.value, x[i])) : x[i], true};
        else
          acc = fold_into(acc, x[i], op);
      }
    }
    run_carry<T> tail{__popc(start_bits), acc.value};

    carry_op<Op> combine{op};
    tile_lookback<T, Op> lookback{state, combine, tile};
    auto prefix_and_runs_before = [&](const run_carry<T>& aggregate) {
      maybe<run_carry<T>> prefix = lookback(aggregate);
      if (lane_id() == 0) s.runs_before = prefix.valid ? std::int64_t(prefix.value.closed) : 0;
      return prefix;
    };
    maybe<run_carry<T>> carry = cta_scan<NT, run_carry<T>>::template scan<scan_kind::exclusive>(
                                    tid, tail, s.scan, combine, prefix_and_runs_before, div_up(valid, VT))
                                    .prefix;
    const std::int64_t runs_before = s.runs_before;

    // Stage what each start closes (the run before it) and opens (its key), at the start's index
    // among the tile's starts. The first start a thread meets closes the run carried into it.
    if (mine > 0) {
      int local = int((carry.valid ? std::int64_t(carry.value.closed) : 0) - runs_before);
      maybe<T> run{x[0], false};
      bool leading = true;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        if (i < mine && i <= last_start) {
          if ((start_bits >> i) & 1u) {
            maybe<T> closed = run;
            if (leading && carry.valid)
              closed = maybe<T>{run.valid ? T(op(carry.value.value, run.value)) : carry.value.value, true};
            if (closed.valid) s.values[local] = closed.value;  // (absent only before item 0)
            if constexpr (Starts::has_keys) s.keys[local] = k[i];
            ++local;
            leading = false;
            run = maybe<T>{init.valid ? T(op(init.value, x[i])) : x[i], true};
          } else {
            run = fold_into(run, x[i], op);
          }
        }
      }
      // The last tile stores the last run and the number of runs.
      if (tile == tiles - 1 && first + mine == valid) {
        run_carry<T> all = carry.valid ? combine(carry.value, tail) : tail;
        values_out[std::int64_t(all.closed) - 1] = all.value;
        if constexpr (!std::is_same<CountOut, discard_iterator>::value) count_dst[0] = std::int64_t(all.closed);
      }
    }
    __syncthreads();

    // Coalesced stores: start j of the tile opens run runs_before + j and closes the one before.
    const int tile_starts = int(s.scan.reduction.closed);
    for (int j = tid; j < tile_starts; j += NT) {
      std::int64_t run = runs_before + j;
      if (run > 0) values_out[run - 1] = s.values[j];
      if constexpr (Starts::has_keys) keys_dst[run] = s.keys[j];
    }
  };
  cta_launch<P>(kernel, tiles, ctx);
}

// Whether key_equal(key, key) can be called and returns bool: what reduce_by_key asks of it, so
// that an operator passed in its place (op and key_equal swapped, as in Thrust's order) fails at
// the call. (A __device__-only lambda cannot be asked on the host; nvcc checks it where it is
// called.)
template <typename Eq, typename K, typename = void>
struct returns_bool : std::false_type {};
template <typename Eq, typename K>
struct returns_bool<Eq, K,
                    std::enable_if_t<std::is_same<std::invoke_result_t<const Eq&, const K&, const K&>, bool>::value>>
    : std::true_type {};
template <typename Eq, typename K>
constexpr bool is_key_equal_v =
#if defined(MGPU_BACKEND_CUDA)
    __nv_is_extended_device_lambda_closure_type(Eq) ||
#endif
    returns_bool<Eq, K>::value;

// The checks every segmented reduction by heads makes: counts, pointers (`output` has an entry
// per segment), and in checked mode the heads.
template <typename HeadIt, typename Out>
void check_segreduce_heads(const char* fn, std::int64_t count, segment_heads<HeadIt> segments, Out output,
                           context& ctx) {
  check_count(fn, "count", count);
  check_count(fn, "num_heads", segments.num_heads);
  checked_sum(fn, "count", count, "num_heads", segments.num_heads);
  check_pointer(fn, "heads", segments.heads, segments.num_heads);
  check_pointer(fn, "output", output, segments.num_heads);
  if (ctx.checked())
    check_sorted_indices(fn, "heads", segments.heads, segments.num_heads, 0, count, "[0, count]", false, ctx);
}

// A segmented reduction of values from `source` over any segment description: by heads through
// the load-balancing partition, by flags through the runs kernel (`flags_input` reads the values
// there).
template <typename params, typename Source, typename FlagsInput, typename Segments, typename Out, typename T,
          typename Op>
void segreduce_dispatch(const char* fn, Source source, FlagsInput flags_input, std::int64_t count, Segments segments,
                        Out output, T init, Op op, context& ctx) {
  MGPU_REQUIRE_SEGMENTS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    check_segreduce_heads(fn, count, segments, output, ctx);
    auto run = [&](auto shape) {
      segreduce_by_heads<decltype(shape), T>(fn, source, empty_t(), count, segments.heads, segments.num_heads, output,
                                             init, op, nullptr, ctx);
    };
    using P = params_or<params, segreduce_params<T>>;
    const std::int64_t steps = count + segments.num_heads;  // (checked above not to overflow)
    if constexpr (std::is_void<params>::value && sizeof(T) <= 4) {
      if (steps <= segmented_small_tile_params::nv) return run(segmented_small_tile_params());
      if (steps > P::nv && steps <= segreduce_few_tiles_limit) return run(segreduce_few_tiles_params());
    }
    run(P());
  } else if constexpr (is_segment_description_v<Segments>) {
    check_count(fn, "count", count);
    check_pointer(fn, "flags", segments.flags, div_up(count, std::int64_t(32)));
    check_pointer(fn, "output", output, count > 0 ? 1 : 0);
    using P = params_or<params, reduce_by_key_params<empty_t, T>>;
    reduce_runs<P, T>(fn, starts_at_flags{segments.flags}, flags_input, count, discard_iterator(), output,
                      discard_iterator(), maybe<T>{init, true}, op, ctx);
  }
}

// it[i] == f(offset + i), with no value type: f may be a device-only lambda (the runs kernel
// converts what it returns).
template <typename F>
struct index_values {
  F f;
  std::int64_t offset;
  MGPU_DEVICE auto operator[](std::int64_t i) const { return f(offset + i); }
  MGPU_DEVICE index_values operator+(std::int64_t n) const { return index_values{f, offset + n}; }
};

}  // namespace detail

// Segmented reduction: output[s] = init op input[b] op input[b + 1] op ... op input[e - 1] for
// every segment s = [b, e) (init for an empty segment), computed in T, the type of init, and
// converted to the output's type.
//
// `segments` is segments_by_heads(heads, num_segments) (CSR offsets of num_segments + 1 entries:
// segments_by_heads(offsets, num_segments)): output has num_segments entries, and positions before
// heads[0] belong to no segment and are not reduced. Or segments_by_flags(flags): a segment starts
// at every set flag and at position 0, and output has one entry per segment, in order (1 + the
// number of flags set in [1, count); none when count is 0).
//
// op must be associative; it need not be commutative (values are combined in index order). T
// must be trivially copyable. output must not overlap input. Stream-ordered; the host never waits.
// Throws std::invalid_argument for negative counts, null pointers or overlap; in checked mode,
// mgpu::precondition_error if the heads are not sorted or not in [0, count].
template <typename params = void, typename InputIt, typename Segments, typename Out, typename T, typename Op>
void segmented_reduce(InputIt input, std::int64_t count, Segments segments, Out output, T init, Op op, context& ctx) {
  const char* fn = "mgpu::segmented_reduce";
  detail::check_count(fn, "count", count);
  detail::check_pointer(fn, "input", input, count);
  if constexpr (is_segment_heads_v<Segments>)
    detail::check_disjoint(fn, "output", input, count, output, segments.num_heads);
  detail::segreduce_dispatch<params>(fn, detail::values_from_input<InputIt>{input}, input, count, segments, output,
                                     init, op, ctx);
}

// As segmented_reduce, with the values computed: f(i) for i in [0, count). f is a device lambda
// (MGPU_LAMBDA) or functor; its result is converted to T. With heads, f is called for every index
// in [0, count), those before heads[0] included (their values are not used), and may be called
// more than once for an index: f must depend on i alone.
template <typename params = void, typename F, typename Segments, typename Out, typename T, typename Op>
void transform_segreduce(F f, std::int64_t count, Segments segments, Out output, T init, Op op, context& ctx) {
  detail::segreduce_dispatch<params>("mgpu::transform_segreduce", detail::values_from_index<F>{f},
                                     detail::index_values<F>{f, 0}, count, segments, output, init, op, ctx);
}

// Indirect segmented reduction: segment s = [heads[s], heads[s + 1]) (the last ends at count)
// reduces its own stretch of input, starting at sources[s]:
//   output[s] = init op input[sources[s]] op ... op input[sources[s] + size_s - 1]
// (init when size_s is 0). count is the total size of the segments, and sources has num_segments
// entries (as interval_gather's `gather`: a reduction of interval_gather's output). Each tile
// reads the sources of its segments once, coalesced. Heads only. Throws as segmented_reduce does.
template <typename params = void, typename InputIt, typename Segments, typename SourcesIt, typename Out, typename T,
          typename Op>
void segmented_reduce_indirect(InputIt input, std::int64_t count, Segments segments, SourcesIt sources, Out output,
                               T init, Op op, context& ctx) {
  const char* fn = "mgpu::segmented_reduce_indirect";
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    detail::check_pointer(fn, "input", input, count > 0 ? 1 : 0);
    detail::check_pointer(fn, "sources", sources, segments.num_heads);
    detail::check_segreduce_heads(fn, count, segments, output, ctx);
    using P = params_or<params, segreduce_params<T, iterator_value_t<SourcesIt>, true>>;
    detail::segreduce_by_heads<P, T>(fn, detail::values_indirect<InputIt>{input}, sources, count, segments.heads,
                                     segments.num_heads, output, init, op, nullptr, ctx);
  }
}

// Segmented reduction over load-balancing search: the values are f(index, segment, rank) for every
// work item index in [0, count) in a segment (rank = index - heads[segment]), and
//   output[s] = init op f(heads[s], s, 0) op f(heads[s] + 1, s, 1) op ...   (init when empty).
// f is not called for items before heads[0]. Heads only. Throws as segmented_reduce does.
template <typename params = void, typename F, typename Segments, typename Out, typename T, typename Op>
void lbs_segreduce(F f, std::int64_t count, Segments segments, Out output, T init, Op op, context& ctx) {
  const char* fn = "mgpu::lbs_segreduce";
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    detail::check_segreduce_heads(fn, count, segments, output, ctx);
    using P = params_or<params, segreduce_params<T, empty_t, true>>;
    detail::segreduce_by_heads<P, T>(fn, detail::values_from_segment<F>{f}, empty_t(), count, segments.heads,
                                     segments.num_heads, output, init, op, nullptr, ctx);
  }
}

// As above, with each segment's value cached: f(index, segment, rank, segment_values[segment]),
// the values of a tile's segments read once, coalesced (as transform_lbs's cached form).
template <typename params = void, typename F, typename Segments, typename ValuesIt, typename Out, typename T,
          typename Op>
void lbs_segreduce(F f, std::int64_t count, Segments segments, ValuesIt segment_values, Out output, T init, Op op,
                   context& ctx) {
  const char* fn = "mgpu::lbs_segreduce";
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    detail::check_pointer(fn, "segment_values", segment_values, segments.num_heads);
    detail::check_segreduce_heads(fn, count, segments, output, ctx);
    using P = params_or<params, segreduce_params<T, iterator_value_t<ValuesIt>, true>>;
    detail::segreduce_by_heads<P, T>(fn, detail::values_from_segment<F>{f}, segment_values, count, segments.heads,
                                     segments.num_heads, output, init, op, nullptr, ctx);
  }
}

// Reduction by key: the keys split into runs of consecutive equal keys (key_equal(a, b) says
// equal), and for each run r, in order:
//   keys_out[r] = its first key, values_out[r] = values[b] op ... op values[e - 1]
// computed in the values' value type (no init: a run is never empty, as in thrust::reduce_by_key
// and cub::DeviceReduce::ReduceByKey). *count_out receives the number of runs, in device memory
// (0 when count is 0). keys_out and values_out need room for as many runs as there may be (count
// at most). op must be associative, need not be commutative; key_equal must return bool and be an
// equivalence. Outputs must not overlap the inputs. Stream-ordered; the host never waits.
// Throws std::invalid_argument for a negative count, null pointers or overlap.
template <typename params = void, typename KeysIt, typename ValuesIt, typename KeysOut, typename ValuesOut,
          typename CountOut, typename Op, typename KeyEqual>
void reduce_by_key(KeysIt keys, ValuesIt values, std::int64_t count, KeysOut keys_out, ValuesOut values_out,
                   CountOut count_out, Op op, KeyEqual key_equal, context& ctx) {
  using K = iterator_value_t<KeysIt>;
  using T = iterator_value_t<ValuesIt>;
  static_assert(detail::is_key_equal_v<KeyEqual, K>,
                "mgpu::reduce_by_key: key_equal must be callable as key_equal(key, key) and return bool (mgpu::"
                "equal_to<>, or a lambda written [=] MGPU_HOST_DEVICE_LAMBDA (const K& a, const K& b) { ... }); it "
                "follows op, as the optional last functor");
  if constexpr (detail::is_key_equal_v<KeyEqual, K>) {
    const char* fn = "mgpu::reduce_by_key";
    detail::check_count(fn, "count", count);
    detail::check_pointer(fn, "keys", keys, count);
    detail::check_pointer(fn, "values", values, count);
    detail::check_pointer(fn, "keys_out", keys_out, count > 0 ? 1 : 0);
    detail::check_pointer(fn, "values_out", values_out, count > 0 ? 1 : 0);
    detail::check_pointer(fn, "count_out", count_out, 1);
    // (The outputs' sizes, the number of runs, are not known here: an output that starts inside an
    // input is caught, one that starts before it and runs into it is not.)
    const std::int64_t first = count > 0 ? 1 : 0;
    detail::check_disjoint(fn, "keys_out", keys, count, keys_out, first);
    detail::check_disjoint(fn, "keys_out", values, count, keys_out, first);
    detail::check_disjoint(fn, "values_out", keys, count, values_out, first);
    detail::check_disjoint(fn, "values_out", values, count, values_out, first);
    auto run = [&](auto shape) {
      detail::reduce_runs<decltype(shape), T>(fn, detail::starts_at_new_keys<KeysIt, KeyEqual>{keys, key_equal}, values,
                                              count, keys_out, values_out, count_out, maybe<T>{T{}, false}, op, ctx);
    };
    using P = params_or<params, reduce_by_key_params<K, T>>;
    if constexpr (std::is_void<params>::value && sizeof(K) <= 4 && sizeof(T) <= 4) {
      if (count <= segmented_small_tile_params::nv) return run(segmented_small_tile_params());
      if (count > P::nv && count <= reduce_by_key_few_tiles_limit) return run(reduce_by_key_few_tiles_params());
    }
    run(P());
  }
}

// The same with key_equal = equal_to<>.
template <typename params = void, typename KeysIt, typename ValuesIt, typename KeysOut, typename ValuesOut,
          typename CountOut, typename Op>
void reduce_by_key(KeysIt keys, ValuesIt values, std::int64_t count, KeysOut keys_out, ValuesOut values_out,
                   CountOut count_out, Op op, context& ctx) {
  reduce_by_key<params>(keys, values, count, keys_out, values_out, count_out, op, equal_to<>(), ctx);
}

}  // namespace mgpu
