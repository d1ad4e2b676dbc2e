// mgpu/cta/sort_networks.hpp
//
// Sorting VT keys (and values) held in one thread's registers: odd-even transposition sort, a
// network of VT rounds of independent compare-and-swaps on neighbours (and a variant that sorts
// runs of neighbours on their own). It swaps only pairs that
// are strictly out of order, so it is stable, and every index is a compile-time constant, so the
// arrays stay in registers. Batcher's odd-even merge sort takes far fewer compare-and-swaps (63
// for 16 keys against 120), but between distant positions, which is not stable: thread_sort takes
// it for keys alone whose ties cannot be told apart (integers under less or greater), where
// stability changes nothing.
#pragma once

#include "../core/operators.hpp"
#include "../core/types.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace mgpu {

namespace detail {
template <typename T>
MGPU_HOST_DEVICE void swap_values(T& a, T& b) {
  T c = a;
  a = b;
  b = c;
}
}  // namespace detail

// Sorts keys[0, valid) (and their values) in place; elements at or past `valid` do not move.
template <int VT, typename K, typename V, typename Comp>
MGPU_HOST_DEVICE void odd_even_sort(array_t<K, VT>& keys, array_t<V, VT>& values, Comp comp, int valid = VT) {
  MGPU_UNROLL
  for (int round = 0; round < VT; ++round) {
    MGPU_UNROLL
    for (int i = round % 2; i + 1 < VT; i += 2)
      if (i + 1 < valid && comp(keys[i + 1], keys[i])) {
        detail::swap_values(keys[i], keys[i + 1]);
        detail::swap_values(values[i], values[i + 1]);
      }
  }
}

// As above, within runs: bit i of `boundaries` set means positions i and i + 1 lie in different
// runs, and they are never swapped, so each run is sorted on its own (segmented sorts). VT <= 33.
template <int VT, typename K, typename V, typename Comp>
MGPU_HOST_DEVICE void odd_even_sort_runs(array_t<K, VT>& keys, array_t<V, VT>& values, unsigned boundaries, Comp comp,
                                         int valid = VT) {
  static_assert(VT <= 33, "one boundary bit per neighbouring pair");
  MGPU_UNROLL
  for (int round = 0; round < VT; ++round) {
    MGPU_UNROLL
    for (int i = round % 2; i + 1 < VT; i += 2)
      if (i + 1 < valid && !(boundaries >> i & 1) && comp(keys[i + 1], keys[i])) {
        detail::swap_values(keys[i], keys[i + 1]);
        detail::swap_values(values[i], values[i + 1]);
      }
  }
}

// Keys only: the same network with an empty value type that the compiler drops.
template <int VT, typename K, typename Comp>
MGPU_HOST_DEVICE void odd_even_sort(array_t<K, VT>& keys, Comp comp, int valid = VT) {
  array_t<empty_t, VT> none;
  odd_even_sort(keys, none, comp, valid);
}

namespace detail {
// A compare-and-swap of two positions, lower first.
struct exchange {
  int lower, upper;
};
// Batcher's odd-even merge sort of n positions: its compare-and-swaps in order (count only, with
// out null). The network for the power of two at or above n, without those that reach past n (as
// if those positions held keys after every other, which never move).
constexpr int odd_even_merge_network(int n, exchange* out) {
  int count = 0;
  for (int p = 1; p < n; p *= 2)  // merge sorted runs of p into runs of 2 p
    for (int k = p; k > 0; k /= 2)
      for (int j = k % p; j + k < n; j += 2 * k)
        for (int i = 0; i < k; ++i)
          if (i + j + k < n && (i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            if (out) out[count] = exchange{i + j, i + j + k};
            ++count;
          }
  return count;
}
template <int N>
struct odd_even_merge_exchanges {
  static constexpr int count = odd_even_merge_network(N, nullptr);
  exchange at[count > 0 ? count : 1];
  constexpr odd_even_merge_exchanges() : at() { odd_even_merge_network(N, at); }
};
// The network's compare-and-swaps, each with constant positions: a fold over their indices. (The
// loops above in the sort itself, left to the compiler to unroll, ran twice odd_even_sort's
// instructions for 11 keys on sm_90 (ncu), and spilled: positions it did not resolve.)
template <int VT, typename K, typename Comp, std::size_t... I>
MGPU_HOST_DEVICE void odd_even_merge_sort_exchanges(array_t<K, VT>& keys, Comp comp, std::index_sequence<I...>) {
  constexpr odd_even_merge_exchanges<VT> network{};
  auto exchange_at = [&](auto lower, auto upper) {
    if (comp(keys[decltype(upper)::value], keys[decltype(lower)::value]))
      swap_values(keys[decltype(lower)::value], keys[decltype(upper)::value]);
  };
  (void)exchange_at;  // (a network of one position has none)
  (exchange_at(std::integral_constant<int, network.at[I].lower>(), std::integral_constant<int, network.at[I].upper>()),
   ...);
}
}  // namespace detail

// Sorts keys[0, VT) by comp with Batcher's odd-even merge sort: log2(VT) merge stages, about
// VT log2(VT)^2 / 4 compare-and-swaps (63 for 16 keys, against odd_even_sort's 120), not stable.
template <int VT, typename K, typename Comp>
MGPU_HOST_DEVICE void odd_even_merge_sort(array_t<K, VT>& keys, Comp comp) {
  detail::odd_even_merge_sort_exchanges(keys, comp,
                                        std::make_index_sequence<detail::odd_even_merge_exchanges<VT>::count>());
}

namespace detail {
// Whether keys of type K that comp orders as equivalent are identical, so that an unstable sort of
// keys alone gives what a stable one gives: integers under less or greater.
template <typename K, typename Comp>
struct ties_are_identical : std::false_type {};
template <typename K>
struct ties_are_identical<K, less<K>> : std::is_integral<K> {};
template <typename K>
struct ties_are_identical<K, less<void>> : std::is_integral<K> {};
template <typename K>
struct ties_are_identical<K, greater<K>> : std::is_integral<K> {};
template <typename K>
struct ties_are_identical<K, greater<void>> : std::is_integral<K> {};
}  // namespace detail

// Sorts keys[0, valid) (and their values) stably: with odd_even_sort, or, for keys alone whose
// ties cannot be told apart, with odd_even_merge_sort, after copying the largest of them into the
// positions past valid (which then come last: the elements at or past valid end up unspecified).
// cta_sort and cta_short_segment_sort sort their threads' keys with it: on the H200, 2^26 int32
// keys, segmented sort in segments of 16 1.14x faster, of 8 1.05x, mergesort 1.04x, locality sort
// of nearly sorted keys 1.11x (bench/results/2026-12-02_h200_merge_network_ab.txt).
template <int VT, typename K, typename V, typename Comp>
MGPU_HOST_DEVICE void thread_sort(array_t<K, VT>& keys, array_t<V, VT>& values, Comp comp, int valid = VT) {
  if constexpr (!has_values_v<V> && detail::ties_are_identical<K, Comp>::value) {
    if (valid < VT) {
      if (valid <= 0) return;
      K largest = keys[0];
      MGPU_UNROLL
      for (int i = 1; i < VT; ++i)
        if (i < valid && comp(largest, keys[i])) largest = keys[i];
      MGPU_UNROLL
      for (int i = 1; i < VT; ++i)
        if (i >= valid) keys[i] = largest;
    }
    odd_even_merge_sort(keys, comp);
  } else {
    odd_even_sort(keys, values, comp, valid);
  }
}

}  // namespace mgpu
