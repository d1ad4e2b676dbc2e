// mgpu/cta/cta_sort.hpp
//
// cta_sort: a stable sort of one tile of NV = NT * VT keys (and values) held in registers in
// thread order. Each thread sorts its own VT keys with a sorting network, then log2(NT) rounds
// of merges in shared memory double the sorted runs (VT, 2 VT, ..., NV), each thread merging VT
// outputs of its pair of runs found by Merge Path. The first stage of mergesort and of the
// segmented sorts.
#pragma once

#include "../core/types.hpp"
#include "merge.hpp"
#include "sort_networks.hpp"

#include <type_traits>

namespace mgpu {

template <int NT, int VT, typename K, typename V = empty_t>
struct cta_sort {
  static_assert(NT > 0 && (NT & (NT - 1)) == 0, "cta_sort needs a power-of-two NT");
  static constexpr int nv = NT * VT;
  struct storage_t {
    union {
      K keys[nv + 1];  // one past the end: serial_merge reads ahead
      V values[nv + 1];
    };
  };

  // Sorts the tile's first `count` elements (thread tid holds elements [VT * tid, VT * tid + VT));
  // returns with each thread holding the same positions of the sorted tile. Elements at or past
  // `count` end up unspecified. Stable.
  template <typename Comp>
  MGPU_DEVICE static void sort(array_t<K, VT>& keys, array_t<V, VT>& values, storage_t& storage, int tid,
                               int count, Comp comp) {
    int mine = VT * tid < count ? (count - VT * tid < VT ? count - VT * tid : VT) : 0;
    odd_even_sort(keys, values, comp, mine);
    MGPU_UNROLL
    for (int coop = 2; coop <= NT; coop *= 2) {
      MGPU_UNROLL
      for (int i = 0; i < VT; ++i) storage.keys[VT * tid + i] = keys[i];
      __syncthreads();
      // This thread's group of `coop` threads merges two runs of coop / 2 * VT keys.
      int first = tid & ~(coop - 1);
      int a_begin = min_of(VT * first, count), a_end = min_of(VT * (first + coop / 2), count);
      int b_end = min_of(VT * (first + coop), count);
      int diag = min_of(VT * (tid - first), b_end - a_begin);
      int mp = merge_path(storage.keys + a_begin, a_end - a_begin, storage.keys + a_end, b_end - a_end, diag, comp);
      merge_range range{a_begin + mp, a_end, a_end + diag - mp, b_end};
      merge_pair<K, VT> merged = serial_merge<VT>(storage.keys, range, comp);
      __syncthreads();
      keys = merged.keys;
      if constexpr (has_values_v<V>) {
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) storage.values[VT * tid + i] = values[i];
        __syncthreads();
        MGPU_UNROLL
        for (int i = 0; i < VT; ++i) values[i] = storage.values[merged.indices[i]];
        __syncthreads();
      }
    }
  }

 private:
  MGPU_DEVICE static int min_of(int a, int b) { return a < b ? a : b; }
};

}  // namespace mgpu
