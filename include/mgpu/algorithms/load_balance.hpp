// mgpu/algorithms/load_balance.hpp
//
// Load-balancing search: for each of `count` work items, the segment that generated it, given the
// segments' heads (the exclusive scan of the number of items each segment generates). It is the
// inverse of that scan, and the partitioning behind every function that expands or contracts
// data (interval moves, joins, segmented reduce): transform_lbs calls f(index, segment, rank)
// once per item, with an equal share of items and heads per thread whatever the segment sizes.
//
// 1. Partition: one Merge Path search per tile of NV steps of the items-and-heads merge
//    (load_balance_partitions).
// 2. Each tile labels its items (cta_load_balance) and calls f for them, neighbouring threads on
//    neighbouring items. With `segment_values`, the tile first loads the values of its segments
//    into shared memory, so f receives its segment's value without a scattered read.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../core/segments.hpp"
#include "../cta/load_balance.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace mgpu {

// The tile shape for segment values of type V (empty_t: none cached): 128 x 15 without values, 128 x
// 11 with them. A tile keeps a head (2 bytes), a label (2) and a cached value per step in shared
// memory; values too large for 46 KiB at that shape get fewer steps per thread. Measured on an
// H200 (bench/results/2026-11-29_h200_lbs_shapes.txt, mgpu_tune 26 lbsshapes): without values
// 128 x 15 took 1.04x-1.16x less time than 128 x 11 over segments of 1, 8 and 1024; with int
// values (interval_expand) 128 x 11 and 128 x 15 within 2.5% of each other, larger tiles slower.
// (On an H100, before the tile's instructions came down, 256-thread tiles were up to 30% slower:
// bench/results/2026-11-25_h100_search_tiles_ab.txt.)
template <typename V = empty_t>
using load_balance_params =
    launch_params<128, has_values_v<V> ? std::min(11, (46 * 1024 / (4 + int(sizeof(V)))) / 128) : 15>;

// partitions[t] = the number of items before tile t's first step of the merge of items
// [0, count) with heads[0, num_heads) (heads first on ties), for tiles of `spacing` steps: what
// cta_load_balance::run needs. Stream-ordered.
template <typename HeadIt>
buffer<std::int64_t> load_balance_partitions(std::int64_t count, HeadIt heads, std::int64_t num_heads,
                                             std::int64_t spacing, context& ctx) {
  return merge_path_partitions<bounds::upper>(make_counting_iterator<std::int64_t>(0), count, heads, num_heads, spacing,
                                              less<>(), ctx);
}

namespace detail {

// The argument checks of every function on load-balancing search (heads in checked mode).
// `values_name`: what the function calls its per-segment values.
template <typename HeadIt, typename ValuesIt>
void check_load_balance(const char* fn, std::int64_t count, segment_heads<HeadIt> segments, ValuesIt values,
                        const char* values_name, context& ctx) {
  check_count(fn, "count", count);
  check_count(fn, "num_heads", segments.num_heads);
  checked_sum(fn, "count", count, "num_heads", segments.num_heads);
  check_pointer(fn, "heads", segments.heads, segments.num_heads);
  if constexpr (!std::is_same<ValuesIt, empty_t>::value) check_pointer(fn, values_name, values, segments.num_heads);
  if (ctx.checked())
    check_sorted_indices(fn, "heads", segments.heads, segments.num_heads, 0, count, "[0, count]", false, ctx);
}

// The type of the values a load-balancing kernel caches (empty_t: none).
template <typename ValuesIt>
using lbs_value_t =
    std::conditional_t<std::is_same<ValuesIt, empty_t>::value, empty_t,
                       iterator_value_t<std::conditional_t<std::is_same<ValuesIt, empty_t>::value, int*, ValuesIt>>>;

// Whether f reads what it writes, in two calls: f.read(index, segment, rank[, value]) returns a
// read_t, which f.write(index, segment, read) stores. A tile makes every read of a thread's items
// before its first write: one call that loads and stores, item after item, waits a memory latency
// an item, the compiler keeping each load after the store before it (which may alias it, as far
// as it knows).
template <typename F, typename = void>
struct reads_then_writes : std::false_type {};
template <typename F>
struct reads_then_writes<F, std::void_t<typename F::read_t>> : std::true_type {};

// A tile's shared memory: the load-balancing search's, and the cached values of its segments.
template <typename LBS, typename V, int N>
struct lbs_tile_storage {
  typename LBS::storage_t lbs;
  V values[N];
};

// Where a load-balancing kernel's tiles find their ranges: `whole`, the only tile of an input
// of at most NV steps, takes everything; `partitioned` tiles read a partition pass's entries;
// `searched` tiles search their own bounds (cta_merge_path_pair), for grids of one or two waves.
// A kernel apiece: the test of a null pointer in a shared kernel cost interval_expand 4 registers
// and up to 19% at 2^26 on an H100.
enum class lbs_bounds { whole, partitioned, searched };

// Tile `tile`'s range (of NV steps of the items-and-heads merge) found as Bounds says: `p`, the
// partitions, for `partitioned` only; `splits`, two std::int64_t of shared memory, for `searched`
// only, which syncs the CTA (call it with every thread).
template <lbs_bounds Bounds, int NT, int NV, typename HeadIt>
MGPU_DEVICE lbs_range lbs_tile_range(int tid, int tile, std::int64_t count, HeadIt heads, std::int64_t num_heads,
                                     const std::int64_t* p, std::int64_t* splits) {
  if constexpr (Bounds == lbs_bounds::whole) {
    return lbs_range::whole(count, num_heads);
  } else if constexpr (Bounds == lbs_bounds::partitioned) {
    return lbs_range::of_tile(tile, NV, count, num_heads, p);
  } else {
    const std::int64_t first = std::int64_t(tile) * NV, total = count + num_heads;
    const std::int64_t last = first + NV < total ? first + NV : total;
    std::int64_t x0, x1;
    cta_merge_path_pair<NT, bounds::upper>(tid, counting_iterator<std::int64_t>(0), count, heads, num_heads, first,
                                           last, less<>(), splits, x0, x1);
    return lbs_range::of_splits(tile, NV, count, num_heads, x0, x1);
  }
}

// A CTA that labels its tile and calls f for every item in it: f(index, segment, rank), plus the
// segment's value when there are values to cache. Items before the first head have segment -1
// and are passed too; the public functions decide what to do with them. `p`: the partitions, for
// lbs_bounds::partitioned only. A `searched` grid of more than two waves runs a partition pass and
// the `partitioned` kernel instead.
template <lbs_bounds Bounds, typename P, typename F, typename HeadIt, typename ValuesIt>
void load_balance_launch(const char* fn, F f, std::int64_t count, HeadIt heads, std::int64_t num_heads, ValuesIt values,
                         const std::int64_t* p, context& ctx) {
  constexpr bool cached = !std::is_same<ValuesIt, empty_t>::value;
  using value_t = lbs_value_t<ValuesIt>;
  constexpr int NT = P::nt, VT = P::vt, NV = P::nv;
  using lbs = cta_load_balance<NT, VT>;
  using storage_t = lbs_tile_storage<lbs, value_t, cached ? NV + 1 : 1>;
  static_assert(sizeof(storage_t) <= 48 * 1024,
                "mgpu: the segment values to cache take too much shared memory at this tile size: cache a smaller "
                "type, or pass smaller launch_params (fewer values per thread) as the first template argument");
  const int tiles = num_tiles<P>(count + num_heads, fn);
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<storage_t> storage;
    __shared__ std::int64_t splits[2];
    storage_t& s = storage.get();
    F call = f;  // (captured outside `if constexpr`, as nvcc requires)
    ValuesIt segment_values = values;
    const HeadIt tile_heads = heads;
    const std::int64_t* partitions = p;
    const lbs_range r =
        lbs_tile_range<Bounds, P::nt, P::nv>(tid, tile, count, tile_heads, num_heads, partitions, splits);
    typename lbs::tile_t t = lbs::run(tid, r, tile_heads, s.lbs);
    if constexpr (!std::is_same<ValuesIt, empty_t>::value) {  // (not `cached`: nvcc would capture it)
      // Local segment 0 is the one before the tile's first head (if any); then one per head.
      const std::int64_t first = t.segment_begin + 1;
      const int heads = t.segment_count - 1;
      if (tid == 0 && t.segment_begin >= 0) s.values[0] = segment_values[t.segment_begin];
      if constexpr (sizeof(value_t) <= 4) {
        // In rows of NT, the rows past the last skipped (a tile of long segments holds one):
        // interval_expand of int32 up to 1.07x faster than with every row predicated, but a
        // join's 8-byte values 3% slower (bench/results/2026-11-29_h200_lbs_rows_skipped_ab.txt).
        const int rows = (heads + P::nt - 1) / P::nt;
        array_t<value_t, P::vt> v;
        load_rows<P::nt, rows_past::skipped>(v, segment_values, first, rows, first + heads, tid);
        MGPU_UNROLL
        for (int i = 0; i < P::vt; ++i) {
          if (i >= rows) break;
          if (P::nt * i + tid < heads) s.values[1 + P::nt * i + tid] = v[i];
        }
        __syncthreads();
      } else {
        load_to_shared<P::nt, P::vt>(segment_values + first, heads, tid, s.values + 1);
      }
    }
    // Every label and cached value of the thread's items is read before f is called for the first:
    // f's stores (through pointers that may, as far as the compiler knows, point into shared memory)
    // would otherwise hold each item's reads back until the item before is stored, a chain of two
    // shared-memory round trips an item with cached values (SASS, sm_90): interval_expand 1.04x-1.07x
    // faster at 2^26 on an H200. The ranks are formed at the calls: read ahead too, their 64 bits an
    // item in registers made a join of 2^26 keys 6% slower (what f does not use, the ranks of
    // interval_expand say, the compiler drops; bench/results/2026-11-29_h200_lbs_batched_reads_ab.txt).
    array_t<int, VT> local;
    array_t<value_t, VT> value;
    MGPU_UNROLL
    for (int i = 0; i < VT; ++i) local[i] = NT * i + tid < t.item_count ? t.local_segment(NT * i + tid) : 0;
    if constexpr (!std::is_same<ValuesIt, empty_t>::value) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) value[i] = s.values[local[i]];
    }
    if constexpr (reads_then_writes<F>::value) {
      array_t<typename F::read_t, VT> read;
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        int j = NT * i + tid;
        if (j < t.item_count) {
          if constexpr (!std::is_same<ValuesIt, empty_t>::value)
            read[i] = call.read(t.item_begin + j, t.segment_begin + local[i], t.rank(j, local[i]), value[i]);
          else
            read[i] = call.read(t.item_begin + j, t.segment_begin + local[i], t.rank(j, local[i]));
        }
      }
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i)
        if (NT * i + tid < t.item_count) call.write(t.item_begin + NT * i + tid, t.segment_begin + local[i], read[i]);
    } else {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) {
        int j = NT * i + tid;
        if (j < t.item_count) {
          if constexpr (!std::is_same<ValuesIt, empty_t>::value)
            call(t.item_begin + j, t.segment_begin + local[i], t.rank(j, local[i]), value[i]);
          else
            call(t.item_begin + j, t.segment_begin + local[i], t.rank(j, local[i]));
        }
      }
    }
  };
  if constexpr (Bounds == lbs_bounds::searched) {
    if (!search_in_ctas<P, decltype(kernel)>(tiles, ctx)) {
      buffer<std::int64_t> partitions = load_balance_partitions(count, heads, num_heads, P::nv, ctx);
      load_balance_launch<lbs_bounds::partitioned, P>(fn, f, count, heads, num_heads, values, partitions.data(), ctx);
      return;
    }
  }
  cta_launch<P>(kernel, tiles, ctx);
}

// load_balance_launch over items [0, count): one launch for an input of one tile or of one or two
// waves of tiles, else the partition pass and the launch. No argument checks.
template <typename P, typename F, typename HeadIt, typename ValuesIt>
void load_balance_tiles(const char* fn, F f, std::int64_t count, HeadIt heads, std::int64_t num_heads, ValuesIt values,
                        context& ctx) {
  if (count == 0) return;
  if (count + num_heads <= P::nv)
    load_balance_launch<lbs_bounds::whole, P>(fn, f, count, heads, num_heads, values, nullptr, ctx);
  else
    load_balance_launch<lbs_bounds::searched, P>(fn, f, count, heads, num_heads, values, nullptr, ctx);
}

// Calls f for the items in a segment only.
template <typename F, bool = reads_then_writes<F>::value>
struct in_segments_only {
  F f;
  template <typename... Value>
  MGPU_DEVICE void operator()(std::int64_t index, std::int64_t segment, std::int64_t rank, const Value&... v) const {
    if (segment >= 0) f(index, segment, rank, v...);
  }
};
template <typename F>
struct in_segments_only<F, true> {
  F f;
  using read_t = typename F::read_t;
  template <typename... Value>
  MGPU_DEVICE read_t read(std::int64_t index, std::int64_t segment, std::int64_t rank, const Value&... v) const {
    read_t x{};
    if (segment >= 0) x = f.read(index, segment, rank, v...);
    return x;
  }
  MGPU_DEVICE void write(std::int64_t index, std::int64_t segment, const read_t& x) const {
    if (segment >= 0) f.write(index, segment, x);
  }
};

// A public function on load-balancing search: checks, then f(index, segment, rank[, value]) for
// every item in a segment.
template <typename params, typename F, typename Segments, typename ValuesIt>
void lbs_call(const char* fn, F f, std::int64_t count, Segments segments, ValuesIt values, const char* values_name,
              context& ctx) {
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  if constexpr (is_segment_heads_v<Segments>) {
    check_load_balance(fn, count, segments, values, values_name, ctx);
    load_balance_tiles<params_or<params, load_balance_params<lbs_value_t<ValuesIt>>>>(
        fn, in_segments_only<F>{f}, count, segments.heads, segments.num_heads, values, ctx);
  }
}

// output[index] = segment.
template <typename Out>
struct segment_writer {
  Out output;
  MGPU_DEVICE void operator()(std::int64_t index, std::int64_t segment, std::int64_t) const { output[index] = segment; }
};

}  // namespace detail

// Load-balancing search: output[i] = the segment of work item i, for i in [0, count): the last
// segment whose head is at or before i (std::upper_bound(heads, heads + num_heads, i) - 1), or -1
// for an item before the first head. `segments` is segments_by_heads(heads, num_segments), the
// heads sorted ascending (the exclusive scan of the segments' item counts; empty segments repeat a
// head). Output values are converted to the output's type. Stream-ordered.
// Throws std::invalid_argument for negative counts or null pointers; in checked mode,
// mgpu::precondition_error if the heads are not sorted or not in [0, count].
template <typename params = void, typename Segments, typename Out>
void load_balance_search(std::int64_t count, Segments segments, Out output, context& ctx) {
  const char* fn = "mgpu::load_balance_search";
  MGPU_REQUIRE_SEGMENT_HEADS(Segments);
  detail::check_pointer(fn, "output", output, count);
  if constexpr (is_segment_heads_v<Segments>) {
    detail::check_load_balance(fn, count, segments, empty_t(), "", ctx);
    detail::load_balance_tiles<params_or<params, load_balance_params<>>>(
        fn, detail::segment_writer<Out>{output}, count, segments.heads, segments.num_heads, empty_t(), ctx);
  }
}

// Calls f(index, segment, rank) on the device for every work item index in [0, count) that lies in
// a segment: segment as load_balance_search finds it, rank = index - heads[segment] its position
// within the segment. Each thread's items are NT apart, so neighbouring threads get neighbouring
// items. f is a device lambda (MGPU_LAMBDA) or functor. Stream-ordered. Throws as
// load_balance_search does.
template <typename params = void, typename F, typename Segments>
void transform_lbs(F f, std::int64_t count, Segments segments, context& ctx) {
  transform_lbs<params>(f, count, segments, empty_t(), ctx);
}

// As above, with each segment's value cached: f(index, segment, rank, segment_values[segment]).
// The values of a tile's segments are loaded once, coalesced, into shared memory.
// (segment_values of type empty_t: the form above.)
template <typename params = void, typename F, typename Segments, typename ValuesIt>
void transform_lbs(F f, std::int64_t count, Segments segments, ValuesIt segment_values, context& ctx) {
  detail::lbs_call<params>("mgpu::transform_lbs", f, count, segments, segment_values, "segment_values", ctx);
}

}  // namespace mgpu
