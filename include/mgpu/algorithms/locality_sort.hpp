// mgpu/algorithms/locality_sort.hpp
//
// locality_sort: a stable sort that is fast when keys are already nearly in order (each key at
// most a little way from its place), with no hint from the caller. It is mergesort with early
// exit: after the blocksort, each merge level merges, in every pair of sorted runs A B, only the
// window that is out of order: A's keys greater than B's first and B's keys less than A's last.
// When the runs are already in order the window is empty and the pair costs next to nothing: the
// search kernel lists the tiles that overlap a window, and only those are copied and merged (by
// one wave of CTAs looping over the list). The window is
// copied aside and merged back in place, so a level moves only the keys that are out of place
// (random input therefore costs about twice a mergesort). A level is three launches whatever it
// moves, which costs more than a mergesort's pass over a few megabytes: below
// locality_sort_params' mergesort_below_bytes the call is a plain mergesort.
#pragma once

#include "../core/buffer.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../cta/search.hpp"
#include "merge.hpp"
#include "mergesort.hpp"

#include <cstdint>
#include <type_traits>

namespace mgpu {

// The default shape: the mergesort's tiles, without its minimum of CTAs an SM (not measured on
// these kernels); and the size, in bytes of keys and values, below which the call is a plain
// mergesort. Three launches a merge level (search, set aside, merge back) cost more than a
// mergesort pass until a pass moves about 16 MiB: on an H100, on the benchmark's nearly sorted
// input (1% of the keys displaced by at most 64 places), locality_sort took 0.51x mergesort's
// speed at 2^20 int keys, 0.96x at 3.5 * 2^20 (14 MiB), 1.07x at 2^22 (16 MiB), 1.61x at 2^23;
// int64 keys and int pairs crossed over between 16 and 20 MiB, 0.97x-0.98x at 16
// (bench/results/2026-11-27_h100_locality_crossover.txt). Random keys cost about twice a
// mergesort at every size. Params that are a plain launch_params (no mergesort_below_bytes) run
// the locality path at every size.
template <typename K, typename V = empty_t, std::int64_t MergesortBelowBytes = std::int64_t(1) << 24>
struct locality_sort_params : launch_params<mergesort_params<K, V>::nt, mergesort_params<K, V>::vt> {
  static constexpr std::int64_t mergesort_below_bytes = MergesortBelowBytes;
};

namespace detail {

template <typename P, typename = void>
struct mergesort_below_bytes_of : std::integral_constant<std::int64_t, 0> {};
template <typename P>
struct mergesort_below_bytes_of<P, std::void_t<decltype(P::mergesort_below_bytes)>>
    : std::integral_constant<std::int64_t, P::mergesort_below_bytes> {};

// One tile's part of a level: the out-of-order window [begin, end) around its pair's middle, and
// where the tile's outputs start and end on the window's a side.
struct window_tile {
  std::int64_t begin, end, middle, a_begin, a_end;
};

template <typename P, typename K, typename V, typename Comp>
void locality_sort_impl(const char* fn, K* keys, V* values, std::int64_t count, Comp comp, context& ctx) {
  check_count(fn, "count", count);
  check_pointer(fn, "keys", keys, count);
  if constexpr (has_values_v<V>) {
    check_pointer(fn, "values", values, count);
    check_disjoint(fn, "values", keys, count, values, count);
  }
  if (count == 0) return;
  constexpr std::int64_t bytes_per_key = std::int64_t(sizeof(K)) + (has_values_v<V> ? std::int64_t(sizeof(V)) : 0);
  if (count < mergesort_below_bytes_of<P>::value / bytes_per_key) {
    if constexpr (has_values_v<V>)
      mergesort_impl<void, K, V>(fn, keys, values, values, count, comp, ctx);
    else
      mergesort_impl<void, K, V>(fn, keys, constant_iterator<empty_t>(), values, count, comp, ctx);
    return;
  }
  constexpr int NT = P::nt, NV = P::nv;
  int tiles = num_tiles<P>(count, fn);
  int levels = ceil_log2(tiles);  // 0 for one tile: the blocksort alone sorts it

  // Temporaries first: a failed allocation must leave the caller's arrays untouched.
  buffer<K> keys_aside(levels ? count : 0, ctx);
  buffer<V> values_aside(levels && has_values_v<V> ? count : 0, ctx);
  buffer<window_tile> plan(levels ? tiles : 0, ctx);
  buffer<int> listed(levels ? tiles : 0, ctx), num_listed(levels, ctx);  // per level: the tiles with a window

  blocksort<P>(keys, values, count, keys, values, comp, ctx);
  if (levels == 0) return;
  num_listed.fill(0);
  K* aside_k = keys_aside.data();
  V* aside_v = values_aside.data();
  window_tile* plan_p = plan.data();
  int* listed_p = listed.data();
  for (int level = 0; level < levels; ++level) {
    int* count_p = num_listed.data() + level;
    transform<search_params>(
        [=] MGPU_LAMBDA(std::int64_t t) {
          run_pair pair(t * NV, std::int64_t(NV) << level, count);
          window_tile w{pair.a_end, pair.a_end, pair.a_end, pair.a_end, pair.a_end};
          if (pair.a_end < pair.b_end) {
            // A keys after B's first move right; B keys before A's last move left (ties stay put).
            w.begin = pair.first +
                      binary_search<bounds::upper>(keys + pair.first, pair.a_end - pair.first, keys[pair.a_end], comp);
            w.end = pair.a_end + binary_search<bounds::lower>(keys + pair.a_end, pair.b_end - pair.a_end,
                                                              keys[pair.a_end - 1], comp);
            std::int64_t t0 = t * NV, t1 = t0 + NV < count ? t0 + NV : count;
            region_split(keys, w.begin, w.middle, w.end, t0, t1, comp, w.a_begin, w.a_end);
            if (w.begin < t1 && t0 < w.end) listed_p[atomicAdd(count_p, 1)] = int(t);
          }
          plan_p[t] = w;
        },
        tiles, ctx);

    V* caller_values = values;  // (captured here: nvcc forbids a first capture inside `if constexpr`)
    auto set_aside = [=] MGPU_LAMBDA(int tid, int tile) {
      window_tile w = plan_p[tile];
      std::int64_t t0 = std::int64_t(tile) * NV, t1 = t0 + NV < count ? t0 + NV : count;
      std::int64_t b = w.begin > t0 ? w.begin : t0, e = w.end < t1 ? w.end : t1;
      const V* values_from = caller_values;  // (captured outside `if constexpr`, as nvcc requires)
      V* values_to = aside_v;
      cta_copy<NT, P::vt>(keys, aside_k, b, e, tid);
      if constexpr (has_values_v<V>) cta_copy<NT, P::vt>(values_from, values_to, b, e, tid);
    };
    cta_launch_listed_tiles<P>(set_aside, listed_p, count_p, tiles, ctx);

    auto merge_back = [=] MGPU_LAMBDA(int tid, int tile) {
      __shared__ shared_storage<merge_storage<NV, K, V>> storage;
      window_tile w = plan_p[tile];
      std::int64_t t0 = std::int64_t(tile) * NV, t1 = t0 + NV < count ? t0 + NV : count;
      std::int64_t m0 = w.begin > t0 ? w.begin : t0, m1 = w.end < t1 ? w.end : t1;
      merge_tile<P, K, V>(tid, aside_k, aside_v, w.a_begin, w.a_end, aside_k, aside_v, w.middle + m0 - w.a_begin,
                          w.middle + m1 - w.a_end, keys, caller_values, m0, int(m1 - m0), comp, storage.get());
    };
    cta_launch_listed_tiles<P>(merge_back, listed_p, count_p, tiles, ctx);
  }
}

}  // namespace detail

// Sorts keys[0, count) in place by comp, stably, like mergesort; much faster when the input is
// nearly sorted (keys displaced only locally) and holds at least mergesort_below_bytes (16 MiB by
// default; smaller inputs are mergesorted). Temporaries: a copy of the keys (and values).
// Stream-ordered. Throws std::invalid_argument for a negative count or null pointers.
template <typename params = void, typename K, typename Comp>
void locality_sort(K* keys, std::int64_t count, Comp comp, context& ctx) {
  using P = params_or<params, locality_sort_params<K>>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::locality_sort_impl<P, K, empty_t>("mgpu::locality_sort", keys, static_cast<empty_t*>(nullptr), count, comp,
                                              ctx);
}

// Key-value pairs: values[i] moves with keys[i].
template <typename params = void, typename K, typename V, typename Comp>
void locality_sort(K* keys, V* values, std::int64_t count, Comp comp, context& ctx) {
  using P = params_or<params, locality_sort_params<K, V>>;
  MGPU_REQUIRE_COMPARATOR(Comp, K);
  if constexpr (is_comparator_v<Comp, K>)
    detail::locality_sort_impl<P, K, V>("mgpu::locality_sort", keys, values, count, comp, ctx);
}

}  // namespace mgpu
