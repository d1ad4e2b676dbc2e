// mgpu/algorithms/mergesort.hpp
//
// mergesort: a stable sort by any strict weak order. Each CTA sorts one tile of NV keys in
// registers and shared memory (cta_sort); then log2(tiles) passes each merge pairs of sorted runs
// of doubling length. A pass first finds, by Merge Path, where every output tile starts in its
// pair of runs (a partition pass, or each tile's CTA where the grid is one or two waves), then
// runs merge_tile (merge.hpp) on each tile. Keys and values ping-pong between the caller's arrays
// and one temporary copy; the pass count decides where the first stage writes so that the last
// pass lands in the caller's arrays.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/cta_sort.hpp"
#include "../cta/loadstore.hpp"
#include "merge.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace mgpu {

// The tile shape for keys of type K with values of type V (empty_t: keys only). Keys of 4 bytes
// alone ask for 8 CTAs an SM (32 registers, 4 bytes spilled in the merge pass, which had 40 and 6
// CTAs): 1.05x faster at 2^26 on an H100 (bench/results/2026-11-27_h100_merge_keys_caps.txt).
// Pairs of 8 bytes or less ask for 5 CTAs an SM (48 registers, no spills): the merge pass took
// 48 uncapped until its tile's loads chose their list's base first (load_two_lists_to_shared),
// then 64 (4 CTAs), and ran 2% slower; tighter caps spill, and ran slower.
template <typename K, typename V = empty_t>
using mergesort_params = launch_params<256, (sizeof(K) + (has_values_v<V> ? sizeof(V) : 0) > 8 ? 7 : 11),
                                       (sizeof(K) <= 4 && !has_values_v<V>                   ? 8
                                        : sizeof(K) + (has_values_v<V> ? sizeof(V) : 0) <= 8 ? 5
                                                                                             : 0)>;

// The shape of a mergesort of more than mergesort_large_threshold 4-byte keys alone, when no shape
// is given: on sm_90 128 x 23 at 8 CTAs an SM (elsewhere mergesort_params). On an H200 against
// 256 x 11 x 8 (bench/tune.cu sortcaps, bench/results/2026-11-29_h200_mergesort_caps.txt; then
// the benchmark, bench/results/2026-11-29_h200_join_index_scan_large_ab.txt): 1.04x faster at
// 2^22 and 2^26, but graph replays of 10^3-10^6 keys 0.74x-0.95x (one tile and a few: a thread's
// longer sorting network and serial merges on the critical path), hence the threshold.
template <typename K, typename V = empty_t>
using mergesort_large_params =
    std::conditional_t<(sizeof(K) <= 4 && !has_values_v<V>),
                       arch_params<mergesort_params<K, V>, launch_params<128, 23, 8>>, mergesort_params<K, V>>;
constexpr std::int64_t mergesort_large_threshold = std::int64_t(1) << 21;

namespace detail {

template <typename P, typename K, typename V>
struct blocksort_storage {
  union {
    typename cta_sort<P::nt, P::vt, K, V>::storage_t sort;
    K keys[P::nv];
    V values[P::nv];
  };
};

// Sorts each tile of keys_in/values_in into keys_out/values_out (which may be the same arrays).
template <typename P, typename K, typename V, typename KeysIn, typename ValuesIn, typename Comp>
void blocksort(KeysIn keys_in, ValuesIn values_in, std::int64_t count, K* keys_out, V* values_out, Comp comp,
               context& ctx) {
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile) {
    __shared__ shared_storage<blocksort_storage<P, K, V>> storage;
    blocksort_storage<P, K, V>& s = storage.get();
    std::int64_t first = std::int64_t(tile) * P::nv;
    int valid = int(count - first < P::nv ? count - first : P::nv);
    // (nvcc: a device lambda must not first capture a variable inside `if constexpr`.)
    ValuesIn tile_values_in = values_in;
    V* tile_values_out = values_out;
    array_t<K, P::vt> keys = mem_to_reg_thread<P::nt, P::vt, K>(keys_in + first, tid, valid, s.keys);
    array_t<V, P::vt> values;
    if constexpr (has_values_v<V>)
      values = mem_to_reg_thread<P::nt, P::vt, V>(tile_values_in + first, tid, valid, s.values);
    cta_sort<P::nt, P::vt, K, V>::sort(keys, values, s.sort, tid, valid, comp);
    reg_to_mem_thread<P::nt, P::vt>(keys, keys_out + first, tid, valid, s.keys);
    if constexpr (has_values_v<V>)
      reg_to_mem_thread<P::nt, P::vt>(values, tile_values_out + first, tid, valid, s.values);
  };
  cta_launch<P>(kernel, num_tiles<P>(count), ctx);
}

// Where merge pass with runs of `run` elements puts tile boundaries: run pairs start every 2 * run
// elements; partition[t] is the position in the pair's first run where output tile t starts.
struct run_pair {
  std::int64_t first, a_end, b_end;
  MGPU_HOST_DEVICE run_pair(std::int64_t position, std::int64_t run, std::int64_t count)
      : first(position / (2 * run) * (2 * run)),
        a_end(first + run < count ? first + run : count),
        b_end(first + 2 * run < count ? first + 2 * run : count) {}
};

// One tile of a merge pass, which merges sorted runs of `run` elements in src pairwise into dst.
// The tile's bounds come from a partition pass (p[t]: where tile t's outputs start in its pair's
// a run, as a position in src) or, when SearchInCta, from the CTA's own searches (search_in_ctas).
// Two kernels, not one with a branch: with both paths the pass for int32 pairs took 64 registers
// instead of 48 and ran 2.5% slower at 2^26 (H100). A functor rather than a lambda so that
// mergesort_impl can ask its occupancy before allocating.
template <typename P, typename K, typename V, typename Comp, bool SearchInCta>
struct merge_pass_tile {
  const K* src_keys;
  const V* src_values;
  K* dst_keys;
  V* dst_values;
  std::int64_t count, run;
  Comp comp;

  MGPU_DEVICE void operator()(int tid, int tile, const std::int64_t* p) const {
    __shared__ shared_storage<merge_tile_storage<P::nv, K, V>> storage;
    merge_tile_storage<P::nv, K, V>& s = storage.get();
    std::int64_t first = std::int64_t(tile) * P::nv;
    std::int64_t last = first + P::nv < count ? first + P::nv : count;
    run_pair pair(first, run, count);
    std::int64_t a_begin, a_end;
    if constexpr (!SearchInCta) {
      a_begin = p[tile];
      a_end = last == pair.b_end ? pair.a_end : p[tile + 1];
    } else {
      cta_merge_path_pair<P::nt>(tid, src_keys + pair.first, pair.a_end - pair.first, src_keys + pair.a_end,
                                 pair.b_end - pair.a_end, first - pair.first, last - pair.first, comp, s.splits,
                                 a_begin, a_end);
      a_begin += pair.first;
      a_end += pair.first;
    }
    std::int64_t b_begin = pair.a_end + (first - pair.first) - (a_begin - pair.first);
    std::int64_t b_end = pair.a_end + (last - pair.first) - (a_end - pair.first);
    merge_tile<P, K, V>(tid, src_keys, src_values, a_begin, a_end, src_keys, src_values, b_begin, b_end, dst_keys,
                        dst_values, first, int(last - first), comp, s.tile);
  }
};

// One merge pass from src into dst, its tile boundaries searched first into `partitions` (tiles +
// 1 entries) or, where that is null, by each tile's CTA.
template <typename P, typename K, typename V, typename Comp>
void merge_pass(const K* src_keys, const V* src_values, K* dst_keys, V* dst_values, std::int64_t count,
                std::int64_t run, Comp comp, std::int64_t* partitions, context& ctx) {
  int tiles = num_tiles<P>(count);
  if (partitions) {
    // Tile t's outputs start at position(t) of the merge of the run pair that holds it.
    auto position = [=] MGPU_LAMBDA(std::int64_t t) { return t * P::nv < count ? t * P::nv : count; };
    auto tile_pair = [=] MGPU_LAMBDA(std::int64_t t) {
      return run_pair(position(t) < count ? position(t) : count - 1, run, count);
    };
    run_searches(
        tiles + 1,
        [=] MGPU_LAMBDA(std::int64_t t) {
          run_pair pair = tile_pair(t);
          return merge_path_search<bounds::lower, const K*, const K*, std::int64_t, Comp>(
              src_keys + pair.first, pair.a_end - pair.first, src_keys + pair.a_end, pair.b_end - pair.a_end,
              position(t) - pair.first, comp);
        },
        [=] MGPU_LAMBDA(std::int64_t t, std::int64_t x) { partitions[t] = tile_pair(t).first + x; }, ctx, P::nv);
  }
  const std::int64_t* p = partitions;
  if (p)
    cta_launch<P>(merge_pass_tile<P, K, V, Comp, false>{src_keys, src_values, dst_keys, dst_values, count, run, comp},
                  tiles, ctx, p);
  else
    cta_launch<P>(merge_pass_tile<P, K, V, Comp, true>{src_keys, src_values, dst_keys, dst_values, count, run, comp},
                  tiles, ctx, p);
}

// Sorts keys[0, count) in place, with values (read from values_in, ending in values) when V is
// not empty_t.
template <typename params, typename K, typename V, typename ValuesIn, typename Comp>
void mergesort_impl(const char* fn, K* keys, ValuesIn values_in, V* values, std::int64_t count, Comp comp,
                    context& ctx) {
  if constexpr (std::is_void<params>::value &&
                !std::is_same<mergesort_large_params<K, V>, mergesort_params<K, V>>::value) {
    if (count > mergesort_large_threshold) {  // (the checks below run in that call)
      mergesort_impl<mergesort_large_params<K, V>, K, V>(fn, keys, values_in, values, count, comp, ctx);
      return;
    }
  }
  check_count(fn, "count", count);
  check_pointer(fn, "keys", keys, count);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "values", values, count);
    check_disjoint(fn, "values", keys, count, values, count);
  }
  using P = params_or<params, mergesort_params<K, V>>;
  if (count == 0) return;
  int tiles = num_tiles<P>(count, fn);
  int passes = ceil_log2(tiles);

  // Temporaries first: a failed allocation must leave the caller's arrays untouched.
  buffer<K> keys_temp(passes ? count : 0, ctx);
  buffer<V> values_temp(passes && has_values_v<V> ? count : 0, ctx);
  const bool partition_passes =
      passes && !search_in_ctas<P, merge_pass_tile<P, K, V, Comp, true>, const std::int64_t*>(tiles, ctx);
  buffer<std::int64_t> partitions(partition_passes ? tiles + 1 : 0, ctx);
  // An odd number of passes starts in the temporaries, so that the last pass writes the caller's.
  K* src_keys = passes % 2 ? keys_temp.data() : keys;
  V* src_values = passes % 2 ? values_temp.data() : values;
  K* dst_keys = passes % 2 ? keys : keys_temp.data();
  V* dst_values = passes % 2 ? values : values_temp.data();
  blocksort<P>(keys, values_in, count, src_keys, src_values, comp, ctx);

  for (int pass = 0; pass < passes; ++pass) {
    merge_pass<P>(src_keys, src_values, dst_keys, dst_values, count, std::int64_t(P::nv) << pass, comp,
                  partitions.data(), ctx);
    std::swap(src_keys, dst_keys);
    std::swap(src_values, dst_values);
  }
}

}  // namespace detail

// Sorts keys[0, count) in place by comp (a strict weak order), stably: equal keys keep their
// order, as std::stable_sort. keys is a raw device pointer. Temporaries (a copy of the keys)
// come from the context. Stream-ordered.
// Throws std::invalid_argument for a negative count or a null pointer.
template <typename params = void, typename K, typename Comp>
void mergesort(K* keys, std::int64_t count, Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::mergesort_impl<params, K, empty_t>("mgpu::mergesort", keys, constant_iterator<empty_t>(),
                                               static_cast<empty_t*>(nullptr), count, comp, ctx);
}

// Sorts key-value pairs in place by key, stably: values[i] moves with keys[i].
template <typename params = void, typename K, typename V, typename Comp>
void mergesort(K* keys, V* values, std::int64_t count, Comp comp, context& ctx) {
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::mergesort_impl<params, K, V>("mgpu::mergesort", keys, values, values, count, comp, ctx);
}

// Sorts keys[0, count) in place, stably, and writes the sorting permutation: indices[i] is the
// original position of the key now at keys[i]. Index is an integer type that holds count - 1.
template <typename params = void, typename K, typename Index, typename Comp>
void mergesort_indices(K* keys, std::int64_t count, Index* indices, Comp comp, context& ctx) {
  static_assert(std::is_integral<Index>::value, "indices are integers");
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::mergesort_impl<params, K, Index>("mgpu::mergesort_indices", keys, make_counting_iterator<Index>(0), indices,
                                             count, comp, ctx);
}

}  // namespace mgpu
