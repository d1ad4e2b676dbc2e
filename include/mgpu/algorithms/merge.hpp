// mgpu/algorithms/merge.hpp
//
// merge: partition both inputs by Merge Path at every tile's first output, then each CTA loads
// its two slices into shared memory and merges NV outputs (cta_merge_from_shared).
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/loadstore.hpp"
#include "../cta/merge.hpp"
#include "partition.hpp"
#include "preconditions.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

// The tile shape for keys of type K with values of type V (empty_t: keys only). Keys of 4 bytes
// alone ask for 5 CTAs an SM (48 registers, no spills; 64 and 4 CTAs without): 1.05x faster at
// 2^24-2^28 on an H100 (bench/results/2026-11-27_h100_merge_keys_caps.txt). With values, 5 CTAs
// spill.
template <typename K, typename V = empty_t>
using merge_params = launch_params<256, (sizeof(K) > 8 ? 7 : 15), (sizeof(K) <= 4 && !has_values_v<V> ? 5 : 0)>;

namespace detail {

template <int NV, typename K, typename V>
struct merge_storage {
  union {
    K keys[NV + 1];
    V values[NV];
  };
};

// A merge tile's shared memory, with room for the two splits the CTA finds itself
// (cta_merge_path_pair) where no partition pass gives them.
template <int NV, typename K, typename V>
struct merge_tile_storage {
  merge_storage<NV, K, V> tile;
  std::int64_t splits[2];
};

// One tile of a merge: its out_count (at most NV) outputs, out_keys[out_first, out_first +
// out_count) and, with values, out_values, merged from a[a_begin, a_end) and b[b_begin, b_end).
// Keys-only merges pass V = empty_t and touch no value iterator. Splits found by Merge Path over
// sorted inputs give (a_end - a_begin) + (b_end - b_begin) == out_count. Inputs that break the
// preconditions (not sorted, or a comparator that is no strict weak order) can give splits that
// are not monotone: the counts are then clamped, so that every read stays in the two ranges and
// every write in the tile (the output is unspecified, memory is safe). L and Partial tune the
// tile's loads (load_two_lists_to_shared): partial tiles are rare in a merge, common in the
// segmented sort (segments end inside tiles).
template <typename P, typename K, typename V, list_addressing L = list_addressing::choose_base,
          partial_tiles Partial = partial_tiles::rare, typename AKeys, typename AValues, typename BKeys,
          typename BValues, typename OutKeys, typename OutValues, typename Comp>
MGPU_DEVICE void merge_tile(int tid, AKeys a_keys, AValues a_values, std::int64_t a_begin, std::int64_t a_end,
                            BKeys b_keys, BValues b_values, std::int64_t b_begin, std::int64_t b_end, OutKeys out_keys,
                            OutValues out_values, std::int64_t out_first, int out_count, Comp comp,
                            merge_storage<P::nv, K, V>& s) {
  std::int64_t a_given = a_end - a_begin, b_given = b_end - b_begin;
  int a_count = int(a_given < 0 ? 0 : a_given > out_count ? out_count : a_given);
  int b_count = int(b_given < 0 ? 0 : b_given > out_count - a_count ? out_count - a_count : b_given);
  int total = a_count + b_count;
  load_two_lists_to_shared<P::nt, P::vt, L, Partial>(a_keys + a_begin, a_count, b_keys + b_begin, b_count, tid, s.keys);
  merge_pair<K, P::vt> merged = cta_merge_from_shared<P::nt, P::vt>(s.keys, a_count, b_count, tid, comp);
  __syncthreads();
  reg_to_mem_thread<P::nt, P::vt>(merged.keys, out_keys + out_first, tid, total, s.keys);
  if constexpr (has_values_v<V>) {
    array_t<V, P::vt> values =
        gather_merge_values<P::vt, V>(merged.indices, a_values + a_begin, a_count, b_values + b_begin, tid, total);
    reg_to_mem_thread<P::nt, P::vt>(values, out_values + out_first, tid, total, s.values);
  }
}

// Output position p of a merge whose output occupies [region_begin, region_end), as a diagonal of
// that merge (clamped to the region).
MGPU_HOST_DEVICE std::int64_t region_diagonal(std::int64_t p, std::int64_t region_begin, std::int64_t region_end) {
  return (p < region_begin ? region_begin : p > region_end ? region_end : p) - region_begin;
}

// A tile [t0, t1)'s share of the merge of src[region_begin, middle) with src[middle, region_end)
// (both sorted), whose output occupies [region_begin, region_end): where the tile's outputs start
// and end on the a side.
template <typename KeysIt, typename Comp>
MGPU_HOST_DEVICE void region_split(KeysIt src, std::int64_t region_begin, std::int64_t middle, std::int64_t region_end,
                                   std::int64_t t0, std::int64_t t1, Comp comp, std::int64_t& a_begin,
                                   std::int64_t& a_end) {
  std::int64_t a_count = middle - region_begin, b_count = region_end - middle;
  std::int64_t x0, x1;
  merge_path_pair(src + region_begin, a_count, src + middle, b_count, region_diagonal(t0, region_begin, region_end),
                  region_diagonal(t1, region_begin, region_end), comp, x0, x1);
  a_begin = region_begin + x0;
  a_end = region_begin + x1;
}

template <typename params, typename K, typename V, typename AKeys, typename AValues, typename BKeys, typename BValues,
          typename OutKeys, typename OutValues, typename Comp>
void merge_impl(const char* fn, AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values,
                std::int64_t b_count, OutKeys out_keys, OutValues out_values, Comp comp, context& ctx) {
  check_count(fn, "a_count", a_count);
  check_count(fn, "b_count", b_count);
  const std::int64_t total = checked_sum(fn, "a_count", a_count, "b_count", b_count);
  check_pointer(fn, "a_keys", a_keys, a_count);
  check_pointer(fn, "b_keys", b_keys, b_count);
  check_pointer(fn, "keys_out", out_keys, total);
  check_disjoint(fn, "keys_out", a_keys, a_count, out_keys, total);
  check_disjoint(fn, "keys_out", b_keys, b_count, out_keys, total);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "a_values", a_values, a_count);
    check_pointer(fn, "b_values", b_values, b_count);
    check_pointer(fn, "values_out", out_values, total);
    check_disjoint(fn, "values_out", a_values, a_count, out_values, total);
    check_disjoint(fn, "values_out", b_values, b_count, out_values, total);
  }
  if (ctx.checked()) {
    check_sorted(fn, "a_keys", a_keys, a_count, comp, ctx);
    check_sorted(fn, "b_keys", b_keys, b_count, comp, ctx);
  }
  using P = params_or<params, merge_params<K, V>>;
  if (total == 0) return;
  int tiles = num_tiles<P>(total, fn);
  // Tile boundaries come from a partition pass, or, for a grid of one or two waves, from each
  // CTA's own searches (merge_tile_bounds); a single tile takes everything.
  auto kernel = [=] MGPU_LAMBDA(int tid, int tile, auto bounds_from) {
    __shared__ shared_storage<merge_tile_storage<P::nv, K, V>> storage;
    merge_tile_storage<P::nv, K, V>& s = storage.get();
    std::int64_t first = std::int64_t(tile) * P::nv;
    std::int64_t last = first + P::nv < total ? first + P::nv : total;
    std::int64_t a_begin, a_end;
    merge_tile_bounds<P::nt, bounds::lower>(bounds_from, tid, tile, a_keys, a_count, b_keys, b_count, first, last, comp,
                                            s.splits, a_begin, a_end);
    merge_tile<P, K, V>(tid, a_keys, a_values, a_begin, a_end, b_keys, b_values, first - a_begin, last - a_end,
                        out_keys, out_values, first, int(last - first), comp, s.tile);
  };
  if (tiles > 1 && search_in_ctas<P, decltype(kernel), search_bounds_t>(tiles, ctx)) {
    cta_launch<P>(kernel, tiles, ctx, search_bounds_t());
    return;
  }
  buffer<std::int64_t> partitions =
      tiles > 1 ? merge_path_partitions(a_keys, a_count, b_keys, b_count, P::nv, comp, ctx) : buffer<std::int64_t>();
  cta_launch<P>(kernel, tiles, ctx, static_cast<const std::int64_t*>(partitions.data()));
}

}  // namespace detail

// Merges sorted a_keys[0, a_count) and b_keys[0, b_count) (both sorted by comp) into
// keys_out[0, a_count + b_count). Stable: on ties a's elements come first, as std::merge.
// keys_out must not overlap the inputs. Stream-ordered.
// Throws std::invalid_argument for negative counts, null pointers or overlapping outputs; in
// checked mode, mgpu::precondition_error if an input is not sorted (unsorted inputs are
// otherwise undefined behaviour).
template <typename params = void, typename AKeys, typename BKeys, typename OutKeys, typename Comp>
void merge(AKeys a_keys, std::int64_t a_count, BKeys b_keys, std::int64_t b_count, OutKeys keys_out, Comp comp,
           context& ctx) {
  using K = iterator_value_t<AKeys>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  constant_iterator<empty_t> no_values;
  if constexpr (is_comparator_v<Comp, K>)
    detail::merge_impl<params, K, empty_t>("mgpu::merge", a_keys, no_values, a_count, b_keys, no_values, b_count,
                                           keys_out, discard_iterator(), comp, ctx);
}

// Merges key-value pairs: keys as above; values_out[i] is the value of the key at keys_out[i].
template <typename params = void, typename AKeys, typename AValues, typename BKeys, typename BValues, typename OutKeys,
          typename OutValues, typename Comp>
void merge(AKeys a_keys, AValues a_values, std::int64_t a_count, BKeys b_keys, BValues b_values, std::int64_t b_count,
           OutKeys keys_out, OutValues values_out, Comp comp, context& ctx) {
  using K = iterator_value_t<AKeys>;
  using V = iterator_value_t<AValues>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::merge_impl<params, K, V>("mgpu::merge", a_keys, a_values, a_count, b_keys, b_values, b_count, keys_out,
                                     values_out, comp, ctx);
}

}  // namespace mgpu
