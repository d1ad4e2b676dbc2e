// mgpu/cta/sort_networks.hpp
//
// Sorting VT keys (and values) held in one thread's registers: odd-even transposition sort, a
// network of VT rounds of independent compare-and-swaps on neighbours (and a variant that sorts
// runs of neighbours on their own). It swaps only pairs that
// are strictly out of order, so it is stable, and every index is a compile-time constant, so the
// arrays stay in registers.
#pragma once

#include "../core/types.hpp"

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

}  // namespace mgpu
